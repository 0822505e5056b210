// journal.jsonl: one event per line, a torn last line ignored by readers and cut off by the writer,
// and the sans-I/O replay that --resume continues from.

#include "engine/run/journal.hpp"
#include "engine/run/run_replay.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/search/engine_test_support.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>

using namespace warpsmith;
using namespace warpsmith::test;
namespace json = boost::json;

namespace
{

json::object proposed(const std::string& id, int branch, int iteration)
{
    candidate_record r;
    r.ec.id = id;
    r.ec.branch = branch;
    r.ec.iteration = iteration;
    r.ec.cand = candidate::from_kernel(vadd_workload().reference);
    r.ec.meta = json::object{{"file", id + ".cu"}};
    return proposed_event(r);
}

json::object evaluated(const std::string& id, bool valid, double score = 100)
{
    candidate_record r;
    r.ec.id = id;
    r.ec.valid = valid;
    r.ec.score_us = valid ? score : 0;
    r.ec.speedup_vs_reference = valid ? 200 / score : 0;
    r.ec.case_median_us = {{"big", score}};
    r.ec.failure_kind = valid ? "" : "mismatch";
    r.ec.failure_message = valid ? "" : "case odd: 3 mismatches";
    r.gpu = 0;
    r.busy_ms = 200;
    return evaluated_event(r);
}

std::string lines(const std::vector<json::object>& events)
{
    std::string s;
    for (const auto& e : events)
        s += json::serialize(e) + "\n";
    return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(journal_suite)

BOOST_AUTO_TEST_CASE(a_torn_last_line_is_ignored)
{
    const std::string text =
        lines({proposed("c0001", 0, 1), evaluated("c0001", true)}) + "{\"event\":\"propo";
    const auto j = parse_journal(text, "journal.jsonl");
    BOOST_TEST(j.events.size() == 2u);
    BOOST_TEST(j.torn_tail);
    BOOST_TEST(j.complete_bytes == text.size() - std::string("{\"event\":\"propo").size());
    // A complete-looking object without its newline is torn as well: the newline is the commit.
    const auto k =
        parse_journal(lines({proposed("c0001", 0, 1)}) + json::serialize(evaluated("c0001", true)), "j");
    BOOST_TEST(k.events.size() == 1u);
    BOOST_TEST(k.torn_tail);
}

BOOST_AUTO_TEST_CASE(a_damaged_line_in_the_middle_is_an_error_naming_the_line)
{
    const std::string text =
        lines({proposed("c0001", 0, 1)}) + "garbage\n" + lines({evaluated("c0001", true)});
    try
    {
        parse_journal(text, "run-001/journal.jsonl");
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()) ==
                   "run-001/journal.jsonl:2: not a JSON object (the journal is damaged)");
    }
}

BOOST_AUTO_TEST_CASE(writer_numbers_events_and_cuts_a_torn_tail_before_appending)
{
    temp_dir tmp;
    const auto path = tmp.path() / "journal.jsonl";
    {
        journal_writer w(path, 1);
        w.append(proposed("c0001", 0, 1));
        w.append(evaluated("c0001", true));
    }
    {
        // kill -9 in the middle of a write.
        std::ofstream f(path, std::ios::app);
        f << "{\"seq\":3,\"event\":\"prop";
    }
    auto j = read_journal(path);
    BOOST_TEST(j.torn_tail);
    const auto replayed = replay_events(j.events);
    BOOST_TEST(replayed.next_seq == 3);
    {
        journal_writer w(path, replayed.next_seq);
        w.append(json::object{{"event", "run_started"}});
    }
    j = read_journal(path);
    BOOST_TEST(!j.torn_tail);
    BOOST_REQUIRE_EQUAL(j.events.size(), 3u);
    BOOST_TEST(j.events[2].at("seq").as_int64() == 3);
    BOOST_TEST(j.events[2].at("event").as_string() == "run_started");
    BOOST_TEST(j.events[0].at("time").as_string().size() == 24u);  // 2026-12-02T13:57:02.123Z
}

BOOST_AUTO_TEST_CASE(replay_rebuilds_candidates_pending_ones_and_counters)
{
    std::vector<json::object> ev{
        json::object{{"event", "run_started"}, {"seq", 1}},
        proposed("c0001", 0, 1),
        proposed("c0002", 1, 1),
        json::object{{"event", "compiled"},
                     {"id", "c0002"},
                     {"compile", json::object{{"compiled", true}, {"log", "ok"}}}},
        evaluated("c0002", false),
        evaluated("c0001", true, 80),
        json::object{{"event", "iteration_finished"}, {"iteration", 1}},
        proposed("c0003", 0, 2),
        json::object{{"event", "usage"}, {"input", 100}, {"output", 20}, {"cost_usd", 0.5}},
        json::object{{"event", "usage"}, {"input", 1}, {"output", 2}, {"cost_usd", 0.25}},
        json::object{{"event", "stop_requested"}, {"reason", "interrupted"}, {"seq", 42}}};
    const auto r = replay_events(ev);
    BOOST_TEST(r.candidates.size() == 3u);
    BOOST_TEST(r.pending_ids() == std::vector<std::string>{"c0003"});
    BOOST_TEST(r.next_candidate_number() == 4);
    BOOST_TEST(r.last_finished_iteration == 1);
    BOOST_TEST(r.next_seq == 43);
    BOOST_TEST(r.starts == 1);
    BOOST_TEST(!r.finished);
    BOOST_REQUIRE_EQUAL(r.evaluation_order.size(), 2u);
    BOOST_TEST(r.candidates[r.evaluation_order[0]].id() == "c0002");
    const auto* c2 = r.find("c0002");
    BOOST_TEST(c2->compiled);
    BOOST_TEST(c2->ec.compile.log == "ok");
    BOOST_TEST(!c2->ec.valid);
    BOOST_TEST(c2->ec.failure_kind == "mismatch");
    const auto* c1 = r.find("c0001");
    BOOST_TEST(c1->ec.score_us == 80.0);
    BOOST_TEST(c1->ec.case_median_us.at("big") == 80.0);
    BOOST_TEST(c1->ec.meta.at("file").as_string() == "c0001.cu");
    BOOST_TEST(r.usage.input == 101);
    BOOST_TEST(r.usage.cost_usd == 0.75);
    BOOST_TEST(r.stop_reasons == std::vector<std::string>{"interrupted"});
}

BOOST_AUTO_TEST_CASE(replay_keeps_the_vendor_baselines_that_were_timed)
{
    auto vendor = [](const std::string& key, bool available, double median)
    {
        json::object ev{
            {"event", "vendor_baseline"}, {"key", key}, {"name", "cublas"}, {"available", available}};
        if (available)
            ev["case_median_us"] = json::object{{"big", median}};
        return ev;
    };
    const auto r = replay_events({json::object{{"event", "run_started"}},
                                  vendor("cublas", true, 50),
                                  vendor("cublas_tf32", false, 0),
                                  json::object{{"event", "run_started"}},
                                  vendor("cublas", true, 48)});
    // Timed once per run: the last timing of a key counts; one that was not timed is not kept.
    BOOST_REQUIRE_EQUAL(r.vendor_baselines.size(), 1u);
    BOOST_TEST(r.vendor_baselines.at("cublas").at("case_median_us").at("big").to_number<double>() == 48.0);
    BOOST_TEST(!r.vendor_baselines.count("cublas_tf32"));
}

BOOST_AUTO_TEST_CASE(replay_refuses_impossible_journals)
{
    BOOST_CHECK_THROW(replay_events({proposed("c0001", 0, 1), proposed("c0001", 0, 1)}), user_error);
    BOOST_CHECK_THROW(replay_events({evaluated("c0009", true)}), user_error);
    BOOST_CHECK_THROW(
        replay_events({proposed("c0001", 0, 1), evaluated("c0001", true), evaluated("c0001", true)}),
        user_error);
    // Unknown events from a newer tool are skipped.
    BOOST_CHECK_NO_THROW(replay_events({json::object{{"event", "something_new"}}}));
}

// A journal event with a malformed field stops the replay with the event and the field at fault
// (the strict reader, record style), rather than resuming from a half-read record.
BOOST_AUTO_TEST_CASE(replay_names_the_malformed_field_of_an_event)
{
    auto message = [](std::vector<json::object> events)
    {
        try
        {
            (void)replay_events(events);
        }
        catch (const user_error& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    json::object bad_gpu = evaluated("c0001", true);
    bad_gpu["gpu"] = "one";
    BOOST_TEST(message({proposed("c0001", 0, 1), bad_gpu}) ==
               "journal: 'evaluated' event: gpu: must be an integer, got \"one\"");
    json::object bad_median = evaluated("c0001", true);
    bad_median["case_median_us"] = json::object{{"big", "fast"}};
    BOOST_TEST(message({proposed("c0001", 0, 1), bad_median}) ==
               "journal: 'evaluated' event: case_median_us.big: must be a number, got \"fast\"");
    json::object bad_branch = proposed("c0001", 0, 1);
    bad_branch.erase("branch");
    BOOST_TEST(message({bad_branch}) == "journal: 'proposed' event: 'branch' is missing");
    json::object bad_id = proposed("c0001", 0, 1);
    bad_id["id"] = "first";
    BOOST_TEST(message({bad_id}) == "journal: 'proposed' event: id: must look like c0001, got 'first'");
    // Records as older versions wrote them: null where a field had no value, NaN as a string.
    json::object older = evaluated("c0001", true);
    older["restart_reason"] = nullptr;
    older["speedup_vs_initial"] = "NaN";
    const replayed_run r = replay_events({proposed("c0001", 0, 1), older});
    BOOST_TEST(r.candidates.at(0).evaluated);
    BOOST_TEST(r.candidates.at(0).restart_reason.empty());
}

BOOST_AUTO_TEST_SUITE_END()
