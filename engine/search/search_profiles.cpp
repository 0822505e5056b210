// Nsight Compute profiles of a search (optimize --use-nsight, tune --use-nsight; docs/nsight.md):
// the profile tool and round feedback, one profile at a time on a GPU held from the pool, and
// the winner's profile at the end of a tune.

#include "engine/search/search_engine_impl.hpp"

namespace warpsmith
{

using namespace search_detail;

/// One profile at a time (they hold a GPU each and share the budget); a profile already taken
/// is answered from the books, and a replay answers from the recorded run's profiles.
asio::awaitable<candidate_profile> search_engine::impl::profile(std::string id, std::string case_name)
{
    if (!profiles_.enabled())
        co_return run_profiles::refusal(
            id, case_name, "profiling is off for this run (optimize --use-nsight turns it on)");
    if (case_name.empty())
        case_name = largest_performance_case(work_);
    if (!work_.find_case(case_name))
        co_return run_profiles::refusal(id, case_name, "'" + case_name + "' is not a case of this workload");
    std::optional<std::size_t> idx;
    for (std::size_t i = 0; i < records_.size(); ++i)
        if (records_[i].id() == id)
            idx = i;
    if (!idx || !records_[*idx].evaluated || !records_[*idx].ec.valid)
        co_return run_profiles::refusal(
            id,
            case_name,
            id + " is not a valid evaluated candidate of this run; only those can be profiled");
    co_return co_await take_profile(*idx, std::move(case_name), true);
}

/// Profiles records_[idx] on case_name (or answers from the books or the recorded run), one
/// profile at a time; `budgeted` profiles are refused once the budget is spent (the winner's
/// profile at the end of a tune is not).
asio::awaitable<candidate_profile> search_engine::impl::take_profile(std::size_t idx,
                                                                     std::string case_name,
                                                                     bool budgeted)
{
    const std::string id = records_[idx].id();
    co_await profile_gate_.acquire();
    async_semaphore::permit permit(profile_gate_);
    if (const candidate_profile* done = profiles_.find(id, case_name))
        co_return *done;
    if (std::optional<profile_outcome> rec = profiles_.recorded(id, case_name))
        co_return profiles_.record(id, *rec, true);
    if (opts_.nsight.recorded_profiles)
        co_return run_profiles::refusal(
            id, case_name, "the recorded run has no profile of " + id + " on " + case_name);
    const int iteration = opts_.async ? static_cast<int>(history_.size()) / std::max(1, opts_.branches)
                                      : sched_.current_iteration();
    if (budgeted && !profiles_.allowed(iteration))
        co_return run_profiles::refusal(
            id, case_name, "the profile budget of this run is spent (--profile-budget)");
    // The cubin was dropped after timing; the compile cache makes this cheap.
    compile_output compiled = co_await backend_.compile(compile_request_for(records_[idx].ec.cand, arch_));
    profile_job job;
    job.request.name = id;
    job.request.cand = records_[idx].ec.cand;
    job.request.cubin = std::move(compiled.cubin);
    job.request.local_memory = compiled.local_memory;
    job.case_name = case_name;
    job.output_base = profiles_.output_base(id, case_name);
    job.spill_stores_bytes = compiled.resources.spill_stores_bytes;
    job.spill_loads_bytes = compiled.resources.spill_loads_bytes;
    // Held like an evaluation: no timing runs on this GPU while ncu does.
    const int gpu = co_await gpus_.acquire();
    profile_outcome outcome;
    try
    {
        outcome = co_await backend_.profile(gpu, opts_.nsight.profiler, std::move(job));
    }
    catch (...)
    {
        gpus_.release(gpu, 0);
        throw;
    }
    gpus_.release(gpu, 0);
    if (!outcome.ok)
        log_warn("profile of " + id + " on " + case_name + ": " + outcome.message);
    const candidate_profile& p = profiles_.record(id, outcome, false);
    journal(json::object{{"event", "profile"},
                         {"id", id},
                         {"case", case_name},
                         {"ok", p.ok},
                         {"message", outcome.message},
                         {"wall_ms", outcome.wall_ms}});
    co_return p;
}

/// tune --use-nsight: the winner on the largest performance case, once the search is over
/// (nothing is timed any more). The initial kernel has no record and is not profiled.
asio::awaitable<void> search_engine::impl::profile_winner(const std::string& id)
{
    for (std::size_t i = 0; i < records_.size(); ++i)
        if (records_[i].id() == id && records_[i].evaluated && records_[i].ec.valid)
        {
            const candidate_profile p = co_await take_profile(i, largest_performance_case(work_), false);
            if (!p.ok)
                log_warn("no profile of the winner " + id + ": " + p.text);
            co_return;
        }
}

}  // namespace warpsmith
