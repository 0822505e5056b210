#include "engine/search/search_scheduler.hpp"

#include <algorithm>

namespace warpsmith
{

std::string_view to_string(branch_stage s)
{
    switch (s)
    {
        case branch_stage::idle:
            return "idle";
        case branch_stage::proposing:
            return "proposing";
        case branch_stage::compiling:
            return "compiling";
        case branch_stage::queued:
            return "queued";
        case branch_stage::timing:
            return "timing";
    }
    return "idle";
}

search_scheduler::search_scheduler(scheduler_config cfg) : cfg_(cfg), branches_(std::max(1, cfg.branches))
{
    if (cfg_.max_iterations && *cfg_.max_iterations < 1)
        iterations_exhausted_ = true;
}

bool search_scheduler::budget_left() const
{
    return !cfg_.max_candidates || tickets_ < *cfg_.max_candidates;
}

bool search_scheduler::iterations_left(int iteration) const
{
    return !cfg_.max_iterations || iteration <= *cfg_.max_iterations;
}

void search_scheduler::stop_branch(branch_state& b, std::string reason)
{
    b.active = false;
    b.stop_reason = std::move(reason);
}

void search_scheduler::restore_finished_iteration(int iteration)
{
    if (!cfg_.barrier || iteration < current_)
        return;
    current_ = iteration + 1;
    recorded_in_current_ = 0;
    for (auto& b : branches_)
    {
        b.done_current = false;
        b.iteration = current_;
    }
    if (!iterations_left(current_))
        iterations_exhausted_ = true;
}

void search_scheduler::apply_record(branch_state& b, int iteration, const std::string& id, bool valid)
{
    if (cfg_.barrier)
    {
        if (iteration == current_ && !b.done_current)
        {
            b.done_current = true;
            ++recorded_in_current_;
        }
    }
    else
    {
        b.iteration = std::max(b.iteration, iteration + 1);
    }
    b.failures = 0;
    if (!valid && b.repairs < cfg_.max_repairs)
    {
        b.repair_of = id;
        ++b.repairs;
    }
    else
    {
        b.repair_of.reset();
        b.repairs = 0;
    }
}

void search_scheduler::restore_record(int branch, int iteration, const std::string& id, bool valid)
{
    if (branch < 0 || branch >= branches())
        return;
    ++tickets_;
    apply_record(branches_[branch], iteration, id, valid);
}

void search_scheduler::restore_pending(int branch, int iteration)
{
    if (branch < 0 || branch >= branches())
        return;
    ++tickets_;
    auto& b = branches_[branch];
    b.in_flight = true;
    b.proposal_outstanding = false;
    b.stage = branch_stage::compiling;
    b.iteration = iteration;
}

scheduler_step search_scheduler::poll()
{
    scheduler_step step;
    if (held_)
        return step;

    if (cfg_.barrier)
    {
        if (!stopping() && !iterations_exhausted_ && recorded_in_current_ > 0)
        {
            const bool all_recorded = std::all_of(branches_.begin(),
                                                  branches_.end(),
                                                  [](const branch_state& b)
                                                  { return !b.in_flight && (!b.active || b.done_current); });
            if (all_recorded)
            {
                step.finished_iterations.push_back(current_);
                ++current_;
                recorded_in_current_ = 0;
                for (auto& b : branches_)
                    b.done_current = false;
                if (!iterations_left(current_))
                    iterations_exhausted_ = true;
            }
        }
        if (stopping() || iterations_exhausted_)
            return step;
        for (int i = 0; i < branches(); ++i)
        {
            auto& b = branches_[i];
            if (!b.active || b.in_flight || b.done_current || !budget_left())
                continue;
            b.iteration = current_;
            b.in_flight = true;
            b.proposal_outstanding = true;
            b.stage = branch_stage::proposing;
            ++tickets_;
            step.start.push_back({i, current_, b.repair_of});
        }
        return step;
    }

    if (stopping())
        return step;
    for (int i = 0; i < branches(); ++i)
    {
        auto& b = branches_[i];
        if (!b.active || b.in_flight)
            continue;
        if (!iterations_left(b.iteration))
        {
            stop_branch(b, "max_iterations");
            continue;
        }
        if (!budget_left())
            continue;
        b.in_flight = true;
        b.proposal_outstanding = true;
        b.stage = branch_stage::proposing;
        ++tickets_;
        step.start.push_back({i, b.iteration, b.repair_of});
    }
    return step;
}

void search_scheduler::set_stage(int branch, branch_stage stage)
{
    branches_.at(branch).stage = stage;
}

void search_scheduler::proposal_made(int branch)
{
    branches_.at(branch).proposal_outstanding = false;
}

void search_scheduler::proposal_none(int branch)
{
    auto& b = branches_.at(branch);
    if (b.proposal_outstanding)
        --tickets_;
    b.proposal_outstanding = false;
    b.in_flight = false;
    b.stage = branch_stage::idle;
    stop_branch(b, "exhausted");
}

bool search_scheduler::proposal_failed(int branch)
{
    auto& b = branches_.at(branch);
    if (b.proposal_outstanding)
        --tickets_;
    b.proposal_outstanding = false;
    b.in_flight = false;
    b.stage = branch_stage::idle;
    if (++b.failures >= cfg_.max_failures)
    {
        stop_branch(b, "failures");
        return true;
    }
    return false;
}

void search_scheduler::recorded(int branch, const std::string& id, bool valid)
{
    auto& b = branches_.at(branch);
    b.in_flight = false;
    b.proposal_outstanding = false;
    b.stage = branch_stage::idle;
    apply_record(b, b.iteration, id, valid);
}

void search_scheduler::pipeline_ended(int branch)
{
    auto& b = branches_.at(branch);
    if (!b.in_flight)
        return;
    if (b.proposal_outstanding)
        --tickets_;
    b.proposal_outstanding = false;
    b.in_flight = false;
    b.stage = branch_stage::idle;
}

std::vector<int> search_scheduler::stop(const std::string& reason, bool interrupt)
{
    const bool upgrade = interrupt && !interrupted_;
    if (stop_reason_ && !upgrade)
        return {};
    if (!stop_reason_)
        stop_reason_ = reason;
    if (interrupt)
        interrupted_ = true;
    std::vector<int> cancel;
    for (int i = 0; i < branches(); ++i)
    {
        const auto& b = branches_[i];
        if (!b.in_flight)
            continue;
        const bool before_gpu = b.stage == branch_stage::compiling || b.stage == branch_stage::queued;
        if (b.stage == branch_stage::proposing || (interrupted_ && before_gpu))
            cancel.push_back(i);
    }
    return cancel;
}

int search_scheduler::in_flight() const
{
    return static_cast<int>(
        std::count_if(branches_.begin(), branches_.end(), [](const branch_state& b) { return b.in_flight; }));
}

std::array<int, 5> search_scheduler::stage_counts() const
{
    std::array<int, 5> counts{};
    for (const auto& b : branches_)
        if (b.in_flight)
            ++counts[static_cast<int>(b.stage)];
    return counts;
}

bool search_scheduler::done() const
{
    if (in_flight() > 0 || held_)
        return false;
    if (stopping() || (cfg_.barrier && iterations_exhausted_) || !budget_left())
        return true;
    return std::none_of(branches_.begin(), branches_.end(), [](const branch_state& b) { return b.active; });
}

std::string search_scheduler::finish_reason() const
{
    if (stop_reason_)
        return *stop_reason_;
    if (cfg_.barrier && iterations_exhausted_)
        return "max_iterations";
    if (!budget_left())
        return "max_candidates";
    const auto any_reason = [&](std::string_view r)
    {
        return std::any_of(
            branches_.begin(), branches_.end(), [&](const branch_state& b) { return b.stop_reason == r; });
    };
    const bool all_failed = std::all_of(branches_.begin(),
                                        branches_.end(),
                                        [](const branch_state& b) { return b.stop_reason == "failures"; });
    if (any_reason("max_iterations"))
        return "max_iterations";
    if (all_failed)
        return "strategy_failures";
    return "exhausted";
}

}  // namespace warpsmith
