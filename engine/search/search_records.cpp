// Candidates from proposal to result: ids, records, evaluation on a GPU from the pool, the
// files and events each step writes, the best so far, and a resumed run's records.

#include "engine/search/search_engine_impl.hpp"
#include "harness/core/utf8_text.hpp"

namespace warpsmith
{

using namespace search_detail;

/// Candidate numbers are handed out when proposals start, in the scheduler's order (branch
/// order within an iteration), not when the answers arrive: answers arrive in a different order
/// from run to run, and ids are quoted in prompts and break ties between equal scores, so a
/// replay or a second run with the same answers must give every candidate the same id. A
/// proposal retried after a failure keeps its number; one that yields nothing (exhausted,
/// cancelled by a stop) leaves its number unused.
void search_engine::impl::reserve_number(const propose_action& a)
{
    if (reserved_numbers_.try_emplace(std::pair(a.branch, a.iteration), next_number_).second)
        ++next_number_;
}

int search_engine::impl::take_number(const propose_action& a)
{
    const auto it = reserved_numbers_.find(std::pair(a.branch, a.iteration));
    if (it == reserved_numbers_.end())
        return next_number_++;
    const int n = it->second;
    reserved_numbers_.erase(it);
    return n;
}

std::size_t search_engine::impl::add_record(const propose_action& a, proposal p)
{
    candidate_record rec;
    rec.ec.id = candidate_id(take_number(a));
    rec.ec.branch = a.branch;
    rec.ec.iteration = a.iteration;
    rec.ec.parent = std::move(p.parent);
    rec.ec.cand = std::move(p.cand);
    rec.ec.rationale = std::move(p.rationale);
    rec.ec.meta = std::move(p.meta);
    rec.repair_of = a.repair_of;
    if (rec.ec.cand.entry.empty())
        rec.ec.cand.entry = work_.sig.entry;
    const auto idx = records_.size();
    by_id_.emplace(rec.ec.id, idx);
    records_.push_back(std::move(rec));
    auto& r = records_.back();
    journal(proposed_event(r));
    in_background([this, r] { run_.write_proposed(r); }, r.id());
    return idx;
}

void search_engine::impl::apply_evaluation(candidate_record& rec,
                                           int gpu,
                                           const gpu_evaluation& ev,
                                           double queued_ms)
{
    rec.gpu = gpu;
    rec.queued_ms = queued_ms + ev.queued_ms;
    rec.busy_ms = ev.busy_ms;
    rec.worker_restarted = ev.worker_restarted;
    rec.restart_reason = ev.restart_reason;
    rec.ec.result = ev.result;
    rec.ec.valid = ev.result.valid();
    rec.ec.case_median_us.clear();
    rec.ec.score_us = 0;
    rec.ec.speedup_vs_reference = 0;
    rec.ec.speedup_vs_initial = 0;
    if (rec.ec.valid)
    {
        rec.ec.case_median_us = ev.result.performance_medians();
        rec.ec.score_us = score_of(rec.ec.case_median_us).value_or(0);
        if (gpu >= 0 && gpu < static_cast<int>(ref_.size()))
            rec.ec.speedup_vs_reference =
                geomean_speedup(ref_[gpu].medians, rec.ec.case_median_us).value_or(0);
        if (gpu >= 0 && gpu < static_cast<int>(init_.size()) && init_[gpu].valid)
            rec.ec.speedup_vs_initial =
                geomean_speedup(init_[gpu].medians, rec.ec.case_median_us).value_or(0);
    }
    else
    {
        auto [kind, message] = failure_of(ev.result);
        rec.ec.failure_kind = kind;
        rec.ec.failure_message = message;
    }
}

void search_engine::impl::mark_compile_failure(candidate_record& rec)
{
    rec.ec.valid = false;
    rec.ec.failure_kind = "compile_error";
    std::string log = rec.ec.compile.log;
    if (log.size() > 4000)
        log = std::string(utf8_prefix(log, 4000)) + "\n[log truncated]";
    rec.ec.failure_message = rec.ec.compile.error + (log.empty() ? "" : "\n" + log);
    rec.ec.result = protocol::evaluation_result::invalid("compile_error", rec.ec.compile.error);
}

/// Journals the evaluation, writes its files, feeds it back to the strategy and the scheduler.
void search_engine::impl::finish_record(std::size_t idx, bool report_to_scheduler)
{
    auto& rec = records_[idx];
    rec.evaluated = true;
    journal(evaluated_event(rec));
    in_background([this, rec, timing = opts_.timing.to_json()]
                  { run_.write_evaluated(rec, work_, timing, opts_.hidden_seed); },
                  rec.id());
    history_.push_back(rec.ec);
    if (rec.ec.valid && rec.ec.score_us > 0 && (!best_ || better_candidate(rec.ec, records_[*best_].ec)))
        best_ = idx;
    try
    {
        strat_.observe(history_.back());
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("strategy observe() failed on ") + rec.id() + ": " + e.what());
    }
    if (report_to_scheduler)
        sched_.recorded(rec.ec.branch, rec.id(), rec.ec.valid);
    if (history_.size() % 10 == 0)
    {
        auto rows = history_rows();
        in_background([this, rows = std::move(rows)] { run_.write_json("history.json", rows); },
                      "history.json");
    }
    wake();
}

/// compile -> GPU queue -> validate + time -> record. Leaves the candidate pending (journaled as
/// proposed, maybe compiled) when the run is interrupted or the grace period ends first.
/// Returns whether the candidate was recorded.
asio::awaitable<bool> search_engine::impl::evaluate_candidate(std::size_t idx, bool report_to_scheduler)
{
    const int branch = records_[idx].ec.branch;
    if (!sched_.may_continue())
        co_return false;
    sched_.set_stage(branch, branch_stage::compiling);
    notify_progress();
    auto req = compile_request_for(records_[idx].ec.cand, arch_);
    auto out = co_await backend_.compile(std::move(req));
    std::string cubin = std::move(out.cubin);
    out.cubin.clear();
    {
        auto& rec = records_[idx];
        rec.ec.compile = std::move(out);
        rec.compiled = true;
        journal(compiled_event(rec));
        in_background([this, rec] { run_.write_compiled(rec); }, rec.id());
        if (!rec.ec.compile.compiled)
        {
            mark_compile_failure(rec);
            finish_record(idx, report_to_scheduler);
            co_return true;
        }
    }
    if (!sched_.may_continue())
        co_return false;
    sched_.set_stage(branch, branch_stage::queued);
    notify_progress();
    const auto t_queue = clock_.now();
    const int gpu = co_await gpus_.acquire();
    if (!sched_.may_continue())
    {
        gpus_.release(gpu, 0);
        co_return false;
    }
    const double queued_ms = seconds(clock_.now() - t_queue) * 1000;
    sched_.set_stage(branch, branch_stage::timing);
    notify_progress();
    evaluate_request er;
    er.name = records_[idx].id();
    er.cand = records_[idx].ec.cand;
    er.cubin = std::move(cubin);
    er.local_memory = records_[idx].ec.compile.local_memory;
    er.timing = opts_.timing;
    er.timing.dominated_above_us = dominated_thresholds();
    const auto t_gpu = clock_.now();
    gpu_evaluation ev;
    try
    {
        ev = co_await backend_.evaluate(gpu, std::move(er));
    }
    catch (...)
    {
        gpus_.release(gpu, seconds(clock_.now() - t_gpu));
        throw;
    }
    gpus_.release(gpu, ev.busy_ms / 1000);
    apply_evaluation(records_[idx], gpu, ev, queued_ms);
    finish_record(idx, report_to_scheduler);
    co_return true;
}

void search_engine::impl::restore(replayed_run r)
{
    next_number_ = r.next_candidate_number();
    const auto pending_ids = r.pending_ids();
    for (auto& c : r.candidates)
    {
        if (c.ec.branch < 0 || c.ec.branch >= opts_.branches)
            throw user_error("--resume: candidate " + c.id() + " belongs to branch " +
                             std::to_string(c.ec.branch) + ", but the run has " +
                             std::to_string(opts_.branches) + " branches");
        by_id_.emplace(c.id(), records_.size());
        records_.push_back(std::move(c));
    }
    for (auto idx : r.evaluation_order)
    {
        const auto& rec = records_[idx];
        history_.push_back(rec.ec);
        if (rec.ec.valid && rec.ec.score_us > 0 && (!best_ || better_candidate(rec.ec, records_[*best_].ec)))
            best_ = idx;
    }
    if (budget_.add_usage(r.usage))
        log_info("the token or cost budget was already reached before this resume");
    strat_.restore(history_);
    sched_.restore_finished_iteration(r.last_finished_iteration);
    for (auto idx : r.evaluation_order)
    {
        const auto& rec = records_[idx];
        // The scheduler saw the search's verdict; a later invalidation by the confirmation
        // does not make the branch repair it.
        sched_.restore_record(rec.ec.branch, rec.ec.iteration, rec.id(), valid_in_search(rec));
    }
    std::map<int, std::vector<std::size_t>> pending;
    for (const auto& id : pending_ids)
        pending[records_[by_id_.at(id)].ec.branch].push_back(by_id_.at(id));
    for (const auto& [branch, list] : pending)
    {
        sched_.restore_pending(branch, records_[list.back()].ec.iteration);
        pending_by_branch_.emplace_back(branch, list);
    }
    resumed_ = true;
}

void search_engine::impl::recompute_best()
{
    best_.reset();
    for (std::size_t i = 0; i < records_.size(); ++i)
    {
        const auto& ec = records_[i].ec;
        if (records_[i].evaluated && ec.valid && ec.score_us > 0 &&
            (!best_ || better_candidate(ec, records_[*best_].ec)))
            best_ = i;
    }
}

}  // namespace warpsmith
