#pragma once

// search_engine's implementation (search_engine.hpp), one class whose parts are defined in one file
// each: search_engine.cpp (the run: the loop, pipelines, stops, timers), search_records.cpp
// (candidates from proposal to result, the best), search_baselines.cpp (reference, initial kernel
// and vendor baselines), search_confirmation.cpp (the final interleaved confirmation),
// search_profiles.cpp (Nsight Compute profiles) and search_reporting.cpp (journal, progress, the
// strategy's view, run.json, history and the summary state). Included by those files only.

#include "engine/executors/async_semaphore.hpp"
#include "engine/search/background_writer.hpp"
#include "engine/search/best_kernel.hpp"
#include "engine/search/confirmation.hpp"
#include "engine/search/resource_pool.hpp"
#include "engine/search/run_profiles.hpp"
#include "engine/search/scoring.hpp"
#include "engine/search/search_engine.hpp"
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

namespace search_detail
{

inline double seconds(clock_source::duration d)
{
    return std::chrono::duration<double>(d).count();
}

inline clock_source::duration from_seconds(double s)
{
    return std::chrono::duration_cast<clock_source::duration>(
        std::chrono::duration<double>(std::max(0.0, s)));
}

/// The failure of an invalid evaluation result: {kind, message} with the case named.
inline std::pair<std::string, std::string> failure_of(const protocol::evaluation_result& result)
{
    if (!result.failure)
        return {"invalid", ""};
    return {result.failure->kind.empty() ? "invalid" : result.failure->kind, result.failure->text()};
}

}  // namespace search_detail

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

    asio::awaitable<compile_output> compile(compile_request request) override;

    bool record_usage(int branch, const token_usage& u) override;

    std::string llm_record_dir() const override { return run_.llm_dir().string(); }

    bool can_profile() const override { return profiles_.enabled(); }

    /// One profile at a time (they hold a GPU each and share the budget); a profile already taken
    /// is answered from the books, and a replay answers from the recorded run's profiles.
    asio::awaitable<candidate_profile> profile(std::string id, std::string case_name) override;

    /// Profiles records_[idx] on case_name (or answers from the books or the recorded run), one
    /// profile at a time; `budgeted` profiles are refused once the budget is spent (the winner's
    /// profile at the end of a tune is not).
    asio::awaitable<candidate_profile> take_profile(std::size_t idx, std::string case_name, bool budgeted);

    /// tune --use-nsight: the winner on the largest performance case, once the search is over
    /// (nothing is timed any more). The initial kernel has no record and is not profiled.
    asio::awaitable<void> profile_winner(const std::string& id);

    // ---- journal and progress ----

    void journal(const json::object& ev);

    void notify_progress();

    progress_snapshot snapshot() const;

    double busy_fraction() const;

    void wake() { wake_.try_send(boost::system::error_code{}); }

    // ---- the view strategies get ----

    search_view view(int iteration) const;

    // ---- baselines ----

    /// The reference and the initial kernel on one GPU. Baselines run before the search loop starts
    /// (and confirmation after it ends), so they need no GPU assignment from the pool.
    asio::awaitable<void> baseline_on_gpu(int gpu,
                                          std::string cubin_ref,
                                          bool ref_local_memory,
                                          std::optional<std::string> cubin_init,
                                          bool init_local_memory,
                                          std::optional<candidate> init_cand);

    void record_baseline(const std::string& key, int gpu, const gpu_evaluation& ev, kernel_baseline& out);

    asio::awaitable<void> evaluate_baselines();

    // ---- vendor baselines ----

    /// The summary key of a vendor baseline: its name for FP32, name_tf32 for TF32.
    static std::string vendor_key(const baseline_spec& spec, std::string_view math);

    /// Every baseline the workload declares, in FP32 and TF32, on GPU 0 (where the reference that
    /// the summary compares with was timed), before the search starts.
    asio::awaitable<void> evaluate_vendor_baselines();

    void record_vendor_baseline(const std::string& key,
                                const baseline_spec& spec,
                                const std::string& math,
                                const baseline_outcome& out);

    // ---- candidates ----

    /// Candidate numbers are handed out when proposals start, in the scheduler's order (branch
    /// order within an iteration), not when the answers arrive: answers arrive in a different order
    /// from run to run, and ids are quoted in prompts and break ties between equal scores, so a
    /// replay or a second run with the same answers must give every candidate the same id. A
    /// proposal retried after a failure keeps its number; one that yields nothing (exhausted,
    /// cancelled by a stop) leaves its number unused.
    void reserve_number(const propose_action& a);

    int take_number(const propose_action& a);

    std::size_t add_record(const propose_action& a, proposal p);

    void apply_evaluation(candidate_record& rec, int gpu, const gpu_evaluation& ev, double queued_ms);

    void mark_compile_failure(candidate_record& rec);

    /// Journals the evaluation, writes its files, feeds it back to the strategy and the scheduler.
    void finish_record(std::size_t idx, bool report_to_scheduler);

    /// compile -> GPU queue -> validate + time -> record. Leaves the candidate pending (journaled as
    /// proposed, maybe compiled) when the run is interrupted or the grace period ends first.
    /// Returns whether the candidate was recorded.
    asio::awaitable<bool> evaluate_candidate(std::size_t idx, bool report_to_scheduler);

    asio::awaitable<void> propose_pipeline(propose_action a, std::shared_ptr<pipeline_slot> slot);

    asio::awaitable<void> recover_pipeline(std::vector<std::size_t> pending,
                                           std::shared_ptr<pipeline_slot> slot);

    void spawn(int branch, const std::shared_ptr<pipeline_slot>& slot, asio::awaitable<void> body);

    void on_pipeline_exit(const std::shared_ptr<pipeline_slot>& slot, const std::exception_ptr& e);

    void fail(const std::string& message);

    void cancel(const std::shared_ptr<pipeline_slot>& slot);

    void request_stop(const std::string& reason, bool interrupt);

    asio::awaitable<void> timer_body(double secs, std::function<void()> fire);

    void start_timer(std::shared_ptr<asio::cancellation_signal>& sig,
                     double secs,
                     std::function<void()> fire);

    void stop_timer(std::shared_ptr<asio::cancellation_signal>& sig);

    // ---- resume ----

    void restore(replayed_run r);

    // ---- confirmation and finalization ----

    /// Attempts of the final confirmation before giving up on finding a candidate that survives it.
    static constexpr int k_max_confirmation_attempts = 4;

    /// The final confirmation (confirmation.hpp): attempts of time_interleaved until a candidate
    /// survives, journaling every candidate the worker finds invalid. Never throws for a failed
    /// request: confirmation_ then says "skipped" with the reason and write_best() falls back to
    /// the search's numbers, marked unconfirmed.
    asio::awaitable<void> confirm();

    /// One attempt: the reference, the initial kernel and `batch` timed interleaved on GPU 0. Marks
    /// the candidates the worker finds invalid (journal `invalidated`, result.json, history) and
    /// journals the attempt (`confirmation`). nullopt when the reference does not compile again.
    asio::awaitable<std::optional<confirmation_decision>> confirmation_attempt(std::vector<std::string> batch,
                                                                               int attempt);

    /// A candidate the confirmation found invalid: journaled, its files rewritten, out of the
    /// running for the winner (best_ is recomputed).
    void invalidate(std::size_t idx, const confirmation_failure& f, int attempt);

    /// With adaptive timing, per performance case: dominated_factor x the best candidate's median
    /// (the worker stops timing a case after a segment above it, timer.hpp). Empty otherwise.
    std::map<std::string, double> dominated_thresholds() const;

    void recompute_best();

    json::object history_rows() const;

    void in_background(std::function<void()> write, std::string what);

    void finish_files() { files_.finish(); }

    void write_history() const;

    json::object run_json(const std::string& status) const;

    best_kernel_state best_state() const;

    /// What summary.json is built from (search_summary.hpp).
    search_summary_state summary_state() const;

    asio::awaitable<search_result> run(std::optional<replayed_run> resume);

    asio::awaitable<search_result> run_body(std::optional<replayed_run> resume);

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

}  // namespace warpsmith
