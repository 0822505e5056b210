// The search loop's scheduling decisions, fed synchronously (no clock, no I/O): iteration
// barriers, asynchronous slots, repair, budgets, strategy failures, stops and resume.

#include "engine/search/search_scheduler.hpp"

#include <boost/test/unit_test.hpp>

using namespace warpsmith;

namespace
{

scheduler_config barrier(int branches,
                         std::optional<int> iterations = std::nullopt,
                         std::optional<int> candidates = std::nullopt)
{
    scheduler_config c;
    c.branches = branches;
    c.barrier = true;
    c.max_iterations = iterations;
    c.max_candidates = candidates;
    return c;
}

std::vector<int> branches_of(const scheduler_step& s)
{
    std::vector<int> out;
    for (const auto& a : s.start)
        out.push_back(a.branch);
    return out;
}

/// A proposal is made, its candidate compiled, timed and recorded.
void complete(search_scheduler& s, int branch, const std::string& id, bool valid = true)
{
    s.proposal_made(branch);
    s.set_stage(branch, branch_stage::compiling);
    s.set_stage(branch, branch_stage::timing);
    s.recorded(branch, id, valid);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(search_scheduler_suite)

BOOST_AUTO_TEST_CASE(barrier_waits_for_every_branch)
{
    search_scheduler s(barrier(3, 2));
    auto step = s.poll();
    BOOST_TEST(branches_of(step) == (std::vector<int>{0, 1, 2}));
    for (const auto& a : step.start)
        BOOST_TEST(a.iteration == 1);
    complete(s, 1, "c0001");
    complete(s, 0, "c0002");
    // Branch 2 is still working: nothing new starts, the iteration is not over.
    step = s.poll();
    BOOST_TEST(step.start.empty());
    BOOST_TEST(step.finished_iterations.empty());
    complete(s, 2, "c0003");
    step = s.poll();
    BOOST_TEST(step.finished_iterations == std::vector<int>{1});
    BOOST_TEST(branches_of(step) == (std::vector<int>{0, 1, 2}));
    BOOST_TEST(step.start[0].iteration == 2);
    BOOST_TEST(!s.done());
    complete(s, 0, "c0004");
    complete(s, 1, "c0005");
    complete(s, 2, "c0006");
    step = s.poll();
    BOOST_TEST(step.finished_iterations == std::vector<int>{2});
    BOOST_TEST(step.start.empty());
    BOOST_TEST(s.done());
    BOOST_TEST(s.finish_reason() == "max_iterations");
}

BOOST_AUTO_TEST_CASE(async_slots_never_wait_for_each_other)
{
    scheduler_config c;
    c.branches = 2;
    c.barrier = false;
    c.max_iterations = 3;
    search_scheduler s(c);
    auto step = s.poll();
    BOOST_TEST(branches_of(step) == (std::vector<int>{0, 1}));
    // Branch 0 finishes three rounds while branch 1 is still on its first.
    for (int round = 1; round <= 3; ++round)
    {
        complete(s, 0, "a" + std::to_string(round));
        step = s.poll();
        if (round < 3)
        {
            BOOST_TEST(branches_of(step) == std::vector<int>{0});
            BOOST_TEST(step.start[0].iteration == round + 1);
        }
        else
            BOOST_TEST(step.start.empty());
        BOOST_TEST(step.finished_iterations.empty());
    }
    BOOST_TEST(s.in_flight() == 1);
    BOOST_TEST(!s.done());
    complete(s, 1, "b1");
    step = s.poll();
    BOOST_TEST(branches_of(step) == std::vector<int>{1});
    BOOST_TEST(step.start[0].iteration == 2);
}

BOOST_AUTO_TEST_CASE(invalid_candidate_is_repaired_then_given_up)
{
    scheduler_config c = barrier(1, 10);
    c.max_repairs = 2;
    search_scheduler s(c);
    s.poll();
    complete(s, 0, "c0001", false);
    auto step = s.poll();
    BOOST_REQUIRE_EQUAL(step.start.size(), 1u);
    BOOST_TEST((step.start[0].repair_of == std::optional<std::string>("c0001")));
    complete(s, 0, "c0002", false);
    step = s.poll();
    BOOST_TEST((step.start[0].repair_of == std::optional<std::string>("c0002")));
    complete(s, 0, "c0003", false);
    // Two repairs in a row failed: the branch starts afresh.
    step = s.poll();
    BOOST_TEST(!step.start[0].repair_of.has_value());
    complete(s, 0, "c0004", false);
    step = s.poll();
    BOOST_TEST((step.start[0].repair_of == std::optional<std::string>("c0004")));
    complete(s, 0, "c0005", true);
    step = s.poll();
    BOOST_TEST(!step.start[0].repair_of.has_value());
}

BOOST_AUTO_TEST_CASE(candidate_budget_counts_proposals_in_flight)
{
    search_scheduler s(barrier(3, std::nullopt, 4));
    auto step = s.poll();
    BOOST_TEST(step.start.size() == 3u);
    complete(s, 0, "c1");
    complete(s, 1, "c2");
    complete(s, 2, "c3");
    step = s.poll();
    // Only one ticket left for iteration 2.
    BOOST_TEST(branches_of(step) == std::vector<int>{0});
    BOOST_TEST(s.candidates_started() == 4);
    BOOST_TEST(!s.done());
    complete(s, 0, "c4");
    s.poll();
    BOOST_TEST(s.done());
    BOOST_TEST(s.finish_reason() == "max_candidates");
}

BOOST_AUTO_TEST_CASE(a_proposal_that_yields_nothing_returns_its_ticket)
{
    search_scheduler s(barrier(2, std::nullopt, 2));
    s.poll();
    s.proposal_none(1);
    BOOST_TEST(!s.branch_active(1));
    BOOST_TEST(s.branch_stop_reason(1) == "exhausted");
    BOOST_TEST(s.candidates_started() == 1);
    complete(s, 0, "c1");
    auto step = s.poll();
    BOOST_TEST(step.finished_iterations == std::vector<int>{1});
    BOOST_TEST(branches_of(step) == std::vector<int>{0});
    s.proposal_none(0);
    s.poll();
    BOOST_TEST(s.done());
    BOOST_TEST(s.finish_reason() == "exhausted");
}

BOOST_AUTO_TEST_CASE(strategy_failures_retry_then_stop_the_branch)
{
    scheduler_config c = barrier(1, 5);
    c.max_failures = 3;
    search_scheduler s(c);
    s.poll();
    BOOST_TEST(!s.proposal_failed(0));
    auto step = s.poll();
    BOOST_TEST(step.start.size() == 1u);
    BOOST_TEST(step.start[0].iteration == 1);  // retried within the same iteration
    BOOST_TEST(!s.proposal_failed(0));
    s.poll();
    BOOST_TEST(s.proposal_failed(0));
    BOOST_TEST(!s.branch_active(0));
    BOOST_TEST(s.poll().start.empty());
    BOOST_TEST(s.done());
    BOOST_TEST(s.finish_reason() == "strategy_failures");
    BOOST_TEST(s.candidates_started() == 0);
}

BOOST_AUTO_TEST_CASE(graceful_stop_cancels_only_proposals)
{
    search_scheduler s(barrier(3));
    s.poll();
    s.proposal_made(1);
    s.set_stage(1, branch_stage::compiling);
    s.proposal_made(2);
    s.set_stage(2, branch_stage::timing);
    const auto cancel = s.stop("max_wall_time", false);
    BOOST_TEST(cancel == std::vector<int>{0});
    BOOST_TEST(s.may_continue());
    s.pipeline_ended(0);
    BOOST_TEST(s.candidates_started() == 2);  // the cancelled proposal gave its ticket back
    BOOST_TEST(s.poll().start.empty());
    BOOST_TEST(!s.done());
    s.recorded(1, "c1", true);
    s.recorded(2, "c2", true);
    BOOST_TEST(s.done());
    BOOST_TEST(s.finish_reason() == "max_wall_time");
    // No iteration is marked finished after a stop: resume completes it.
    BOOST_TEST(s.poll().finished_iterations.empty());
}

BOOST_AUTO_TEST_CASE(interrupt_cancels_all_but_timing_and_upgrades_a_graceful_stop)
{
    search_scheduler s(barrier(4));
    s.poll();
    s.proposal_made(1);
    s.set_stage(1, branch_stage::compiling);
    s.proposal_made(2);
    s.set_stage(2, branch_stage::queued);
    s.proposal_made(3);
    s.set_stage(3, branch_stage::timing);
    BOOST_TEST(s.stop("max_tokens", false) == std::vector<int>{0});
    BOOST_TEST(s.stop("max_cost", false).empty());  // first reason wins
    BOOST_TEST(s.stop("interrupted", true) == (std::vector<int>{0, 1, 2}));
    BOOST_TEST(!s.may_continue());
    BOOST_TEST(s.finish_reason() == "max_tokens");
    BOOST_TEST(s.interrupted());
}

BOOST_AUTO_TEST_CASE(restore_continues_iterations_repairs_and_budget)
{
    scheduler_config c = barrier(2, 3, 5);
    search_scheduler s(c);
    s.restore_finished_iteration(1);
    s.restore_record(0, 1, "c0001", true);
    s.restore_record(1, 1, "c0002", false);
    s.restore_record(0, 2, "c0003", true);
    s.restore_pending(1, 2);
    s.hold(true);
    BOOST_TEST(s.poll().start.empty());
    BOOST_TEST(!s.done());
    s.recorded(1, "c0004", true);
    s.hold(false);
    auto step = s.poll();
    BOOST_TEST(step.finished_iterations == std::vector<int>{2});
    BOOST_TEST(branches_of(step) == std::vector<int>{0});  // 4 used + 1 ticket left
    BOOST_TEST(step.start[0].iteration == 3);
}

BOOST_AUTO_TEST_CASE(restore_in_async_mode_continues_each_branch_round)
{
    scheduler_config c;
    c.branches = 2;
    c.barrier = false;
    c.max_iterations = 4;
    search_scheduler s(c);
    s.restore_record(0, 1, "c1", true);
    s.restore_record(0, 2, "c3", false);
    s.restore_record(1, 1, "c2", true);
    auto step = s.poll();
    BOOST_REQUIRE_EQUAL(step.start.size(), 2u);
    BOOST_TEST(step.start[0].iteration == 3);
    BOOST_TEST((step.start[0].repair_of == std::optional<std::string>("c3")));
    BOOST_TEST(step.start[1].iteration == 2);
}

BOOST_AUTO_TEST_SUITE_END()
