#pragma once

// What `warpsmith optimize` and `warpsmith tune` share (docs/cli.md, "optimize and tune"). Both run
// the search engine (engine/search) over the executor backend, with a run directory, a journal,
// live progress, resume, confirmation and a final table; they differ in the strategy and in what
// they add to the summary and the table.
//
//  * search_session_args: the flags both take (evaluation, output, the search's shape) and what
//    they describe: the executor backend, run.json's "config.evaluation", the hidden seed.
//  * session_plan: everything a session needs, prepared and checked before a worker starts;
//    start_search() and reopen_run() fill the parts both commands fill alike.
//  * run_session(): one session of the engine. Progress goes to stderr (JSON lines on stdout with
//    --json-progress); the first Ctrl-C stops proposing, lets the GPU finish and finalizes (run it
//    under run_async with search_interrupt()); then the backend stops, the command completes the
//    summary, summary.json and report.html are written and the summary or final table is printed.

#include "engine/cli/cli_app.hpp"
#include "engine/cli/timing_args.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/run/run_replay.hpp"
#include "engine/search/executor_backend.hpp"
#include "engine/search/search_engine.hpp"
#include "harness/core/defaults.hpp"
#include "harness/workload/workload.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI
{
class App;
}

namespace warpsmith
{

struct search_session_args
{
    // The search's shape: each command registers these flags with its own help and defaults.
    int branches = 1;
    int async = 0;
    std::uint64_t seed = 0;
    std::uint64_t hidden_seed_flag = 0;  ///< --hidden-seed N (see hidden_seed()).
    double max_wall_time = 0;
    double grace_seconds = 30;
    // Evaluation.
    std::string gpus = "all";
    worker_options worker;
    int compile_workers = 0;
    bool in_process_compile = false;
    std::uint64_t compile_memory_mib = default_compile_memory_mib;
    timing_args timing;
    int launch_timeout_ms = default_launch_timeout_ms;
    int confirm_top = 3;
    bool no_measure = false;
    // Output.
    std::string results = "results";
    std::string resume;
    bool json_progress = false;

    CLI::App* cmd = nullptr;  ///< The command the flags are registered on.

    /// --gpus, --worker, --worker-cmd, --worker-arg, --compile-workers, --in-process-compile,
    /// --timing, --warmup, --iterations, --launch-timeout-ms, --confirm-top (its help says what is
    /// re-timed) and --no-measure, in `group`. Sets cmd.
    void add_evaluation_flags(CLI::App& cmd, const std::string& group, const std::string& confirm_help);
    /// --seed (with the command's own help: what it seeds and its default) and --hidden-seed, in
    /// `group`. Sets cmd.
    void add_seed_flags(CLI::App& cmd, const std::string& group, const std::string& seed_help);
    /// --branches and --async (at least 1 each), in `group`, with the command's own help. Sets cmd.
    void add_concurrency_flags(CLI::App& cmd,
                               const std::string& group,
                               const std::string& branches_help,
                               const std::string& async_help);
    /// --results, --resume and --json-progress in `group`.
    void add_output_flags(CLI::App& cmd, const std::string& group);

    bool given(const std::string& flag) const;
    /// Proposals in flight: N of --async N, else --branches.
    int branch_count() const { return given("--async") ? async : branches; }
    /// user_error for --async with --branches.
    void check_async_or_branches() const;
    /// With --resume: user_error "<why>; FLAG cannot be combined with it" for the first of flags
    /// that was given.
    void refuse_with_resume(std::initializer_list<const char*> flags, const std::string& why) const;

    /// --gpus: every local device for "all" (user_error without one, or with --worker-cmd), else
    /// the listed indices (user_error for a malformed or repeated one).
    std::vector<int> devices() const;
    /// The backend the evaluation flags describe, without devices (devices() may need a GPU, so
    /// the command chooses when to ask).
    executor_backend_options backend_options() const;
    /// run.json "config.evaluation".
    boost::json::object evaluation_config() const;
    /// The hidden validation inputs' seed (SPEC §3: not derivable from the public one): N of
    /// --hidden-seed N, else random, also when --seed is given. Chosen once per session: every
    /// call returns the same value (workload inference and the search load the same inputs). The
    /// engine records it in run.json "config.search.hidden_seed", where --resume reads it back.
    std::uint64_t hidden_seed() const;

private:
    mutable std::optional<std::uint64_t> hidden_seed_;
};

/// Everything one session needs, prepared (and checked) before any worker starts.
struct session_plan
{
    workload work;
    search_options search;
    executor_backend_options backend;
    std::optional<run_directory> run;
    boost::json::object run_info;  ///< run.json as the session starts it.
    std::optional<replayed_run> resume;
};

/// A fresh session's search options from the shared flags: branches or async slots, grace
/// period, confirmation, timing, hidden seed. Budgets and repairs are the command's.
void start_search(search_options& s, const search_session_args& a);

/// Reopens the run of --resume into p: the run directory, run.json (sessions still "running",
/// which were killed, become "aborted"), config.search with --grace-seconds and --confirm-top
/// given anew, the workload and the replayed journal. Returns run.json's "config" for the
/// command's own parts; the command then sets the budgets and p.run_info's "config.search".
/// config.search.nsight.ncu is dropped (ncu is found on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin
/// unless --ncu names it again): a run directory can come from anyone, and that field names a
/// program to run.
boost::json::object reopen_run(session_plan& p, const search_session_args& a);

/// On --resume, a path run.json records that names a program, or a folder outside the run that is
/// read or written (config.provider.candidates, config.llm.replay_from, config.tune.eval_cache), is
/// used only when the user gives it again: user_error "<origin>: config.<field> is '<recorded>';
/// --resume uses it only when you give <flag> <recorded> again (a run directory can come from
/// anyone)" when `given` is empty, "... <flag> '<given>' cannot change it on --resume (start a new
/// run instead)" when it names another place.
void confirm_resumed_path(const std::string& origin,
                          std::string_view field,
                          std::string_view flag,
                          const std::filesystem::path& recorded,
                          const std::optional<std::filesystem::path>& given);

/// run.json of a new run: tool, version, command (when not empty), command line, working
/// directory, config, and no sessions yet (the engine adds them).
boost::json::object new_run_info(std::string_view command, boost::json::object config);

/// The first Ctrl-C of a search: no more proposals (`what`: "proposals", "points"), the GPU
/// finishes its evaluation, the run is finalized; the second aborts with the journal intact.
graceful_interrupt search_interrupt(std::string_view what);

/// What a command adds to a session.
struct session_hooks
{
    /// First line on stderr: "<title> results/run-NNN" ("resuming ..." on --resume).
    std::string title = "run";
    /// Completes the summary once the engine and the backend have stopped (the engine's history
    /// is still there); run_session then writes it as summary.json. Optional.
    std::function<void(const search_engine&, boost::json::object& summary)> complete_summary;
    /// The text printed on stdout at the end without --json-progress.
    std::function<std::string(const boost::json::object& summary)> final_table;
};

/// Runs one session of p with strat on backend (both outlive it) and returns the engine's result,
/// its summary completed. Sets interrupt.stop to the engine's graceful stop while the engine runs.
/// Rethrows what the engine threw, after stopping the backend. Completes on ioc.
boost::asio::awaitable<search_result> run_session(boost::asio::io_context& ioc,
                                                  session_plan& p,
                                                  evaluation_backend& backend,
                                                  strategy& strat,
                                                  bool json_progress,
                                                  graceful_interrupt& interrupt,
                                                  const session_hooks& hooks);

/// The exit code of a session that ended: res.exit_code, or std::runtime_error "the <what>
/// failed: <error> (the journal is intact; --resume RUN continues)" when it failed.
int session_exit_code(const search_result& res, const run_directory& run, std::string_view what);

}  // namespace warpsmith
