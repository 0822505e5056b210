// What a search tells the outside: journal events, the progress snapshot, the strategy's view,
// run.json, history.json and the state the summary and best.cu are written from.

#include "engine/search/search_engine_impl.hpp"
#include "harness/json/lenient.hpp"

namespace warpsmith
{

using namespace search_detail;

void search_engine::impl::journal(const json::object& ev)
{
    journal_.append(ev);
    if (progress_)
        progress_->event(ev, snapshot());
}

void search_engine::impl::notify_progress()
{
    // Stage changes are not journaled; the status line still wants them.
    if (progress_)
        progress_->event(json::object{{"event", "status"}}, snapshot());
}

progress_snapshot search_engine::impl::snapshot() const
{
    progress_snapshot s;
    s.iteration = opts_.async ? 0 : sched_.current_iteration();
    if (opts_.async)
        for (const auto& c : history_)
            s.iteration = std::max(s.iteration, c.iteration);
    s.max_iterations = opts_.budgets.iterations;
    const auto counts = sched_.stage_counts();
    s.proposing = counts[static_cast<int>(branch_stage::proposing)];
    s.compiling = counts[static_cast<int>(branch_stage::compiling)];
    s.queued = counts[static_cast<int>(branch_stage::queued)];
    s.timing = counts[static_cast<int>(branch_stage::timing)];
    s.proposed = static_cast<int>(records_.size());
    s.evaluated = static_cast<int>(history_.size());
    for (const auto& c : history_)
        s.valid += c.valid ? 1 : 0;
    if (best_)
    {
        s.best_speedup = records_[*best_].ec.speedup_vs_reference;
        s.best_id = records_[*best_].id();
    }
    s.usage = budget_.usage();
    s.elapsed_seconds = seconds(clock_.now() - t_start_);
    s.gpu_busy_fraction = busy_fraction();
    s.profiles = profiles_.taken();
    s.profile_seconds = profiles_.wall_seconds();
    return s;
}

double search_engine::impl::busy_fraction() const
{
    const double elapsed = seconds(clock_.now() - t_start_);
    const int n = backend_.gpu_count();
    if (elapsed <= 0 || n <= 0)
        return 0;
    double busy = 0;
    for (int g = 0; g < n; ++g)
        busy += backend_.status(g).busy_seconds;
    return std::min(1.0, busy / (elapsed * n));
}

search_view search_engine::impl::view(int iteration) const
{
    search_view v;
    v.work = &work_;
    v.device = backend_.device_info(0);
    v.history = &history_;
    v.best = best_ ? &records_[*best_].ec : nullptr;
    if (!ref_.empty())
        v.reference_median_us = ref_[0].medians;
    if (!init_.empty() && init_[0].valid)
        v.initial_median_us = init_[0].medians;
    v.iteration = iteration;
    v.branches = opts_.branches;
    v.barrier = !opts_.async;
    if (best_ && profiles_.enabled())
    {
        // The best's own profile, else the newest one taken (of an earlier best: the best can
        // change while a profile runs); the profile names its candidate.
        const std::string c = largest_performance_case(work_);
        v.best_profile = profiles_.find(records_[*best_].id(), c);
        if (!v.best_profile || !v.best_profile->ok)
            v.best_profile = profiles_.latest_ok(c);
    }
    return v;
}

json::object search_engine::impl::history_rows() const
{
    json::array rows;
    for (const auto& r : records_)
        rows.push_back(history_row(r));
    return json::object{{"candidates", std::move(rows)}};
}

void search_engine::impl::in_background(std::function<void()> write, std::string what)
{
    files_.post(std::move(write), std::move(what));
}

void search_engine::impl::write_history() const
{
    try
    {
        run_.write_json("history.json", history_rows());
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("cannot write history.json: ") + e.what());
    }
}

json::object search_engine::impl::run_json(const std::string& status) const
{
    json::object o = run_info_;
    json::array devices;
    for (int g = 0; g < backend_.gpu_count(); ++g)
        devices.push_back(backend_.device_info(g));
    o["devices"] = std::move(devices);
    json::array sessions;
    if (const json::array* s = lenient::array_at(o, "sessions"))
        sessions = *s;
    json::object session = session_;
    session["status"] = status;
    session["ended"] = status == "running" ? json::value(nullptr) : json::value(utc_timestamp());
    sessions.push_back(std::move(session));
    o["sessions"] = std::move(sessions);
    o["status"] = status;
    return o;
}

best_kernel_state search_engine::impl::best_state() const
{
    return best_kernel_state{.run = run_,
                             .work = work_,
                             .records = records_,
                             .by_id = by_id_,
                             .best = best_,
                             .reference = ref_,
                             .initial = init_,
                             .initial_invalidated = initial_invalidated_,
                             .decision = decision_ ? &*decision_ : nullptr,
                             .no_candidate_survived = no_candidate_survived_,
                             .confirmation = confirmation_};
}

/// What summary.json is built from (search_summary.hpp).
search_summary_state search_engine::impl::summary_state() const
{
    search_summary_state st{.run_name = run_.name(),
                            .workload_name = work_.name,
                            .opts = opts_,
                            .records = records_,
                            .evaluated = history_.size(),
                            .best = best_,
                            .reference = ref_,
                            .initial = init_,
                            .has_initial = work_.initial.has_value(),
                            .vendor = vendor_,
                            .vendor_unavailable = vendor_skipped_,
                            .budget = budget_,
                            .current_iteration = sched_.current_iteration(),
                            .candidates_started = sched_.candidates_started(),
                            .branch_stopped = {},
                            .gpus = {},
                            .resumed = resumed_,
                            .best_json = best_json_,
                            .best_note = best_note_,
                            .confirmation = confirmation_};
    for (int b = 0; b < opts_.branches; ++b)
        st.branch_stopped.push_back(sched_.branch_active(b) ? std::nullopt
                                                            : std::optional(sched_.branch_stop_reason(b)));
    for (int g = 0; g < backend_.gpu_count(); ++g)
    {
        const auto status = backend_.status(g);
        gpu_summary gs;
        gs.busy_seconds = status.busy_seconds;
        gs.restarts = status.restarts;
        if (const json::value* n = lenient::value_at(backend_.device_info(g), "name"))
            gs.name = *n;
        st.gpus.push_back(std::move(gs));
    }
    return st;
}

}  // namespace warpsmith
