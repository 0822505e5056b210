// --resume in process: a run interrupted with candidates in flight continues from its journal.
// Already evaluated candidates are not evaluated again, proposed-but-unevaluated ones are
// evaluated (before anyone proposes again), the iteration continues, the strategy is restored.

#include "tests/engine/search/engine_test_support.hpp"

using namespace warpsmith;
using namespace warpsmith::test;
namespace json = boost::json;

namespace
{

std::chrono::nanoseconds secs(double s)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
}

std::map<std::string, int> count_by_id(const std::vector<json::object>& events, const std::string& type)
{
    std::map<std::string, int> n;
    for (const auto& e : events)
        if (e.at("event").as_string() == type)
            ++n[std::string(e.at("id").as_string())];
    return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(resume_suite)

BOOST_FIXTURE_TEST_CASE(resume_after_interrupt_loses_nothing_and_repeats_nothing, engine_fixture)
{
    search_options o;
    o.branches = 3;
    o.budgets.iterations = 2;
    o.confirm_top = 1;
    auto source = [](const proposal_context& ctx, int call) -> std::optional<std::string>
    { return kernel_with({"median_us=" + std::to_string(90 - ctx.branch - 3 * call)}); };
    {
        test_strategy strat(clock, work);
        strat.source_for = source;
        strat.latency = [](int branch, int) { return secs(branch == 0 ? 0.5 : branch == 1 ? 0.55 : 3.0); };
        auto ctrl_c = [](search_engine& e) { e.request_stop("interrupted", true); };
        const auto res = search(strat, o, std::nullopt, {{1.22, ctrl_c}});
        BOOST_REQUIRE(res.status == "interrupted");
    }
    // c0001 evaluated; c0002 proposed (compiling when interrupted); branch 2 never proposed.
    auto replayed = replay_events(read_journal(run->journal_path()).events);
    BOOST_REQUIRE(replayed.pending_ids() == std::vector<std::string>{"c0002"});

    const double resume_start = clock.now_seconds();
    test_strategy strat(clock, work);
    strat.source_for = source;
    strat.latency = [](int, int) { return secs(0.5); };
    const auto res = search(strat, o, std::move(replayed));
    BOOST_TEST(res.status == "finished");
    BOOST_TEST(res.stop_reason == "max_iterations");
    BOOST_TEST(res.summary.at("resumed").as_bool());

    // The strategy got the recorded history first, then observed the pending candidate.
    BOOST_TEST((strat.restored == std::optional<std::size_t>(1)));
    BOOST_REQUIRE(strat.observed.size() >= 2u);
    BOOST_TEST(strat.observed[0] == "c0001");
    BOOST_TEST(strat.observed[1] == "c0002");
    // Nobody proposed before the pending candidate was recorded.
    const double c2_recorded = t_of("gpu_end", "c0002");
    BOOST_TEST(c2_recorded > resume_start);
    for (const auto& c : strat.calls)
        BOOST_TEST(c.t >= c2_recorded - 1e-9);
    // Iteration 1 is completed by branch 2 only; then iteration 2 has all three branches.
    BOOST_REQUIRE_EQUAL(strat.calls.size(), 4u);
    BOOST_TEST(strat.calls[0].branch == 2);
    BOOST_TEST(strat.calls[0].iteration == 1);
    for (int i = 1; i < 4; ++i)
        BOOST_TEST(strat.calls[i].iteration == 2);

    // Across both sessions: every candidate proposed once and evaluated exactly once.
    const auto events = journal_events();
    const auto proposed = count_by_id(events, "proposed");
    const auto evaluated = count_by_id(events, "evaluated");
    BOOST_TEST(proposed.size() == 6u);
    for (const auto& [id, n] : proposed)
    {
        BOOST_TEST(n == 1, id);
        BOOST_TEST(evaluated.count(id) == 1u, id);
        if (evaluated.count(id))
            BOOST_TEST(evaluated.at(id) == 1, id);
    }
    // Sequence numbers continue.
    std::int64_t last = 0;
    for (const auto& e : events)
    {
        BOOST_TEST(e.at("seq").as_int64() == last + 1);
        last = e.at("seq").as_int64();
    }
    int started = 0;
    for (const auto& e : events)
        started += e.at("event").as_string() == "run_started" ? 1 : 0;
    BOOST_TEST(started == 2);
    const auto rj = read_json_file(run->path() / "run.json");
    BOOST_TEST(res.summary.at("candidates").at("evaluated").as_int64() == 6);
}

BOOST_FIXTURE_TEST_CASE(resume_of_a_finished_run_with_a_larger_budget_continues, engine_fixture)
{
    search_options o;
    o.branches = 1;
    o.budgets.iterations = 2;
    o.confirm_top = 0;
    {
        test_strategy strat(clock, work);
        strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
        search(strat, o);
    }
    o.budgets.iterations = 4;
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=80"}); };
    auto replayed = replay_events(read_journal(run->journal_path()).events);
    BOOST_TEST(replayed.finished);
    const auto res = search(strat, o, std::move(replayed));
    BOOST_TEST(res.stop_reason == "max_iterations");
    BOOST_REQUIRE_EQUAL(strat.calls.size(), 2u);
    BOOST_TEST(strat.calls[0].iteration == 3);
    BOOST_TEST(events_of("proposed").size() == 4u);
    BOOST_TEST(events_of("proposed").back().at("id").as_string() == "c0004");
}

BOOST_AUTO_TEST_SUITE_END()
