// The final confirmation validates what it times (SPEC §3 "Trust rules"; docs/engine.md, "Scoring
// and confirmation"): decide_confirmation on responses with "invalid", the planner's attempts, the
// winner choice, and the engine on the simulated backend (FAKE: confirm_invalid) down to the run
// directory and a resume.

#include "engine/search/confirmation.hpp"
#include "engine/search/scoring.hpp"
#include "harness/protocol/format_error.hpp"
#include "tests/engine/search/engine_test_support.hpp"

using namespace warpsmith;
using namespace warpsmith::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

json::object timing(double median)
{
    return json::object{{"median_us", median}};
}

/// {"timings": {key: {"big": {median}}}} with every key at its median, and "invalid" as given.
json::object response_json(const std::map<std::string, double>& medians, json::object invalid = {})
{
    json::object t;
    for (const auto& [k, m] : medians)
        t[k] = json::object{{"big", timing(m)}};
    return json::object{{"timings", std::move(t)}, {"invalid", std::move(invalid)}};
}

/// A time_interleaved answer as the GPU executor hands it on: read at the boundary.
protocol::interleaved_result response(const std::map<std::string, double>& medians, json::object invalid = {})
{
    return protocol::interleaved_result::from_json(response_json(medians, std::move(invalid)));
}

json::object failure(const std::string& kind)
{
    return json::object{{"kind", kind}, {"case", "big"}, {"message", "output differs in a timed launch"}};
}

std::vector<confirmation_input> inputs(const std::vector<std::string>& candidates, bool initial = true)
{
    std::vector<confirmation_input> in{{"reference", false, 200.0}};
    if (initial)
        in.push_back({"initial", true, 160.0});
    for (const auto& c : candidates)
        in.push_back({c, true, 100.0});
    return in;
}

evaluated_candidate valid_candidate(const std::string& id, double speedup)
{
    evaluated_candidate c;
    c.id = id;
    c.valid = true;
    c.speedup_vs_reference = speedup;
    c.score_us = 200 / speedup;
    return c;
}

search_options confirm_opts(int branches, int top)
{
    search_options o;
    o.branches = branches;
    o.budgets.iterations = 1;
    o.confirm_top = top;
    return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(confirmation_suite)

BOOST_AUTO_TEST_CASE(an_invalid_entry_never_wins_whatever_its_timings)
{
    // c1 is the fastest by its (partial) timings, but the worker lists it as invalid.
    const auto d =
        decide_confirmation(response({{"reference", 200}, {"initial", 160}, {"c1", 10}, {"c2", 90}},
                                     {{"c1", failure("timed_output_mismatch")}}),
                            inputs({"c1", "c2"}));
    BOOST_REQUIRE(d.winner.has_value());
    BOOST_TEST(*d.winner == "c2");
    BOOST_REQUIRE_EQUAL(d.invalid.size(), 1u);
    BOOST_TEST(d.invalid[0].key == "c1");
    BOOST_TEST(d.invalid[0].kind == "timed_output_mismatch");
    BOOST_TEST(d.invalid[0].case_name == "big");
    BOOST_TEST(d.invalid[0].text() == "case big: output differs in a timed launch");
    for (const auto& e : d.entries)
        BOOST_TEST(e.key != "c1");
    const auto j = d.to_json();
    BOOST_TEST(j.at("invalid").at("c1").at("kind").as_string() == "timed_output_mismatch");
    BOOST_TEST(j.at("entries").as_array().size() == 3u);
}

BOOST_AUTO_TEST_CASE(an_invalid_reference_gives_no_speedups_and_a_response_without_invalid_is_accepted)
{
    const auto d = decide_confirmation(
        response({{"reference", 200}, {"c1", 100}}, {{"reference", failure("timing_inconsistent")}}),
        inputs({"c1"}, false));
    BOOST_REQUIRE(d.winner.has_value());
    BOOST_TEST(*d.winner == "c1");
    BOOST_TEST(d.entries.at(0).speedup_vs_reference == 0.0);

    json::object old = response_json({{"reference", 200}, {"c1", 100}});
    old.erase("invalid");
    const auto d2 = decide_confirmation(protocol::interleaved_result::from_json(old), inputs({"c1"}, false));
    BOOST_TEST(d2.invalid.empty());
    BOOST_TEST(d2.entries.at(0).speedup_vs_reference == 2.0, boost::test_tools::tolerance(1e-12));

    // An invalid entry without kind or message still invalidates, with a generic kind and message.
    const auto d3 = decide_confirmation(response({{"reference", 200}, {"c1", 100}}, {{"c1", json::object{}}}),
                                        inputs({"c1"}, false));
    BOOST_TEST(!d3.winner.has_value());
    BOOST_REQUIRE_EQUAL(d3.invalid.size(), 1u);
    BOOST_TEST(d3.invalid[0].kind == "invalid");
    BOOST_TEST(!d3.invalid[0].message.empty());

    // A malformed answer never reaches the decision: it is refused at the boundary, naming the
    // field (the executor then reports the confirmation as failed, and the winner is unconfirmed).
    auto refused = [](const json::object& answer, const std::string& where)
    {
        try
        {
            (void)protocol::interleaved_result::from_json(answer);
            BOOST_FAIL("accepted a malformed answer");
        }
        catch (const protocol::format_error& e)
        {
            BOOST_TEST(std::string(e.what()).find(where) != std::string::npos, e.what());
        }
    };
    refused(response_json({{"c1", 100}}, {{"c1", 17}}), "time_interleaved.invalid.c1");
    json::object bad_median = response_json({{"c1", 100}});
    bad_median["timings"].as_object()["c1"].as_object()["big"].as_object()["median_us"] = "fast";
    refused(bad_median, "time_interleaved.timings.c1.big.median_us");

    // The typed answer round-trips through its JSON.
    const auto typed = response({{"reference", 200}, {"c1", 100}}, {{"c2", failure("input_mutated")}});
    BOOST_TEST((protocol::interleaved_result::from_json(typed.to_json()) == typed));
}

BOOST_AUTO_TEST_CASE(planner_confirms_the_next_best_only_when_no_candidate_survived)
{
    std::vector<evaluated_candidate> h{valid_candidate("c1", 4),
                                       valid_candidate("c2", 3),
                                       valid_candidate("c3", 2),
                                       valid_candidate("c4", 1.5)};
    {
        confirmation_planner p(2, 4);
        const auto b1 = p.next(h);
        BOOST_TEST(b1 == (std::vector<std::string>{"c1", "c2"}));
        // c1 invalid, c2 survived: done.
        p.record(b1,
                 decide_confirmation(
                     response({{"reference", 200}, {"c2", 60}}, {{"c1", failure("input_mutated")}}),
                     inputs(b1, false)));
        BOOST_TEST(p.next(h).empty());
        BOOST_TEST(!p.no_candidate_survived());
        BOOST_TEST(p.invalidated().size() == 1u);
    }
    {
        confirmation_planner p(2, 4);
        const auto b1 = p.next(h);
        p.record(b1,
                 decide_confirmation(response({{"reference", 200}, {"initial", 160}},
                                              {{"c1", failure("timed_output_mismatch")},
                                               {"c2", failure("timing_inconsistent")}}),
                                     inputs(b1)));
        BOOST_TEST(p.no_candidate_survived());
        // The engine marks them invalid in the history; the planner never repeats them anyway.
        h[0].valid = false;
        const auto b2 = p.next(h);
        BOOST_TEST(b2 == (std::vector<std::string>{"c3", "c4"}));
        p.record(b2,
                 decide_confirmation(
                     response({{"reference", 200}, {"initial", 160}, {"c3", 100}, {"c4", 130}}), inputs(b2)));
        BOOST_TEST(!p.no_candidate_survived());
        BOOST_TEST(p.next(h).empty());
        BOOST_TEST(p.attempts() == 2);
        BOOST_TEST(p.invalidated().size() == 2u);
    }
    {
        // At most max_attempts; an attempt that invalidated nothing ends it as well.
        confirmation_planner p(1, 2);
        for (int i = 0; i < 2; ++i)
        {
            const auto b = p.next(h);
            BOOST_REQUIRE_EQUAL(b.size(), 1u);
            p.record(b,
                     decide_confirmation(
                         response({{"reference", 200}}, {{b[0], failure("timed_output_mismatch")}}),
                         inputs(b, false)));
        }
        BOOST_TEST(p.next(h).empty());
        BOOST_TEST(p.no_candidate_survived());
        confirmation_planner q(1, 4);
        const auto b = q.next(h);
        q.record(b, decide_confirmation(response({{"reference", 200}}), inputs(b, false)));  // c1 untimed
        BOOST_TEST(q.next(h).empty());
        BOOST_TEST(!q.no_candidate_survived());
    }
}

BOOST_AUTO_TEST_CASE(winner_choice_never_promotes_an_unconfirmed_kernel_silently)
{
    confirmation_decision d;
    d.winner = "c3";
    winner_inputs in;
    in.decision = &d;
    in.invalidated = {confirmation_failure{"c1", "timed_output_mismatch", "big", "x"}};
    auto w = choose_winner(in);
    BOOST_TEST(*w.winner == "c3");
    BOOST_TEST(w.decided_by == "confirmation");
    BOOST_TEST(w.confirmed);
    BOOST_TEST(w.note.find("c1 (timed_output_mismatch)") != std::string::npos);

    // Every candidate invalid and no other winner: none, and the note says so.
    winner_inputs none;
    confirmation_decision empty;
    none.decision = &empty;
    none.no_candidate_survived = true;
    none.invalidated = in.invalidated;
    none.search_best = "c4";  // an unconfirmed candidate must not be promoted
    w = choose_winner(none);
    BOOST_TEST(!w.winner.has_value());
    BOOST_TEST(w.note.find("no candidate survived confirmation") != std::string::npos);

    // The confirmation failed as a whole: the search's best, marked unconfirmed, with the reason.
    winner_inputs failed;
    failed.search_best = "c2";
    failed.skipped = "failed: worker crashed";
    w = choose_winner(failed);
    BOOST_TEST(*w.winner == "c2");
    BOOST_TEST(w.decided_by == "search");
    BOOST_TEST(!w.confirmed);
    BOOST_TEST(w.note.find("not confirmed") != std::string::npos);
    BOOST_TEST(w.note.find("worker crashed") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(the_top_candidate_invalidated_in_confirmation_loses_to_the_next_valid_one,
                        engine_fixture)
{
    test_strategy strat(clock, work);
    strat.sources = {kernel_with({"median_us=90"}),
                     kernel_with({"median_us=50", "confirm_invalid=timed_output_mismatch"}),
                     kernel_with({"median_us=80"})};
    const auto res = search(strat, confirm_opts(3, 3));
    BOOST_REQUIRE(res.winner.has_value());
    BOOST_TEST(*res.winner == "c0003");
    const auto& best = res.summary.at("best").as_object();
    BOOST_TEST(best.at("decided_by").as_string() == "confirmation");
    BOOST_TEST(best.at("confirmed").as_bool());
    BOOST_TEST(read_text_file(run->path() / "best.cu") == strat.sources[2]);

    const auto inv = events_of("invalidated");
    BOOST_REQUIRE_EQUAL(inv.size(), 1u);
    BOOST_TEST(inv[0].at("id").as_string() == "c0002");
    BOOST_TEST(inv[0].at("stage").as_string() == "confirmation");
    BOOST_TEST(inv[0].at("failure").at("kind").as_string() == "timed_output_mismatch");
    const auto conf = events_of("confirmation");
    BOOST_REQUIRE_EQUAL(conf.size(), 1u);
    BOOST_TEST(conf[0].at("invalid").as_object().contains("c0002"));

    BOOST_TEST(res.summary.at("confirmation").at("invalidated").as_object().contains("c0002"));
    BOOST_TEST(res.summary.at("candidates").at("invalidated_by_confirmation").as_int64() == 1);
    BOOST_TEST(res.summary.at("candidates").at("failures").at("timed_output_mismatch").as_int64() == 1);
    BOOST_TEST(res.summary.at("best_note").as_string().find("c0002") != std::string::npos);

    const auto result = read_json_file(run->path() / "candidates" / "c0002" / "result.json");
    BOOST_TEST(!result.at("valid").as_bool());
    BOOST_TEST(result.at("failure").at("kind").as_string() == "timed_output_mismatch");
    BOOST_TEST(result.at("invalidated").at("stage").as_string() == "confirmation");
    const auto history = read_json_file(run->path() / "history.json");
    const auto& row = history.at("candidates").at(1).as_object();
    BOOST_TEST(row.at("status").as_string() == "invalid");
    BOOST_TEST(row.at("invalidated").at("kind").as_string() == "timed_output_mismatch");

    // The replayed journal (what --resume and `warpsmith report` fold) has it invalid.
    const auto replayed = replay_events(journal_events());
    const auto* rec = replayed.find("c0002");
    BOOST_REQUIRE(rec != nullptr);
    BOOST_TEST(!rec->ec.valid);
    BOOST_TEST(rec->ec.failure_kind == "timed_output_mismatch");
    BOOST_TEST(rec->ec.failure_message.find("confirmation") == 0u);
}

BOOST_FIXTURE_TEST_CASE(when_every_confirmed_candidate_is_invalid_the_next_best_are_confirmed, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.sources = {kernel_with({"median_us=50", "confirm_invalid"}),
                     kernel_with({"median_us=60", "confirm_invalid=input_mutated"}),
                     kernel_with({"median_us=80"}),
                     kernel_with({"median_us=120"})};
    const auto res = search(strat, confirm_opts(4, 2));
    BOOST_REQUIRE(res.winner.has_value());
    BOOST_TEST(*res.winner == "c0003");
    BOOST_TEST(events_of("confirmation").size() == 2u);
    BOOST_TEST(events_of("invalidated").size() == 2u);
    const auto& conf = res.summary.at("confirmation").as_object();
    BOOST_TEST(conf.at("attempts").as_int64() == 2);
    BOOST_TEST(!conf.at("no_candidate_survived").as_bool());
    BOOST_TEST(conf.at("invalidated").as_object().size() == 2u);
    BOOST_TEST(read_text_file(run->path() / "best.cu") == strat.sources[2]);
}

BOOST_FIXTURE_TEST_CASE(no_surviving_candidate_means_no_best_cu_and_resume_keeps_it, engine_fixture)
{
    work = vadd_workload(false);  // no initial kernel to fall back on
    search_options o = confirm_opts(2, 3);
    {
        test_strategy strat(clock, work);
        strat.sources = {kernel_with({"median_us=50", "confirm_invalid"}),
                         kernel_with({"median_us=60", "confirm_invalid"})};
        const auto res = search(strat, o);
        BOOST_TEST(!res.winner.has_value());
        BOOST_TEST(res.summary.at("best").is_null());
        BOOST_TEST(res.summary.at("best_note").as_string().find("no candidate survived confirmation") !=
                   std::string::npos);
        BOOST_TEST(res.summary.at("confirmation").at("no_candidate_survived").as_bool());
        BOOST_TEST(!fs::exists(run->path() / "best.cu"));
        BOOST_TEST(!fs::exists(run->path() / "best.json"));
        BOOST_TEST(res.summary.at("candidates").at("valid").as_int64() == 0);
    }
    // Resume with a larger budget: the invalidated candidates stay invalid, the strategy sees them
    // invalid, and the new valid candidate is confirmed and wins.
    auto replayed = replay_events(journal_events());
    BOOST_TEST(!replayed.find("c0001")->ec.valid);
    o.budgets.iterations = 2;
    test_strategy strat(clock, work);
    strat.sources = {kernel_with({"median_us=90"}), kernel_with({"median_us=95"})};
    const auto res = search(strat, o, std::move(replayed));
    BOOST_REQUIRE(res.winner.has_value());
    BOOST_TEST(*res.winner == "c0003");
    BOOST_TEST(res.summary.at("candidates").at("invalidated_by_confirmation").as_int64() == 2);
    BOOST_TEST(events_of("invalidated").size() == 2u);  // not invalidated again
    BOOST_TEST(read_text_file(run->path() / "best.cu") == strat.sources[0]);
}

BOOST_FIXTURE_TEST_CASE(resume_never_makes_an_invalidated_candidate_the_winner, engine_fixture)
{
    search_options o = confirm_opts(2, 3);
    {
        test_strategy strat(clock, work);
        strat.sources = {kernel_with({"median_us=50", "confirm_invalid"}), kernel_with({"median_us=100"})};
        const auto res = search(strat, o);
        BOOST_TEST(*res.winner == "c0002");
    }
    // Resume without new proposals: confirmation again, c0001 is not a candidate any more.
    test_strategy strat(clock, work);
    const auto res = search(strat, o, replay_events(journal_events()));
    BOOST_REQUIRE(res.winner.has_value());
    BOOST_TEST(*res.winner == "c0002");
    BOOST_TEST(res.summary.at("best_search").at("id").as_string() == "c0002");
    BOOST_TEST(strat.restored.value_or(0) == 2u);
    BOOST_TEST(events_of("invalidated").size() == 1u);
    BOOST_TEST(events_of("confirmation").back().at("entries").as_array().size() ==
               3u);  // reference, initial, c0002
}

BOOST_AUTO_TEST_SUITE_END()
