#pragma once

// The scheduling decisions of the search loop (SPEC §4 "Iterations and branches", "Budgets",
// "Cancellation"), as a plain synchronous class: the coroutine shell (search_engine.cpp) reports
// what happened to each branch and asks what to start next. Nothing here waits, sleeps or does
// I/O, so every rule is unit-tested by feeding events (tests/engine/search/test_search_scheduler.cpp).
//
// The model:
//  * B branches (slots). Each branch runs at most one pipeline at a time: propose -> compile ->
//    validate + time -> record. A pipeline's stage is reported through set_stage().
//  * Barrier mode (--branches B): iteration k starts a proposal on every active branch; the
//    iteration ends once every active branch has recorded its candidate for k. Asynchronous mode
//    (--async N): every branch proposes again as soon as its previous candidate is recorded; its
//    own iteration counter (its round) advances independently. Both stop a branch after
//    max_iterations rounds.
//  * Repair: when a branch's candidate is invalid, the branch's next proposal repairs it
//    (propose_action::repair_of), inside the same budgets, at most max_repairs times in a row;
//    then the branch proposes afresh.
//  * Candidates budget: a proposal holds a ticket from the moment it starts; a proposal that
//    yields nothing, fails or is cancelled gives its ticket back. The run never exceeds the budget
//    and in-flight proposals (which hold tickets) are allowed to finish.
//  * A strategy that throws is retried on the same branch; after max_failures consecutive
//    failures the branch stops. A strategy that returns nothing stops the branch (exhausted).
//  * stop(): no proposal starts any more. A graceful stop (a budget) cancels the proposals in
//    flight; an interrupt (Ctrl-C) also cancels pipelines that are compiling or waiting for a GPU,
//    and lets pipelines whose candidate is being timed finish.

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpsmith
{

enum class branch_stage
{
    idle,
    proposing,  ///< Waiting on the strategy (the model).
    compiling,
    queued,  ///< Compiled, waiting for a GPU.
    timing,  ///< On a GPU: validating and timing.
};

std::string_view to_string(branch_stage s);

struct scheduler_config
{
    int branches = 1;
    bool barrier = true;  ///< false: --async.
    std::optional<int> max_iterations;
    std::optional<int> max_candidates;
    int max_repairs = 2;
    int max_failures = 3;
};

struct propose_action
{
    int branch = 0;
    int iteration = 1;
    std::optional<std::string> repair_of;
};

struct scheduler_step
{
    std::vector<int> finished_iterations;  ///< Barrier mode: iterations that just ended.
    std::vector<propose_action> start;     ///< Proposals to start now.
};

class search_scheduler
{
public:
    explicit search_scheduler(scheduler_config cfg);

    // --- Resume: rebuild the state from the journal before the first poll(). ---
    /// The last iteration the journal marked finished (barrier mode).
    void restore_finished_iteration(int iteration);
    /// A recorded candidate, in evaluation order. Counts against the candidates budget and updates
    /// the branch's repair state and iteration exactly as recorded() would.
    void restore_record(int branch, int iteration, const std::string& id, bool valid);
    /// A candidate proposed but not evaluated: its branch is busy until recorded() or
    /// pipeline_ended() is reported for it.
    void restore_pending(int branch, int iteration);
    /// While held, no proposal starts and no iteration ends (resume evaluates pending candidates
    /// first, so that strategies observe them before proposing again).
    void hold(bool on) { held_ = on; }

    /// What to do now. Call after every change; the actions are marked as started.
    scheduler_step poll();

    // --- Pipeline feedback. ---
    void set_stage(int branch, branch_stage stage);
    /// The strategy returned a candidate; it now counts against the budget for good.
    void proposal_made(int branch);
    /// The strategy has nothing more: the branch stops ("exhausted").
    void proposal_none(int branch);
    /// The strategy threw; returns true when the branch is stopped because of it.
    bool proposal_failed(int branch);
    /// The branch's candidate was recorded (evaluated).
    void recorded(int branch, const std::string& id, bool valid);
    /// The branch's pipeline ended. If it ended without recording (cancelled), a proposal in flight
    /// gives back its ticket and a proposed candidate stays pending (resume evaluates it).
    void pipeline_ended(int branch);

    // --- Stops. ---
    /// Stops proposing (first reason wins; a later interrupt upgrades a graceful stop). Returns
    /// the branches whose pipelines must be cancelled now.
    std::vector<int> stop(const std::string& reason, bool interrupt);
    bool stopping() const { return stop_reason_.has_value(); }
    bool interrupted() const { return interrupted_; }
    /// Whether a pipeline that finished a stage may go on to the next (false after an interrupt).
    bool may_continue() const { return !interrupted_; }

    /// No pipeline in flight and nothing more will start.
    bool done() const;
    /// Why the run ended (valid once done()): the stop reason, or max_iterations, max_candidates,
    /// exhausted (every branch stopped).
    std::string finish_reason() const;

    // --- Observation (progress, summaries). ---
    int current_iteration() const { return current_; }
    int candidates_started() const { return tickets_; }
    int in_flight() const;
    std::array<int, 5> stage_counts() const;  ///< Indexed by branch_stage.
    branch_stage stage(int branch) const { return branches_.at(branch).stage; }
    bool branch_active(int branch) const { return branches_.at(branch).active; }
    const std::string& branch_stop_reason(int branch) const { return branches_.at(branch).stop_reason; }
    int branches() const { return static_cast<int>(branches_.size()); }

private:
    struct branch_state
    {
        bool active = true;
        std::string stop_reason;
        bool in_flight = false;
        bool proposal_outstanding = false;  ///< In flight and not yet proposal_made().
        branch_stage stage = branch_stage::idle;
        int iteration = 1;          ///< Iteration of the pipeline in flight / next one.
        bool done_current = false;  ///< Barrier: recorded for current_.
        std::optional<std::string> repair_of;
        int repairs = 0;
        int failures = 0;
    };

    void apply_record(branch_state& b, int iteration, const std::string& id, bool valid);
    bool budget_left() const;
    bool iterations_left(int iteration) const;
    void stop_branch(branch_state& b, std::string reason);

    scheduler_config cfg_;
    std::vector<branch_state> branches_;
    int current_ = 1;  ///< Barrier mode: the iteration in progress.
    int recorded_in_current_ = 0;
    int tickets_ = 0;
    bool held_ = false;
    bool iterations_exhausted_ = false;
    std::optional<std::string> stop_reason_;
    bool interrupted_ = false;
};

}  // namespace warpsmith
