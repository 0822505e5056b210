#include "engine/cli/search_session.hpp"

#include "engine/cli/eval_session.hpp"
#include "engine/report/run_report.hpp"
#include "engine/run/journal.hpp"
#include "engine/search/clock.hpp"
#include "engine/search/progress.hpp"
#include "harness/core/defaults.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/core/terminal_text.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/serialize.hpp>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

/// argv of this process, for run.json.
json::array command_line()
{
    json::array out;
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string arg;
    while (std::getline(f, arg, '\0'))
        out.emplace_back(arg);
    return out;
}

void write_stdout(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
}

}  // namespace

void search_session_args::add_evaluation_flags(CLI::App& c,
                                               const std::string& group,
                                               const std::string& confirm_help)
{
    cmd = &c;
    const auto positive = number_check(0, true);
    const auto non_negative = number_check(0, false);
    c.add_option("--gpus", gpus, "GPUs to use: all (default) or a list like 0,2,3")->group(group);
    worker.add_to(c);
    for (const char* f : {"--worker", "--worker-cmd", "--worker-arg"})
        c.get_option(f)->group(group);
    c.add_option("--compile-workers", compile_workers, "Compile worker processes (default: CPU threads)")
        ->check(non_negative)
        ->group(group);
    c.add_flag("--in-process-compile",
               in_process_compile,
               "Compile with NVRTC in this process instead of compile workers (small machines; no "
               "isolation: a kernel that crashes NVRTC ends the run, and --resume with this flag "
               "compiles it again)")
        ->group(group);
    c.add_option("--compile-memory-mib",
                 compile_memory_mib,
                 "Memory limit of each compile worker in MiB, 0 for none (default " +
                     std::to_string(default_compile_memory_mib) +
                     "); a kernel whose compile needs more fails")
        ->group(group);
    timing.add_to(c, group);
    c.add_option(
         "--launch-timeout-ms",
         launch_timeout_ms,
         "A launch running longer is a hang (default " + std::to_string(default_launch_timeout_ms) + ")")
        ->check(positive)
        ->group(group);
    c.add_option("--confirm-top", confirm_top, confirm_help)->check(non_negative)->group(group);
    c.add_flag(
         "--no-measure",
         no_measure,
         "Do not measure copy bandwidth and FP32 rate at start (the roofline then uses datasheet figures)")
        ->group(group);
}

void search_session_args::add_seed_flags(CLI::App& c, const std::string& group, const std::string& seed_help)
{
    cmd = &c;
    c.add_option("--seed", seed, seed_help)->group(group);
    c.add_option("--hidden-seed",
                 hidden_seed_flag,
                 "Seed of the hidden validation inputs (default random, also with --seed: the public seed "
                 "never reveals them; kept in run.json for --resume)")
        ->group(group);
}

void search_session_args::add_concurrency_flags(CLI::App& c,
                                                const std::string& group,
                                                const std::string& branches_help,
                                                const std::string& async_help)
{
    cmd = &c;
    c.add_option("--branches", branches, branches_help)->check(number_check(1, false))->group(group);
    c.add_option("--async", async, async_help)->check(number_check(1, false))->group(group);
}

void search_session_args::add_output_flags(CLI::App& c, const std::string& group)
{
    c.add_option("--results", results, "Where run-NNN directories go (default results)")->group(group);
    c.add_option("--resume", resume, "Continue results/run-NNN from its journal")->group(group);
    c.add_flag("--json-progress",
               json_progress,
               "Machine-readable progress events and the summary on stdout (JSON lines)")
        ->group(group);
}

bool search_session_args::given(const std::string& flag) const
{
    return cmd->get_option(flag)->count() > 0;
}

void search_session_args::check_async_or_branches() const
{
    if (given("--async") && given("--branches"))
        throw user_error(
            "--async N replaces --branches (N proposals in flight, no iteration barrier); give one of them");
}

void search_session_args::refuse_with_resume(std::initializer_list<const char*> flags,
                                             const std::string& why) const
{
    for (const char* f : flags)
        if (given(f))
            throw user_error(why + "; " + f + " cannot be combined with it");
}

std::vector<int> search_session_args::devices() const
{
    if (gpus == "all")
    {
        if (!worker.worker_cmd.empty())
            throw user_error(
                "--gpus all counts local GPUs; with --worker-cmd name the devices (e.g. --gpus 0,1)");
        const int n = cuda::device_count();
        if (n <= 0)
            throw user_error("no CUDA device found (--gpus all)");
        std::vector<int> all(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            all[static_cast<std::size_t>(i)] = i;
        return all;
    }
    std::vector<int> out;
    std::set<int> seen;
    std::stringstream ss(gpus);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        int d = -1;
        try
        {
            std::size_t used = 0;
            d = std::stoi(item, &used);
            if (used != item.size())
                d = -1;
        }
        catch (const std::exception&)
        {
        }
        if (d < 0)
            throw user_error("--gpus " + gpus + ": expected 'all' or device indices like 0,2,3");
        if (!seen.insert(d).second)
            throw user_error("--gpus " + gpus + ": device " + std::to_string(d) + " is listed twice");
        out.push_back(d);
    }
    if (out.empty())
        throw user_error("--gpus " + gpus + ": expected 'all' or device indices like 0,2,3");
    return out;
}

executor_backend_options search_session_args::backend_options() const
{
    executor_backend_options b;
    b.launch = worker.launch();
    b.compile.workers = compile_workers;
    b.compile.in_process = in_process_compile;
    b.compile.memory_limit_mib = compile_memory_mib;
    b.gpu.launch_timeout = std::chrono::milliseconds(launch_timeout_ms);
    b.measure = !no_measure;
    return b;
}

json::object search_session_args::evaluation_config() const
{
    return json::object{{"gpus", gpus},
                        {"worker", worker.worker},
                        {"worker_cmd", worker.worker_cmd},
                        {"compile_workers", compile_workers},
                        {"in_process_compile", in_process_compile},
                        {"compile_memory_mib", compile_memory_mib},
                        {"launch_timeout_ms", launch_timeout_ms}};
}

std::uint64_t search_session_args::hidden_seed() const
{
    // Never derived from --seed: a strategy seed is public (command lines, run.json, bench suites),
    // and hidden inputs that follow from it could be regenerated by anyone who reads it.
    if (!hidden_seed_)
        hidden_seed_ = given("--hidden-seed") ? hidden_seed_flag : random_hidden_seed();
    return *hidden_seed_;
}

void start_search(search_options& s, const search_session_args& a)
{
    s.branches = a.branch_count();
    s.async = a.given("--async");
    s.grace_seconds = a.grace_seconds;
    s.confirm_top = a.confirm_top;
    s.timing = a.timing.options();
    s.hidden_seed = a.hidden_seed();
}

json::object reopen_run(session_plan& p, const search_session_args& a)
{
    p.run = run_directory::open(a.resume);
    const auto origin = p.run->run_json_path().string();
    json::value run_json = read_json_file(p.run->run_json_path());
    try
    {
        // run.json is the run's record: a config that is absent or malformed stops the resume with
        // the field at fault ("run-001/run.json: config.search.branches: must be an integer, ...").
        const json_reader run(run_json, json_location(origin, {}, json_style::record));
        if (!run.find("config"))
            throw user_error(origin + ": 'config' is missing; cannot resume");
        p.search = search_options::from_json(run.nested("config").require("search"), origin);
    }
    catch (const json_error& e)
    {
        throw user_error(e.what());
    }
    // A program to run, named by a file that may come from anyone: found anew (or --ncu).
    p.search.nsight.profiler.ncu.reset();
    if (a.given("--grace-seconds"))
        p.search.grace_seconds = a.grace_seconds;
    if (a.given("--confirm-top"))
        p.search.confirm_top = a.confirm_top;
    // The run's own self-contained copy, written by warpsmith: input files by absolute path.
    p.work = workload::load(p.run->workload_dir() / "workload.json", file_scope::self_contained);
    p.resume = replay_events(read_journal(p.run->journal_path()).events);
    p.run_info = std::move(run_json.get_object());
    // A session still "running" was killed (it never wrote its end).
    if (json::value* sessions = p.run_info.if_contains("sessions"); sessions && sessions->is_array())
        for (json::value& s : sessions->get_array())
            if (lenient::string_at(s, "status") == "running")
                s.get_object()["status"] = "aborted";
    return p.run_info["config"].get_object();
}

void confirm_resumed_path(const std::string& origin,
                          std::string_view field,
                          std::string_view flag,
                          const fs::path& recorded,
                          const std::optional<fs::path>& given)
{
    if (!given)
        throw user_error(origin + ": config." + std::string(field) + " is '" + recorded.string() +
                         "'; --resume uses it only when you give " + std::string(flag) + " " +
                         recorded.string() + " again (a run directory can come from anyone)");
    std::error_code ec1, ec2;
    const auto a = fs::weakly_canonical(fs::absolute(*given), ec1);
    const auto b = fs::weakly_canonical(fs::absolute(recorded), ec2);
    if (ec1 || ec2 || a != b)
        throw user_error(origin + ": config." + std::string(field) + " is '" + recorded.string() + "'; " +
                         std::string(flag) + " '" + given->string() +
                         "' cannot change it on --resume (start a new run instead)");
}

json::object new_run_info(std::string_view command, json::object config)
{
    json::object o{{"tool", "warpsmith"}, {"version", WARPSMITH_VERSION}};
    if (!command.empty())
        o["command"] = command;
    o["command_line"] = command_line();
    o["cwd"] = fs::current_path().string();
    o["config"] = std::move(config);
    o["sessions"] = json::array{};
    return o;
}

graceful_interrupt search_interrupt(std::string_view what)
{
    graceful_interrupt g;
    g.notice = "interrupted: no more " + std::string(what) +
               "; the GPU finishes its current evaluation, then the run is finalized. Ctrl-C again to abort "
               "at once.";
    // Every journal event is already on disk (one write(2) each): aborting loses nothing.
    g.abort_notice = "aborted; the journal is intact (--resume continues)";
    return g;
}

asio::awaitable<search_result> run_session(asio::io_context& ioc,
                                           session_plan& p,
                                           evaluation_backend& backend,
                                           strategy& strat,
                                           bool json_progress,
                                           graceful_interrupt& interrupt,
                                           const session_hooks& hooks)
{
    steady_clock_source clock;
    const std::int64_t next_seq = p.resume ? p.resume->next_seq : 1;
    journal_writer journal(p.run->journal_path(), next_seq);
    const auto mode = json_progress             ? progress_mode::json
                      : ::isatty(STDERR_FILENO) ? progress_mode::tty
                                                : progress_mode::plain;
    progress_reporter progress(mode, mode == progress_mode::json ? stdout : stderr);
    if (mode != progress_mode::json)
        std::fprintf(stderr, "%s %s\n", p.resume ? "resuming" : hooks.title.c_str(), p.run->path().c_str());

    search_engine engine(
        ioc, backend, strat, clock, p.work, p.search, *p.run, journal, p.run_info, &progress);
    interrupt.stop = [&engine] { engine.request_stop("interrupted", true); };
    search_result res;
    std::exception_ptr error;
    try
    {
        res = co_await engine.run(std::move(p.resume));
    }
    catch (...)
    {
        error = std::current_exception();
    }
    interrupt.stop = nullptr;
    progress.finish();
    co_await backend.stop();
    if (error)
        std::rethrow_exception(error);

    if (hooks.complete_summary)
    {
        hooks.complete_summary(engine, res.summary);
        try
        {
            p.run->write_json("summary.json", res.summary);
        }
        catch (const std::exception& e)
        {
            log_warn(std::string("cannot write summary.json: ") + e.what());
        }
    }
    report::write_run_report_noexcept(p.run->path());  // heatmap.svg/.png, report.html (docs/reports.md)
    if (mode == progress_mode::json)
        write_stdout(to_json_text(json::object{
                         {"type", "summary"}, {"run", p.run->path().string()}, {"summary", res.summary}}) +
                     "\n");
    else if (hooks.final_table)
        write_stdout(terminal_text(hooks.final_table(res.summary)));
    co_return res;
}

int session_exit_code(const search_result& res, const run_directory& run, std::string_view what)
{
    if (res.status == "failed")
        throw std::runtime_error("the " + std::string(what) + " failed: " + res.error +
                                 " (the journal is intact; --resume " + run.path().string() + " continues)");
    return res.exit_code;
}

}  // namespace warpsmith
