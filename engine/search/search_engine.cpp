#include "engine/search/search_engine.hpp"

#include "engine/executors/async_semaphore.hpp"
#include "engine/search/background_writer.hpp"
#include "engine/search/best_kernel.hpp"
#include "engine/search/confirmation.hpp"
#include "engine/search/resource_pool.hpp"
#include "engine/search/run_profiles.hpp"
#include "engine/search/scoring.hpp"
#include "engine/search/search_scheduler.hpp"
#include "engine/search/search_summary.hpp"
#include "harness/compile/compile_options.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/array.hpp>

#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;

namespace
{

double seconds(clock_source::duration d)
{
    return std::chrono::duration<double>(d).count();
}

clock_source::duration from_seconds(double s)
{
    return std::chrono::duration_cast<clock_source::duration>(
        std::chrono::duration<double>(std::max(0.0, s)));
}

/// The failure of an invalid evaluation result: {kind, message} with the case named.
std::pair<std::string, std::string> failure_of(const protocol::evaluation_result& result)
{
    if (!result.failure)
        return {"invalid", ""};
    return {result.failure->kind.empty() ? "invalid" : result.failure->kind, result.failure->text()};
}

}  // namespace

struct search_engine::impl : strategy_services
{
    /// One running pipeline (a branch's proposal, or the evaluation of pending candidates).
    struct pipeline_slot
    {
        int branch = 0;
        bool recovery = false;  ///< Evaluates candidates left pending by an earlier session.
        /// The scheduler already heard how this pipeline ended (failed, nothing, recorded); by
        /// then the branch may run its next pipeline, which pipeline_ended() must not touch.
        bool reported = false;
        asio::cancellation_signal signal;
        bool cancel_requested = false;
    };

    impl(asio::io_context& ioc,
         evaluation_backend& backend,
         strategy& strat,
         clock_source& clock,
         const workload& w,
         search_options opts,
         const run_directory& run,
         journal_writer& journal,
         json::object run_info,
         progress_sink* progress)
        : ioc_(ioc),
          backend_(backend),
          strat_(strat),
          clock_(clock),
          work_(w),
          opts_(std::move(opts)),
          run_(run),
          journal_(journal),
          run_info_(std::move(run_info)),
          progress_(progress),
          sched_(scheduler_config{opts_.branches,
                                  !opts_.async,
                                  opts_.budgets.iterations,
                                  opts_.budgets.candidates,
                                  opts_.max_repairs,
                                  opts_.max_strategy_failures}),
          budget_(opts_.budgets),
          gpus_(ioc.get_executor(), std::max(1, backend.gpu_count())),
          wake_(ioc.get_executor(), 1),
          profiles_(opts_.nsight, run.path() / "profiles"),
          profile_gate_(ioc.get_executor(), 1)
    {
    }

    // ---- strategy_services ----

    asio::awaitable<compile_output> compile(compile_request request) override
    {
        request.arch = arch_;
        co_return co_await backend_.compile(std::move(request));
    }

    bool record_usage(int branch, const token_usage& u) override
    {
        json::object ev = to_json(u);
        ev["event"] = "usage";
        ev["branch"] = branch;
        journal(std::move(ev));
        if (auto reason = budget_.add_usage(u))
            request_stop(*reason, false);
        return !budget_.usage_exhausted();
    }

    std::string llm_record_dir() const override { return run_.llm_dir().string(); }

    bool can_profile() const override { return profiles_.enabled(); }

    /// One profile at a time (they hold a GPU each and share the budget); a profile already taken
    /// is answered from the books, and a replay answers from the recorded run's profiles.
    asio::awaitable<candidate_profile> profile(std::string id, std::string case_name) override
    {
        if (!profiles_.enabled())
            co_return run_profiles::refusal(
                id, case_name, "profiling is off for this run (optimize --use-nsight turns it on)");
        if (case_name.empty())
            case_name = largest_performance_case(work_);
        if (!work_.find_case(case_name))
            co_return run_profiles::refusal(
                id, case_name, "'" + case_name + "' is not a case of this workload");
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
    asio::awaitable<candidate_profile> take_profile(std::size_t idx, std::string case_name, bool budgeted)
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
        compile_output compiled =
            co_await backend_.compile(compile_request_for(records_[idx].ec.cand, arch_));
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
    asio::awaitable<void> profile_winner(const std::string& id)
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

    // ---- journal and progress ----

    void journal(json::object ev)
    {
        journal_.append(ev);
        if (progress_)
            progress_->event(ev, snapshot());
    }

    void notify_progress()
    {
        // Stage changes are not journaled; the status line still wants them.
        if (progress_)
            progress_->event(json::object{{"event", "status"}}, snapshot());
    }

    progress_snapshot snapshot() const
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

    double busy_fraction() const
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

    void wake() { wake_.try_send(boost::system::error_code{}); }

    // ---- the view strategies get ----

    search_view view(int iteration) const
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

    // ---- baselines ----

    /// The reference and the initial kernel on one GPU. Baselines run before the search loop starts
    /// (and confirmation after it ends), so they need no GPU assignment from the pool.
    asio::awaitable<void> baseline_on_gpu(int gpu,
                                          std::string cubin_ref,
                                          bool ref_local_memory,
                                          std::optional<std::string> cubin_init,
                                          bool init_local_memory,
                                          std::optional<candidate> init_cand)
    {
        evaluate_request ref_req;
        ref_req.name = "reference";
        ref_req.cand = candidate::from_kernel(work_.reference);
        ref_req.cubin = std::move(cubin_ref);
        ref_req.local_memory = ref_local_memory;
        ref_req.timing = opts_.timing;
        ref_req.session_baseline = true;
        const auto ref_eval = co_await backend_.evaluate(gpu, std::move(ref_req));
        record_baseline("reference", gpu, ref_eval, ref_.at(gpu));
        if (!ref_[gpu].valid)
        {
            auto [kind, message] = failure_of(ref_eval.result);
            throw user_error("the reference fails its own validation on GPU " + std::to_string(gpu) + ": " +
                             kind + (message.empty() ? "" : ": " + message));
        }
        if (cubin_init && init_cand)
        {
            evaluate_request init_req;
            init_req.name = "initial";
            init_req.cand = *init_cand;
            init_req.cubin = std::move(*cubin_init);
            init_req.local_memory = init_local_memory;
            init_req.timing = opts_.timing;
            init_req.session_baseline = true;
            const auto init_eval = co_await backend_.evaluate(gpu, std::move(init_req));
            record_baseline("initial", gpu, init_eval, init_.at(gpu));
        }
    }

    void record_baseline(const std::string& key, int gpu, const gpu_evaluation& ev, kernel_baseline& out)
    {
        out.valid = ev.result.valid();
        out.medians = out.valid ? ev.result.performance_medians() : case_medians{};
        out.score = score_of(out.medians);
        json::value failure = nullptr;
        if (!out.valid)
        {
            auto [kind, message] = failure_of(ev.result);
            failure = json::object{{"kind", kind}, {"message", message}};
        }
        journal(json::object{{"event", "baseline"},
                             {"key", key},
                             {"gpu", gpu},
                             {"valid", out.valid},
                             {"failure", std::move(failure)},
                             {"score_us", opt_json(out.score)},
                             {"case_median_us", medians_json(out.medians)},
                             {"busy_ms", ev.busy_ms},
                             {"result", ev.result.to_json()}});
    }

    asio::awaitable<void> evaluate_baselines()
    {
        const int n = backend_.gpu_count();
        ref_.assign(n, kernel_baseline{});
        init_.assign(n, kernel_baseline{});
        auto ref_req = compile_request_for(candidate::from_kernel(work_.reference), arch_);
        auto ref_out = co_await backend_.compile(std::move(ref_req));
        if (!ref_out.compiled)
            throw user_error("the reference kernel does not compile: " + ref_out.error);
        std::optional<std::string> init_cubin;
        bool init_local_memory = true;
        std::optional<candidate> init_cand;
        if (work_.initial)
        {
            init_cand = candidate::from_kernel(*work_.initial);
            auto init_req = compile_request_for(*init_cand, arch_);
            auto init_out = co_await backend_.compile(std::move(init_req));
            if (init_out.compiled)
            {
                init_cubin = std::move(init_out.cubin);
                init_local_memory = init_out.local_memory;
            }
            else
            {
                log_warn("the initial kernel does not compile: " + init_out.error);
                journal(json::object{
                    {"event", "baseline"},
                    {"key", "initial"},
                    {"gpu", -1},
                    {"valid", false},
                    {"failure", json::object{{"kind", "compile_error"}, {"message", init_out.error}}},
                    {"score_us", nullptr},
                    {"case_median_us", json::object{}},
                    {"result", nullptr}});
            }
        }
        // One task per GPU, all at once: each holds its GPU for the reference and initial kernel.
        auto ex = co_await asio::this_coro::executor;
        using op_type = decltype(asio::co_spawn(
            ex, baseline_on_gpu(0, std::string(), true, std::nullopt, true, std::nullopt), asio::deferred));
        std::vector<op_type> ops;
        for (int g = 0; g < n; ++g)
            ops.push_back(asio::co_spawn(
                ex,
                baseline_on_gpu(
                    g, ref_out.cubin, ref_out.local_memory, init_cubin, init_local_memory, init_cand),
                asio::deferred));
        auto group = asio::experimental::make_parallel_group(std::move(ops));
        auto [order, errors] =
            co_await group.async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
        (void)order;
        for (auto& e : errors)
            if (e)
                std::rethrow_exception(e);
    }

    // ---- vendor baselines ----

    /// The summary key of a vendor baseline: its name for FP32, name_tf32 for TF32.
    static std::string vendor_key(const baseline_spec& spec, std::string_view math)
    {
        return math == "fp32" ? spec.name : spec.name + "_" + std::string(math);
    }

    /// Every baseline the workload declares, in FP32 and TF32, on GPU 0 (where the reference that
    /// the summary compares with was timed), before the search starts.
    asio::awaitable<void> evaluate_vendor_baselines()
    {
        static constexpr const char* maths[] = {"fp32", "tf32"};
        for (const auto& spec : work_.baselines)
        {
            for (const char* math : maths)
            {
                const std::string key = vendor_key(spec, math);
                if (vendor_.count(key))
                    continue;
                baseline_request req;
                req.name = spec.name;
                req.kind = spec.kind;
                req.math = math;
                req.timing = opts_.timing;
                baseline_outcome out;
                std::string error;
                try
                {
                    out = co_await backend_.baseline(0, std::move(req));
                }
                catch (const std::exception& e)
                {
                    error = e.what();
                }
                if (!error.empty())
                {
                    out.error_kind = "error";
                    out.message = error;
                }
                record_vendor_baseline(key, spec, math, out);
            }
        }
    }

    void record_vendor_baseline(const std::string& key,
                                const baseline_spec& spec,
                                const std::string& math,
                                const baseline_outcome& out)
    {
        json::object ev{{"event", "vendor_baseline"},
                        {"key", key},
                        {"name", spec.name},
                        {"kind", spec.kind},
                        {"math", math},
                        {"gpu", 0},
                        {"available", out.available},
                        {"busy_ms", out.busy_ms}};
        if (out.available)
        {
            for (const char* field :
                 {"case_median_us", "score_us", "within_tolerance", "max_abs_error", "max_rel_error"})
                ev[field] = out.baseline.contains(field) ? out.baseline.at(field) : json::value(nullptr);
            ev["baseline"] = out.baseline;
            char score[64] = "no timed case";
            if (ev.at("score_us").is_number())
                std::snprintf(score, sizeof score, "%.2f us", ev.at("score_us").to_number<double>());
            log_info("baseline " + key + " on GPU 0: " + score);
        }
        else
        {
            ev["error"] = json::object{{"kind", out.error_kind}, {"message", out.message}};
            log_warn("baseline " + key + " not timed: " + out.error_kind + ": " + out.message);
        }
        journal(ev);
        if (out.available)
            vendor_[key] = std::move(ev);
        else
            vendor_skipped_[key] = json::object{{"kind", out.error_kind}, {"message", out.message}};
    }

    // ---- candidates ----

    /// Candidate numbers are handed out when proposals start, in the scheduler's order (branch
    /// order within an iteration), not when the answers arrive: answers arrive in a different order
    /// from run to run, and ids are quoted in prompts and break ties between equal scores, so a
    /// replay or a second run with the same answers must give every candidate the same id. A
    /// proposal retried after a failure keeps its number; one that yields nothing (exhausted,
    /// cancelled by a stop) leaves its number unused.
    void reserve_number(const propose_action& a)
    {
        if (reserved_numbers_.try_emplace(std::pair(a.branch, a.iteration), next_number_).second)
            ++next_number_;
    }

    int take_number(const propose_action& a)
    {
        const auto it = reserved_numbers_.find(std::pair(a.branch, a.iteration));
        if (it == reserved_numbers_.end())
            return next_number_++;
        const int n = it->second;
        reserved_numbers_.erase(it);
        return n;
    }

    std::size_t add_record(const propose_action& a, proposal p)
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

    void apply_evaluation(candidate_record& rec, int gpu, const gpu_evaluation& ev, double queued_ms)
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

    void mark_compile_failure(candidate_record& rec)
    {
        rec.ec.valid = false;
        rec.ec.failure_kind = "compile_error";
        std::string log = rec.ec.compile.log;
        if (log.size() > 4000)
            log = log.substr(0, 4000) + "\n[log truncated]";
        rec.ec.failure_message = rec.ec.compile.error + (log.empty() ? "" : "\n" + log);
        rec.ec.result = protocol::evaluation_result::invalid("compile_error", rec.ec.compile.error);
    }

    /// Journals the evaluation, writes its files, feeds it back to the strategy and the scheduler.
    void finish_record(std::size_t idx, bool report_to_scheduler)
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
    asio::awaitable<bool> evaluate_candidate(std::size_t idx, bool report_to_scheduler)
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

    asio::awaitable<void> propose_pipeline(propose_action a, std::shared_ptr<pipeline_slot> slot)
    {
        // Spawned before a stop, started after it: do not call the strategy any more.
        if (sched_.stopping())
            co_return;
        // --use-nsight: the round's feedback carries the profile of the best so far.
        if (profiles_.enabled() && opts_.nsight.each_round && best_)
            co_await profile(records_[*best_].id(), std::string());
        if (sched_.stopping())
            co_return;
        proposal_context ctx;
        ctx.branch = a.branch;
        ctx.iteration = a.iteration;
        ctx.view = view(a.iteration);
        ctx.services = this;
        if (a.repair_of)
            if (auto it = by_id_.find(*a.repair_of); it != by_id_.end())
                ctx.repair_of = &records_[it->second].ec;
        notify_progress();

        std::optional<proposal> p;
        std::string error;
        bool failed = false;
        try
        {
            p = co_await strat_.propose(std::move(ctx));
        }
        catch (const std::exception& e)
        {
            failed = true;
            error = e.what();
        }
        catch (...)
        {
            failed = true;
            error = "unknown exception";
        }
        if (failed)
        {
            if (slot->cancel_requested)
                co_return;  // pipeline_ended() gives the ticket back.
            journal(json::object{{"event", "proposal_failed"},
                                 {"branch", a.branch},
                                 {"iteration", a.iteration},
                                 {"error", error}});
            slot->reported = true;
            if (sched_.proposal_failed(a.branch))
                journal(json::object{{"event", "branch_stopped"},
                                     {"branch", a.branch},
                                     {"reason", "failures"},
                                     {"error", error}});
            wake();
            co_return;
        }
        if (!p && slot->cancel_requested)
            co_return;  // a strategy that answers a cancellation with nothing is not exhausted
        if (!p)
        {
            slot->reported = true;
            sched_.proposal_none(a.branch);
            journal(json::object{{"event", "branch_stopped"}, {"branch", a.branch}, {"reason", "exhausted"}});
            wake();
            co_return;
        }
        // A proposal that arrives just as the run stops is still recorded, so it is not lost: it
        // is evaluated within the grace period if the run allows, or on --resume. The cancellation
        // aimed at the proposal must not hit its compile.
        if (slot->cancel_requested)
        {
            co_await asio::this_coro::reset_cancellation_state();
            slot->cancel_requested = false;
        }
        const auto idx = add_record(a, std::move(*p));
        sched_.proposal_made(a.branch);
        slot->reported = co_await evaluate_candidate(idx, true);
    }

    asio::awaitable<void> recover_pipeline(std::vector<std::size_t> pending,
                                           std::shared_ptr<pipeline_slot> slot)
    {
        for (std::size_t i = 0; i < pending.size(); ++i)
        {
            const bool last = i + 1 == pending.size();
            const bool recorded = co_await evaluate_candidate(pending[i], last);
            if (!recorded)
                co_return;
            slot->reported = last;
        }
    }

    void spawn(int branch, std::shared_ptr<pipeline_slot> slot, asio::awaitable<void> body)
    {
        slot->branch = branch;
        pipelines_.push_back(slot);
        auto done = [this, slot](std::exception_ptr e) { on_pipeline_exit(slot, e); };
        asio::co_spawn(
            ioc_, std::move(body), asio::bind_cancellation_slot(slot->signal.slot(), std::move(done)));
    }

    void on_pipeline_exit(const std::shared_ptr<pipeline_slot>& slot, std::exception_ptr e)
    {
        std::erase(pipelines_, slot);
        if (!slot->reported)
            sched_.pipeline_ended(slot->branch);
        if (e && !slot->cancel_requested)
        {
            try
            {
                std::rethrow_exception(e);
            }
            catch (const std::exception& ex)
            {
                fail(std::string("branch ") + std::to_string(slot->branch) + ": " + ex.what());
            }
            catch (...)
            {
                fail("branch " + std::to_string(slot->branch) + ": unknown exception");
            }
        }
        if (slot->recovery)
            --pending_pipelines_;
        wake();
    }

    void fail(const std::string& message)
    {
        if (fatal_error_.empty())
            fatal_error_ = message;
        log_error(message);
        request_stop("error", true);
    }

    void cancel(const std::shared_ptr<pipeline_slot>& slot)
    {
        if (slot->cancel_requested)
            return;
        slot->cancel_requested = true;
        slot->signal.emit(asio::cancellation_type::terminal);
    }

    void request_stop(const std::string& reason, bool interrupt)
    {
        if (loop_finished_)
            return;
        const bool was_stopping = sched_.stopping();
        const bool was_interrupted = sched_.interrupted();
        const auto to_cancel = sched_.stop(reason, interrupt);
        if (!was_stopping || (interrupt && !was_interrupted))
            journal(json::object{{"event", "stop_requested"}, {"reason", reason}, {"interrupt", interrupt}});
        for (int b : to_cancel)
            for (auto& s : std::vector(pipelines_))
                if (s->branch == b)
                    cancel(s);
        if (!was_stopping)
            start_timer(grace_signal_,
                        opts_.grace_seconds,
                        [this]
                        {
                            journal(json::object{{"event", "grace_expired"},
                                                 {"cancelled", static_cast<int>(pipelines_.size())}});
                            for (auto& s : std::vector(pipelines_))
                                cancel(s);
                        });
        wake();
    }

    asio::awaitable<void> timer_body(double secs, std::function<void()> fire)
    {
        co_await clock_.sleep_for(from_seconds(secs));
        fire();
    }

    void start_timer(std::shared_ptr<asio::cancellation_signal>& sig, double secs, std::function<void()> fire)
    {
        sig = std::make_shared<asio::cancellation_signal>();
        auto ignore = [sig](std::exception_ptr) {};
        asio::co_spawn(
            ioc_, timer_body(secs, std::move(fire)), asio::bind_cancellation_slot(sig->slot(), ignore));
    }

    void stop_timer(std::shared_ptr<asio::cancellation_signal>& sig)
    {
        if (sig)
            sig->emit(asio::cancellation_type::terminal);
        sig.reset();
    }

    // ---- resume ----

    void restore(replayed_run r)
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
            if (rec.ec.valid && rec.ec.score_us > 0 &&
                (!best_ || better_candidate(rec.ec, records_[*best_].ec)))
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

    // ---- confirmation and finalization ----

    /// Attempts of the final confirmation before giving up on finding a candidate that survives it.
    static constexpr int k_max_confirmation_attempts = 4;

    /// The final confirmation (confirmation.hpp): attempts of time_interleaved until a candidate
    /// survives, journaling every candidate the worker finds invalid. Never throws for a failed
    /// request: confirmation_ then says "skipped" with the reason and write_best() falls back to
    /// the search's numbers, marked unconfirmed.
    asio::awaitable<void> confirm()
    {
        if (opts_.confirm_top <= 0)
        {
            confirmation_ = json::object{{"skipped", "--confirm-top 0"}};
            co_return;
        }
        confirmation_planner plan(opts_.confirm_top, k_max_confirmation_attempts);
        auto batch = plan.next(history_);
        if (batch.empty())
        {
            confirmation_ = json::object{{"skipped", "no valid candidate"}};
            co_return;
        }
        std::string failed;
        try
        {
            while (!batch.empty())
            {
                auto d = co_await confirmation_attempt(batch, plan.attempts() + 1);
                if (!d)
                    break;  // confirmation_ says why
                plan.record(batch, *d);
                decision_ = std::move(*d);
                batch = plan.next(history_);
            }
        }
        catch (const std::exception& e)
        {
            failed = e.what();
        }
        json::object invalid;
        for (const auto& f : plan.invalidated())
            invalid[f.key] = f.to_json();
        if (!failed.empty())
        {
            log_warn("confirmation failed: " + failed);
            decision_.reset();
            confirmation_ = json::object{{"skipped", "failed: " + failed}};
        }
        if (!decision_)
        {
            if (!confirmation_.contains("skipped"))
                confirmation_ = json::object{{"skipped", "no attempt completed"}};
            confirmation_["attempts"] = plan.attempts();
            confirmation_["invalidated"] = std::move(invalid);
            co_return;
        }
        no_candidate_survived_ = plan.no_candidate_survived();
        confirmation_ = decision_->to_json();
        confirmation_["gpu"] = 0;
        confirmation_["rounds"] = opts_.confirm_rounds;
        confirmation_["attempts"] = plan.attempts();
        confirmation_["invalidated"] = std::move(invalid);
        confirmation_["no_candidate_survived"] = no_candidate_survived_;
    }

    /// One attempt: the reference, the initial kernel and `batch` timed interleaved on GPU 0. Marks
    /// the candidates the worker finds invalid (journal `invalidated`, result.json, history) and
    /// journals the attempt (`confirmation`). nullopt when the reference does not compile again.
    asio::awaitable<std::optional<confirmation_decision>> confirmation_attempt(std::vector<std::string> batch,
                                                                               int attempt)
    {
        std::vector<std::pair<std::string, evaluate_request>> entries;
        std::vector<confirmation_input> inputs;
        const int gpu = 0;
        auto add = [&](const std::string& key,
                       const candidate& c,
                       const compile_output& compiled,
                       bool eligible,
                       std::optional<double> search_score)
        {
            evaluate_request er;
            er.name = key;
            er.cand = c;
            er.cubin = compiled.cubin;
            er.local_memory = compiled.local_memory;
            er.timing = opts_.timing;
            entries.emplace_back(key, std::move(er));
            inputs.push_back(confirmation_input{key, eligible, search_score});
        };
        // Compiles hit the compile cache: these exact sources were compiled during the search.
        auto ref_cand = candidate::from_kernel(work_.reference);
        auto ref_out = co_await backend_.compile(compile_request_for(ref_cand, arch_));
        if (!ref_out.compiled)
        {
            confirmation_ = json::object{{"skipped", "the reference did not compile again"}};
            co_return std::nullopt;
        }
        add("reference", ref_cand, ref_out, false, ref_[gpu].score);
        if (work_.initial && init_[gpu].valid && !initial_invalidated_)
        {
            auto init_cand = candidate::from_kernel(*work_.initial);
            auto init_out = co_await backend_.compile(compile_request_for(init_cand, arch_));
            if (init_out.compiled)
                add("initial", init_cand, init_out, true, init_[gpu].score);
        }
        for (const auto& id : batch)
        {
            const auto& rec = records_[by_id_.at(id)];
            auto out = co_await backend_.compile(compile_request_for(rec.ec.cand, arch_));
            if (out.compiled)
            {
                // The search score to compare with is the one on the confirmation GPU's terms.
                add(id, rec.ec.cand, out, true, rec.ec.score_us);
            }
        }
        auto response = co_await backend_.time_interleaved(gpu, std::move(entries), opts_.confirm_rounds);
        auto d = decide_confirmation(response, inputs);
        for (const auto& f : d.invalid)
        {
            if (f.key == "initial")
                initial_invalidated_ = true;
            if (auto it = by_id_.find(f.key); it != by_id_.end())
                invalidate(it->second, f, attempt);
            else
                log_warn("confirmation: " + f.key + " is invalid: " + f.kind + ": " + f.text());
        }
        json::object ev = d.to_json();
        ev["event"] = "confirmation";
        ev["attempt"] = attempt;
        ev["gpu"] = gpu;
        ev["rounds"] = opts_.confirm_rounds;
        journal(std::move(ev));
        co_return d;
    }

    /// A candidate the confirmation found invalid: journaled, its files rewritten, out of the
    /// running for the winner (best_ is recomputed).
    void invalidate(std::size_t idx, const confirmation_failure& f, int attempt)
    {
        auto& rec = records_[idx];
        invalidate_record(rec, "confirmation", attempt, f.kind, f.case_name, f.message);
        journal(invalidated_event(rec));
        for (auto& h : history_)
            if (h.id == rec.id())
                h = rec.ec;
        in_background([this, rec, timing = opts_.timing.to_json()]
                      { run_.write_evaluated(rec, work_, timing, opts_.hidden_seed); },
                      rec.id());
        recompute_best();
    }

    /// With adaptive timing, per performance case: dominated_factor x the best candidate's median
    /// (the worker stops timing a case after a segment above it, timer.hpp). Empty otherwise.
    std::map<std::string, double> dominated_thresholds() const
    {
        std::map<std::string, double> out;
        if (opts_.timing.target_rel_noise <= 0 || !best_)
            return out;
        for (const auto& [name, us] : records_[*best_].ec.case_median_us)
            if (us > 0)
                out[name] = dominated_factor * us;
        return out;
    }

    void recompute_best()
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

    json::object history_rows() const
    {
        json::array rows;
        for (const auto& r : records_)
            rows.push_back(history_row(r));
        return json::object{{"candidates", std::move(rows)}};
    }

    void in_background(std::function<void()> write, std::string what)
    {
        files_.post(std::move(write), std::move(what));
    }

    void finish_files() { files_.finish(); }

    void write_history() const
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

    json::object run_json(const std::string& status) const
    {
        json::object o = run_info_;
        json::array devices;
        for (int g = 0; g < backend_.gpu_count(); ++g)
            devices.push_back(backend_.device_info(g));
        o["devices"] = std::move(devices);
        json::array sessions;
        if (const auto* s = o.if_contains("sessions"); s && s->is_array())
            sessions = s->get_array();
        json::object session = session_;
        session["status"] = status;
        session["ended"] = status == "running" ? json::value(nullptr) : json::value(utc_timestamp());
        sessions.push_back(std::move(session));
        o["sessions"] = std::move(sessions);
        o["status"] = status;
        return o;
    }

    best_kernel_state best_state() const
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
    search_summary_state summary_state() const
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
            st.branch_stopped.push_back(
                sched_.branch_active(b) ? std::nullopt : std::optional(sched_.branch_stop_reason(b)));
        for (int g = 0; g < backend_.gpu_count(); ++g)
        {
            const auto status = backend_.status(g);
            gpu_summary gs;
            gs.busy_seconds = status.busy_seconds;
            gs.restarts = status.restarts;
            if (const auto* n = backend_.device_info(g).if_contains("name"))
                gs.name = *n;
            st.gpus.push_back(std::move(gs));
        }
        return st;
    }

    asio::awaitable<search_result> run(std::optional<replayed_run> resume)
    {
        std::exception_ptr error;
        try
        {
            co_return co_await run_body(std::move(resume));
        }
        catch (...)
        {
            error = std::current_exception();
        }
        // A failure before the loop (no GPU, a broken reference) must not leave timers behind.
        finish_files();
        loop_finished_ = true;
        stop_timer(wall_signal_);
        stop_timer(grace_signal_);
        std::rethrow_exception(error);
    }

    asio::awaitable<search_result> run_body(std::optional<replayed_run> resume)
    {
        t_start_ = clock_.now();
        session_ = json::object{{"started", utc_timestamp()}, {"resumed", resume.has_value()}};
        journal(json::object{{"event", "run_started"},
                             {"run", run_.name()},
                             {"resumed", resume.has_value()},
                             {"options", opts_.to_json()}});
        // The wall-time budget counts from here: starting workers and the baselines are part of the run.
        if (opts_.budgets.wall_seconds)
            start_timer(
                wall_signal_, *opts_.budgets.wall_seconds, [this] { request_stop("max_wall_time", false); });
        co_await backend_.start(work_, opts_.hidden_seed);
        arch_ = "sm_90";
        for (int g = 0; g < backend_.gpu_count(); ++g)
        {
            std::string a;
            if (const auto* v = backend_.device_info(g).if_contains("arch"); v && v->is_string())
                a = std::string(v->get_string());
            if (g == 0 && !a.empty())
                arch_ = a;
            else if (!a.empty() && a != arch_)
                throw user_error("the selected GPUs have different architectures (" + arch_ + ", " + a +
                                 "); choose GPUs of one kind with --gpus");
        }
        run_.write_json("run.json", run_json("running"));
        co_await evaluate_baselines();
        // Vendor baselines are timed once per run: a resume keeps those an earlier session timed.
        if (resume)
            vendor_ = resume->vendor_baselines;
        co_await evaluate_vendor_baselines();

        if (resume)
            restore(std::move(*resume));
        if (budget_.usage_exhausted())
            request_stop(budget_.limits().tokens &&
                                 budget_tracker::counted_tokens(budget_.usage()) >= *budget_.limits().tokens
                             ? "max_tokens"
                             : "max_cost",
                         false);
        if (!pending_by_branch_.empty())
        {
            // Strategies observe the pending candidates before anyone proposes again, so a
            // strategy never re-proposes what was proposed before the stop.
            sched_.hold(true);
            recovering_ = true;
            pending_pipelines_ = static_cast<int>(pending_by_branch_.size());
            for (auto& [branch, list] : pending_by_branch_)
            {
                auto slot = std::make_shared<pipeline_slot>();
                slot->recovery = true;
                spawn(branch, slot, recover_pipeline(list, slot));
            }
        }

        for (;;)
        {
            if (recovering_ && pending_pipelines_ == 0)
            {
                recovering_ = false;
                sched_.hold(false);
            }
            auto step = sched_.poll();
            for (int k : step.finished_iterations)
                journal(json::object{{"event", "iteration_finished"}, {"iteration", k}});
            for (auto& a : step.start)
            {
                reserve_number(a);
                auto slot = std::make_shared<pipeline_slot>();
                spawn(a.branch, slot, propose_pipeline(a, slot));
            }
            if (!step.start.empty() || !step.finished_iterations.empty())
                continue;
            if (sched_.done() && pipelines_.empty())
                break;
            co_await wake_.async_receive(asio::as_tuple(asio::use_awaitable));
        }
        loop_finished_ = true;
        stop_timer(wall_signal_);
        stop_timer(grace_signal_);

        search_result res;
        res.stop_reason = sched_.finish_reason();
        if (!fatal_error_.empty())
        {
            res.status = "failed";
            res.error = fatal_error_;
            res.exit_code = 1;
            res.stop_reason = "error";
        }
        else if (sched_.interrupted())
        {
            res.status = "interrupted";
            res.exit_code = 130;
        }
        else
            res.status = "finished";

        if (res.status == "finished")
        {
            co_await confirm();
        }
        else
            confirmation_ = json::object{{"skipped", "run " + res.status}};

        finish_files();
        auto best = write_best(best_state());
        best_json_ = std::move(best.json);
        best_note_ = std::move(best.note);
        winner_ = best.winner;
        res.winner = winner_;
        if (res.status == "finished" && profiles_.enabled() && opts_.nsight.profile_winner && winner_)
            co_await profile_winner(*winner_);
        write_history();
        const double wall = seconds(clock_.now() - t_start_);
        res.summary = summary(
            summary_state(), search_outcome{res.status, res.stop_reason, res.error, res.exit_code}, wall);
        if (profiles_.enabled())
            res.summary["profiles"] = profiles_.summary_json();
        try
        {
            run_.write_json("summary.json", res.summary);
            run_.write_json("run.json", run_json(res.status));
        }
        catch (const std::exception& e)
        {
            log_warn(std::string("cannot write summary.json: ") + e.what());
        }
        journal(json::object{{"event", "run_finished"},
                             {"status", res.status},
                             {"reason", res.stop_reason},
                             {"winner", opt_json(res.winner)},
                             {"exit_code", res.exit_code}});
        journal_.sync();
        co_return res;
    }

    asio::io_context& ioc_;
    evaluation_backend& backend_;
    strategy& strat_;
    clock_source& clock_;
    const workload& work_;
    search_options opts_;
    const run_directory& run_;
    journal_writer& journal_;
    json::object run_info_;
    json::object session_;
    progress_sink* progress_;

    search_scheduler sched_;
    budget_tracker budget_;
    resource_pool gpus_;
    asio::experimental::channel<void(boost::system::error_code)> wake_;
    run_profiles profiles_;
    async_semaphore profile_gate_;

    std::string arch_ = "sm_90";
    std::vector<kernel_baseline> ref_;
    std::vector<kernel_baseline> init_;
    std::map<std::string, json::object> vendor_;  ///< key -> journal event of a timed baseline.
    json::object vendor_skipped_;                 ///< key -> {kind, message}: not timed.
    std::deque<candidate_record> records_;        ///< Proposal order; stable addresses.
    std::map<std::string, std::size_t, std::less<>> by_id_;
    std::vector<evaluated_candidate> history_;
    std::optional<std::size_t> best_;
    int next_number_ = 1;
    std::map<std::pair<int, int>, int> reserved_numbers_;  ///< (branch, iteration) -> number.

    std::vector<std::shared_ptr<pipeline_slot>> pipelines_;
    std::vector<std::pair<int, std::vector<std::size_t>>> pending_by_branch_;
    bool recovering_ = false;
    int pending_pipelines_ = 0;
    bool resumed_ = false;
    bool loop_finished_ = false;
    std::string fatal_error_;
    std::shared_ptr<asio::cancellation_signal> wall_signal_;
    std::shared_ptr<asio::cancellation_signal> grace_signal_;
    clock_source::duration t_start_{};

    background_writer files_;  ///< Candidate files, history.json (background_writer.hpp).
    std::optional<confirmation_decision> decision_;  ///< The last confirmation attempt's.
    bool no_candidate_survived_ = false;
    bool initial_invalidated_ = false;
    std::string best_note_;
    json::object confirmation_;
    std::optional<std::string> winner_;
    json::value best_json_ = nullptr;
};

search_engine::search_engine(asio::io_context& ioc,
                             evaluation_backend& backend,
                             strategy& strat,
                             clock_source& clock,
                             const workload& w,
                             search_options opts,
                             const run_directory& run,
                             journal_writer& journal,
                             json::object run_info,
                             progress_sink* progress)
    : impl_(std::make_unique<impl>(
          ioc, backend, strat, clock, w, std::move(opts), run, journal, std::move(run_info), progress))
{
}

search_engine::~search_engine() = default;

asio::awaitable<search_result> search_engine::run(std::optional<replayed_run> resume)
{
    co_return co_await impl_->run(std::move(resume));
}

void search_engine::request_stop(const std::string& reason, bool interrupt)
{
    impl_->request_stop(reason, interrupt);
}

const std::vector<evaluated_candidate>& search_engine::history() const
{
    return impl_->history_;
}

progress_snapshot search_engine::snapshot() const
{
    return impl_->snapshot();
}

}  // namespace warpsmith
