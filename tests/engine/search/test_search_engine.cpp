// The search loop on a virtual clock with the simulated backend: overlap of model waits, compiles
// and GPU time; the iteration barrier; asynchronous slots; repair; every budget; Ctrl-C; strategy
// failures; confirmation. Timelines are asserted in simulated seconds.
//
// Common timeline: compile 0.1 s (8 workers), GPU 0.2 s per evaluation. Before the search the
// reference and the initial kernel compile (0 -> 0.2) and are evaluated on the GPU (0.2 -> 0.6),
// so the first proposals start at t = 0.6.

#include "tests/engine/search/engine_test_support.hpp"

using namespace warpsmith;
using namespace warpsmith::test;
namespace json = boost::json;

namespace
{

constexpr double search_start = 0.6;

std::chrono::nanoseconds secs(double s)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
}

search_options barrier_opts(int branches, std::optional<int> iterations)
{
    search_options o;
    o.branches = branches;
    o.budgets.iterations = iterations;
    o.confirm_top = 0;
    return o;
}

int count_events(const std::vector<json::object>& events, const std::string& type, const std::string& id = {})
{
    int n = 0;
    for (const auto& e : events)
        if (e.at("event").as_string() == type &&
            (id.empty() || (e.contains("id") && e.at("id").as_string() == id)))
            ++n;
    return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(search_engine_suite)

BOOST_FIXTURE_TEST_CASE(candidate_ids_follow_the_branches_not_the_order_answers_arrive, engine_fixture)
{
    // Branch 2 answers first and branch 0 last; branch 1's first attempt fails and is retried. Ids
    // are quoted in prompts and break ties, so they must not depend on that: each iteration's ids
    // go to its branches in branch order, whatever the timing, and a retry keeps the number.
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context& ctx, int)
    { return kernel_with({"median_us=" + std::to_string(100 - ctx.branch - 10 * ctx.iteration)}); };
    strat.latency = [](int branch, int) { return secs(1.0 + 0.2 * (2 - branch)); };
    strat.throw_on = [](int branch, int call) { return branch == 1 && call == 1; };
    const auto res = search(strat, barrier_opts(3, 2));
    BOOST_TEST(res.status == "finished");
    std::vector<std::string> arrival;
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> owner;
    for (const auto& e : events_of("proposed"))
    {
        const auto id = std::string(e.at("id").as_string());
        arrival.push_back(id);
        owner[id] = {e.at("branch").as_int64(), e.at("iteration").as_int64()};
    }
    const std::map<std::string, std::pair<std::int64_t, std::int64_t>> expected{{"c0001", {0, 1}},
                                                                                {"c0002", {1, 1}},
                                                                                {"c0003", {2, 1}},
                                                                                {"c0004", {0, 2}},
                                                                                {"c0005", {1, 2}},
                                                                                {"c0006", {2, 2}}};
    BOOST_TEST((owner == expected));
    // The answers did arrive in another order: branch 2 first, branch 1's retry after branch 0.
    BOOST_TEST(arrival == (std::vector<std::string>{"c0003", "c0001", "c0002", "c0006", "c0005", "c0004"}),
               boost::test_tools::per_element());
}

BOOST_FIXTURE_TEST_CASE(branches_overlap_compile_with_timing_and_respect_the_barrier, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int call)
    { return kernel_with({"median_us=" + std::to_string(100 - call)}); };
    strat.latency = [](int branch, int) { return branch == 0 ? secs(1.0) : secs(1.15); };
    const auto res = search(strat, barrier_opts(2, 2));
    BOOST_TEST(res.status == "finished");
    BOOST_TEST(res.stop_reason == "max_iterations");
    BOOST_REQUIRE_EQUAL(strat.calls.size(), 4u);

    // Both branches ask the model at once.
    BOOST_TEST(near(strat.calls[0].t, search_start));
    BOOST_TEST(near(strat.calls[1].t, search_start));
    // Branch 1's candidate compiles while branch 0's is being timed...
    BOOST_TEST(near(t_of("gpu_start", "c0001"), 1.7));
    const auto second = simulated_backend::compile_label(kernel_with({"median_us=99"}));
    BOOST_TEST(near(t_of("compile_start", second), 1.75));
    BOOST_TEST(t_of("compile_end", second) < t_of("gpu_end", "c0001"));
    // ...then waits for the GPU, which never runs two candidates at once and never idles while one waits.
    BOOST_TEST(near(t_of("gpu_start", "c0002"), t_of("gpu_end", "c0001")));
    BOOST_TEST(gpu_never_shared(backend->events()));
    // Iteration 2 starts when the last candidate of iteration 1 is recorded, not before.
    BOOST_TEST(strat.calls[2].iteration == 2);
    BOOST_TEST(near(strat.calls[2].t, t_of("gpu_end", "c0002")));
    BOOST_TEST(near(strat.calls[3].t, t_of("gpu_end", "c0002")));

    const auto events = journal_events();
    std::vector<std::string> order;
    for (const auto& e : events)
    {
        const auto type = std::string(e.at("event").as_string());
        if (type == "iteration_finished")
            order.push_back("it" + std::to_string(e.at("iteration").as_int64()));
        else if (type == "proposed")
            order.push_back(std::string(e.at("id").as_string()));
    }
    BOOST_TEST(order == (std::vector<std::string>{"c0001", "c0002", "it1", "c0003", "c0004", "it2"}),
               boost::test_tools::per_element());
    const auto evaluated = events_of("evaluated");
    BOOST_REQUIRE_EQUAL(evaluated.size(), 4u);
    BOOST_TEST(evaluated[1].at("queued_ms").as_double() == 50.0, boost::test_tools::tolerance(1e-6));
}

BOOST_FIXTURE_TEST_CASE(async_mode_keeps_n_in_flight_without_barriers, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    strat.latency = [](int branch, int) { return secs(branch == 0 ? 0.1 : branch == 1 ? 0.5 : 1.5); };
    search_options o = barrier_opts(3, 3);
    o.async = true;
    std::vector<int> in_flight;
    auto sample = [&](search_engine& e)
    {
        const auto s = e.snapshot();
        in_flight.push_back(s.proposing + s.compiling + s.queued + s.timing);
    };
    const auto res = search(strat, o, std::nullopt, {{0.65, sample}, {1.05, sample}, {1.55, sample}});
    BOOST_TEST(res.stop_reason == "max_iterations");
    BOOST_TEST(in_flight == (std::vector<int>{3, 3, 3}), boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(strat.calls.size(), 9u);

    // Each branch asks again the moment its previous candidate is recorded.
    std::map<int, std::vector<double>> calls_of;
    for (const auto& c : strat.calls)
        calls_of[c.branch].push_back(c.t);
    const auto evaluated = events_of("evaluated");
    std::map<int, std::vector<std::string>> ids_of;
    for (const auto& p : events_of("proposed"))
        ids_of[static_cast<int>(p.at("branch").as_int64())].push_back(std::string(p.at("id").as_string()));
    for (int b = 0; b < 3; ++b)
    {
        BOOST_REQUIRE_EQUAL(calls_of[b].size(), 3u);
        for (int k = 0; k + 1 < 3; ++k)
            BOOST_TEST(near(calls_of[b][k + 1], t_of("gpu_end", ids_of[b][k])));
    }
    // Branch 0 finishes all three rounds before branch 2's first candidate is even proposed.
    BOOST_TEST(t_of("gpu_end", ids_of[0][2]) < search_start + 1.5);
    BOOST_TEST(gpu_never_shared(backend->events()));
}

BOOST_FIXTURE_TEST_CASE(invalid_candidate_goes_back_to_its_branch_for_repair, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context& ctx, int call) -> std::optional<std::string>
    {
        if (call == 0)
            return kernel_with({"invalid=mismatch"});
        return kernel_with({"median_us=" + std::to_string(ctx.repair_of ? 70 : 60)});
    };
    const auto res = search(strat, barrier_opts(1, 3));
    BOOST_REQUIRE_EQUAL(strat.calls.size(), 3u);
    BOOST_TEST(!strat.calls[0].repair_of.has_value());
    BOOST_TEST((strat.calls[1].repair_of == std::optional<std::string>("c0001")));
    BOOST_TEST(!strat.calls[2].repair_of.has_value());
    const auto proposed = events_of("proposed");
    BOOST_TEST(proposed[1].at("repair_of").as_string() == "c0001");
    const auto evaluated = events_of("evaluated");
    BOOST_TEST(evaluated[0].at("valid").as_bool() == false);
    BOOST_TEST(evaluated[0].at("failure").at("kind").as_string() == "mismatch");
    BOOST_TEST(evaluated[1].at("valid").as_bool());
    BOOST_TEST(strat.observed == (std::vector<std::string>{"c0001", "c0002", "c0003"}),
               boost::test_tools::per_element());
}

BOOST_FIXTURE_TEST_CASE(compile_errors_never_reach_the_gpu, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.sources = {kernel_with({"compile_error"}), kernel_with({"median_us=50"})};
    search(strat, barrier_opts(1, 2));
    const auto evaluated = events_of("evaluated");
    BOOST_REQUIRE_EQUAL(evaluated.size(), 2u);
    BOOST_TEST(evaluated[0].at("failure").at("kind").as_string() == "compile_error");
    BOOST_TEST(evaluated[0].at("gpu").as_int64() == -1);
    for (const auto& e : backend->events())
        BOOST_TEST(!(e.kind == "gpu_start" && e.name == "c0001"));
    BOOST_TEST(std::filesystem::exists(run->candidate_dir("c0001") / "compile.log"));
}

// Adaptive timing (the default): once a best exists, every candidate's evaluate request carries
// per-case thresholds of 1.5x the best's medians, and a candidate above one stops after the first
// segment, marked "dominated" (its median still that of its measured launches). With --target-noise
// 0 nothing is sent and every launch is measured.
BOOST_FIXTURE_TEST_CASE(clearly_slower_candidates_stop_timing_early_as_dominated, engine_fixture)
{
    const auto perf_timing = [&](const std::string& id)
    {
        const auto result = read_json_file(run->path() / "candidates" / id / "result.json");
        for (const auto& c : result.at("result").at("cases").as_array())
            if (!c.at("timing").is_null())
                return c.at("timing").as_object();
        BOOST_FAIL("no timed case in " + id);
        return json::object{};
    };
    {
        test_strategy strat(clock, work);
        strat.sources = {
            kernel_with({"median_us=50"}), kernel_with({"median_us=200"}), kernel_with({"median_us=60"})};
        search_options o = barrier_opts(1, 3);
        BOOST_TEST(o.timing.target_rel_noise == default_target_rel_noise);
        search(strat, o);
        BOOST_TEST(perf_timing("c0001").at("stopped").as_string() == "quiet");
        BOOST_TEST(perf_timing("c0002").at("stopped").as_string() == "dominated");
        BOOST_TEST(perf_timing("c0002").at("samples").as_int64() == timing_segment_launches + 1);
        BOOST_TEST(perf_timing("c0002").at("median_us").to_number<double>() == 200.0);
        BOOST_TEST(perf_timing("c0003").at("stopped").as_string() == "quiet");  // 60 < 1.5 x 50
    }
    run.reset();
    {
        test_strategy strat(clock, work);
        strat.sources = {kernel_with({"median_us=50"}), kernel_with({"median_us=200"})};
        search_options o = barrier_opts(1, 2);
        o.timing.target_rel_noise = 0;
        search(strat, o);
        BOOST_TEST(perf_timing("c0002").at("stopped").as_string() == "fixed");
        BOOST_TEST(perf_timing("c0002").at("samples").as_int64() == o.timing.iterations);
    }
}

BOOST_FIXTURE_TEST_CASE(iteration_budget_stops_after_b_times_i_candidates, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    const auto res = search(strat, barrier_opts(2, 3));
    BOOST_TEST(res.stop_reason == "max_iterations");
    BOOST_TEST(events_of("proposed").size() == 6u);
    BOOST_TEST(events_of("evaluated").size() == 6u);
    BOOST_TEST(res.summary.at("iterations_finished").as_int64() == 3);
}

BOOST_FIXTURE_TEST_CASE(candidate_budget_is_never_exceeded, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    search_options o = barrier_opts(2, std::nullopt);
    o.budgets.candidates = 3;
    const auto res = search(strat, o);
    BOOST_TEST(res.stop_reason == "max_candidates");
    BOOST_TEST(strat.calls.size() == 3u);
    BOOST_TEST(events_of("evaluated").size() == 3u);
    BOOST_TEST(res.summary.at("budgets").at("used").at("candidates").as_int64() == 3);
}

BOOST_FIXTURE_TEST_CASE(wall_time_budget_cancels_proposals_and_finishes_evaluations, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    strat.latency = [](int, int) { return secs(1.0); };
    search_options o = barrier_opts(2, std::nullopt);
    o.async = true;
    o.budgets.wall_seconds = 2.0;
    // Branch 0: proposal at 1.6, GPU 1.7-1.9, asks again at 1.9. Branch 1: GPU 1.9-2.1.
    // At 2.0 branch 0 waits on the model (cancelled) and branch 1 is timing (finishes).
    const auto res = search(strat, o);
    BOOST_TEST(res.status == "finished");
    BOOST_TEST(res.stop_reason == "max_wall_time");
    BOOST_TEST(strat.calls.size() == 3u);
    BOOST_TEST(events_of("evaluated").size() == 2u);
    BOOST_TEST(near(t_of("gpu_end", "c0002"), 2.1));
    BOOST_TEST(events_of("proposal_failed").empty());  // a cancelled proposal is not a failure
    BOOST_TEST(events_of("stop_requested").at(0).at("reason").as_string() == "max_wall_time");
    BOOST_TEST(res.summary.at("candidates").at("pending").as_int64() == 0);
}

BOOST_FIXTURE_TEST_CASE(grace_period_bounds_in_flight_work, engine_fixture)
{
    backend_opts.gpu_latency = 1000ms;
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    search_options o = barrier_opts(1, std::nullopt);
    o.budgets.wall_seconds = 2.5;
    o.grace_seconds = 0.3;
    // Baselines end at 2.2; c0001 compiles 2.2-2.3 and would be timed 2.3-3.3; the stop at 2.5 gives
    // it until 2.8.
    const auto res = search(strat, o);
    BOOST_TEST(res.stop_reason == "max_wall_time");
    BOOST_TEST(events_of("grace_expired").size() == 1u);
    BOOST_TEST(events_of("proposed").size() == 1u);
    BOOST_TEST(events_of("evaluated").empty());
    BOOST_TEST(res.summary.at("candidates").at("pending").as_int64() == 1);
    BOOST_TEST(t_of("gpu_cancelled", "c0001") == 2.8, boost::test_tools::tolerance(1e-9));
}

BOOST_FIXTURE_TEST_CASE(token_budget_stops_proposing_and_lets_in_flight_work_finish, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    strat.latency = [](int, int) { return secs(1.0); };
    token_usage u;
    u.input = 800;
    u.output = 200;
    u.cost_usd = 0.01;
    strat.usage_per_call = u;
    search_options o = barrier_opts(1, std::nullopt);
    o.budgets.tokens = 2500;
    const auto res = search(strat, o);
    BOOST_TEST(res.stop_reason == "max_tokens");
    BOOST_TEST(strat.usage_accepted == (std::vector<bool>{true, true, false}),
               boost::test_tools::per_element());
    // The proposal that crossed the budget had already been paid for: it is evaluated.
    BOOST_TEST(events_of("evaluated").size() == 3u);
    BOOST_TEST(events_of("usage").size() == 3u);
    BOOST_TEST(res.summary.at("tokens").at("input").as_int64() == 2400);
    BOOST_TEST(res.summary.at("budgets").at("used").at("tokens").as_int64() == 3000);
}

BOOST_FIXTURE_TEST_CASE(cost_budget_stops_the_run, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    token_usage u;
    u.input = 10;
    u.cost_usd = 0.4;
    strat.usage_per_call = u;
    search_options o = barrier_opts(2, std::nullopt);
    o.budgets.cost_usd = 1.0;
    const auto res = search(strat, o);
    BOOST_TEST(res.stop_reason == "max_cost");
    BOOST_TEST(res.summary.at("cost_usd").as_double() == 1.2, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(strat.calls.size() == 3u);
}

BOOST_FIXTURE_TEST_CASE(ctrl_c_lets_the_gpu_finish_and_keeps_the_journal, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    strat.latency = [](int branch, int) { return secs(branch == 0 ? 0.5 : branch == 1 ? 0.55 : 3.0); };
    // At 1.22: c0001 is timed (1.2-1.4), c0002 compiles (1.15-1.25), branch 2 waits on the model.
    auto ctrl_c = [](search_engine& e) { e.request_stop("interrupted", true); };
    const auto res = search(strat, barrier_opts(3, 5), std::nullopt, {{1.22, ctrl_c}});
    BOOST_TEST(res.status == "interrupted");
    BOOST_TEST(res.exit_code == 130);
    BOOST_TEST(res.stop_reason == "interrupted");
    BOOST_TEST(near(t_of("gpu_end", "c0001"), 1.4));
    const auto events = journal_events();
    BOOST_TEST(count_events(events, "proposed") == 2);
    BOOST_TEST(count_events(events, "evaluated", "c0001") == 1);
    BOOST_TEST(count_events(events, "evaluated", "c0002") == 0);
    BOOST_TEST(count_events(events, "run_finished") == 1);
    for (const auto& e : backend->events())
        BOOST_TEST(!(e.kind == "gpu_start" && e.name == "c0002"));
    BOOST_TEST(res.summary.at("confirmation").at("skipped").as_string() == "run interrupted");
    BOOST_TEST(res.summary.at("candidates").at("pending").as_int64() == 1);
    BOOST_TEST(*res.winner == "c0001");
    BOOST_TEST(std::filesystem::exists(run->path() / "best.cu"));
}

BOOST_FIXTURE_TEST_CASE(strategy_exceptions_are_recorded_and_stop_the_branch_when_repeated, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    strat.throw_on = [](int branch, int call) { return branch == 1 || call == 0; };
    const auto res = search(strat, barrier_opts(2, 2));
    BOOST_TEST(res.status == "finished");
    const auto failed = events_of("proposal_failed");
    BOOST_REQUIRE(!failed.empty());
    BOOST_TEST(failed[0].at("error").as_string() == "model unavailable");
    const auto stopped = events_of("branch_stopped");
    BOOST_REQUIRE_EQUAL(stopped.size(), 1u);
    BOOST_TEST(stopped[0].at("branch").as_int64() == 1);
    BOOST_TEST(stopped[0].at("reason").as_string() == "failures");
    // Branch 0 failed once, retried, and went on; branch 1's failures did not block the barrier.
    int branch0 = 0;
    for (const auto& p : events_of("proposed"))
        branch0 += p.at("branch").as_int64() == 0 ? 1 : 0;
    BOOST_TEST(branch0 == 2);
}

BOOST_FIXTURE_TEST_CASE(exhausted_strategy_ends_the_run, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.sources = {
        kernel_with({"median_us=90"}), kernel_with({"median_us=80"}), kernel_with({"median_us=85"})};
    const auto res = search(strat, barrier_opts(2, std::nullopt));
    BOOST_TEST(res.stop_reason == "exhausted");
    BOOST_TEST(events_of("evaluated").size() == 3u);
    BOOST_TEST(events_of("branch_stopped").size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(candidates_spread_over_gpus, engine_fixture)
{
    backend_opts.gpus = 2;
    test_strategy strat(clock, work);
    strat.source_for = [](const proposal_context&, int) { return kernel_with({"median_us=90"}); };
    strat.latency = [](int, int) { return secs(1.0); };
    search(strat, barrier_opts(4, 1));
    std::map<int, int> per_gpu;
    for (const auto& e : events_of("evaluated"))
        ++per_gpu[static_cast<int>(e.at("gpu").as_int64())];
    BOOST_TEST(per_gpu[0] == 2);
    BOOST_TEST(per_gpu[1] == 2);
    BOOST_TEST(gpu_never_shared(backend->events()));
    // Baselines ran on both GPUs (in parallel), so the search starts at 0.6 as with one GPU.
    BOOST_TEST(events_of("baseline").size() == 4u);
    BOOST_TEST(near(strat.calls[0].t, search_start));
    // Four candidates on two GPUs: done at 1.7 + 2 * 0.2.
    double last = 0;
    for (const auto& e : backend->events())
        if (e.kind == "gpu_end")
            last = std::max(last, e.t);
    BOOST_TEST(near(last, 2.1));
}

BOOST_FIXTURE_TEST_CASE(confirmation_decides_the_winner_and_reports_the_difference, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.sources = {kernel_with({"median_us=90", "confirm_median_us=95"}),
                     kernel_with({"median_us=80", "confirm_median_us=99"}),
                     kernel_with({"median_us=85", "confirm_median_us=70"})};
    search_options o = barrier_opts(1, 3);
    o.confirm_top = 3;
    const auto res = search(strat, o);
    BOOST_REQUIRE(res.winner.has_value());
    BOOST_TEST(*res.winner == "c0003");
    const auto& best = res.summary.at("best").as_object();
    BOOST_TEST(best.at("decided_by").as_string() == "confirmation");
    BOOST_TEST(res.summary.at("best_search").at("id").as_string() == "c0002");
    const auto evaluated = events_of("evaluated");
    BOOST_TEST(evaluated[1].at("speedup_vs_reference").as_double() == 2.5,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(evaluated[1].at("speedup_vs_initial").as_double() == 2.0, boost::test_tools::tolerance(1e-9));
    const auto& conf = res.summary.at("confirmation").as_object();
    BOOST_TEST(conf.at("winner").as_string() == "c0003");
    BOOST_TEST(conf.at("max_abs_rel_diff_vs_search").as_double() == 99.0 / 80 - 1,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(conf.at("entries").as_array().size() == 5u);  // reference, initial, 3 candidates
    BOOST_TEST(read_text_file(run->path() / "best.cu") == strat.sources[2]);
    const auto best_json = read_json_file(run->path() / "best.json");
    BOOST_TEST(best_json.at("id").as_string() == "c0003");
    BOOST_TEST(best_json.at("entry").as_string() == "vadd");
    BOOST_TEST(best_json.at("confirmation").at("speedup_vs_reference").as_double() == 200.0 / 70,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(gpu_never_shared(backend->events()));
}

BOOST_FIXTURE_TEST_CASE(the_initial_kernel_wins_when_no_candidate_beats_it, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.sources = {kernel_with({"median_us=180"})};
    search_options o = barrier_opts(1, 1);
    o.confirm_top = 3;
    const auto res = search(strat, o);
    BOOST_TEST(*res.winner == "initial");
    BOOST_TEST(read_text_file(run->path() / "best.cu") == work.initial->source);
}

BOOST_AUTO_TEST_SUITE_END()
