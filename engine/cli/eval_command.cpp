// warpsmith eval: compile a kernel, validate it on every case of a workload and time it next to the
// reference (and the initial kernel), print a per-case table, write result.json and replay requests.
// With --sanitize, the candidate is then evaluated once more per compute-sanitizer tool, validate-only
// on the correctness cases, with the worker running under the tool (docs/hardening.md).

#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/eval_session.hpp"
#include "engine/cli/kernel_args.hpp"
#include "engine/cli/kernel_entry.hpp"
#include "engine/cli/replay_request.hpp"
#include "engine/cli/timing_args.hpp"
#include "engine/executors/sanitizer.hpp"
#include "engine/executors/worker_process.hpp"
#include "engine/run/run_directory.hpp"
#include "harness/core/defaults.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/core/terminal_text.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

struct eval_args
{
    std::string workload_path;
    kernel_args kernel;
    int device = 0;
    std::string arch;
    timing_args timing;
    std::string out;
    bool json = false;
    int launch_timeout_ms = default_launch_timeout_ms;
    std::optional<std::uint64_t> hidden_seed;
    bool no_cache = false;
    std::string sanitize;  ///< --sanitize[=TOOLS]: "" off, "all", or a list.
    worker_options worker;
};

/// What eval needs, read and checked before any worker starts (bad input fails fast).
struct eval_plan
{
    workload w;
    candidate cand;
    std::string name;
    timing_options timing;
    std::uint64_t hidden_seed = 0;
    session_options session;
    std::vector<sanitizer_tool> sanitize;  ///< Empty: no sanitizer passes.
    std::filesystem::path sanitizer;       ///< compute-sanitizer, when sanitize is not empty.
};

eval_plan make_plan(const eval_args& a)
{
    eval_plan p;
    p.w = workload::load(a.workload_path);
    p.cand = a.kernel.make_candidate(p.w);
    p.name = a.kernel.candidate_name();
    p.timing = a.timing.options();
    p.hidden_seed = a.hidden_seed ? *a.hidden_seed : random_hidden_seed();
    p.session.device = a.device;
    p.session.launch = a.worker.launch();
    if (!a.arch.empty())
        p.session.arch = a.arch;
    p.session.launch_timeout = std::chrono::milliseconds(a.launch_timeout_ms);
    p.session.use_cache = !a.no_cache;
    if (!a.sanitize.empty())
    {
        p.sanitize = parse_sanitizer_tools(a.sanitize == "all" ? "" : a.sanitize);
        if (!a.worker.worker_cmd.empty())
            throw user_error(
                "--sanitize runs warpsmith-worker locally under compute-sanitizer; it cannot be "
                "combined with --worker-cmd");
        std::optional<fs::path> tool = find_compute_sanitizer(sanitizer_search_dirs());
        if (!tool)
            throw user_error(sanitizer_not_found_message);
        p.sanitizer = *tool;
    }
    return p;
}

/// The workload of a sanitizer pass: the correctness cases only (instrumented kernels run 10-100x
/// slower, and boundary bugs show on the odd-sized correctness cases), or the first case when there
/// is no correctness case.
workload sanitizer_workload(const workload& w)
{
    workload out = w;
    out.cases.clear();
    for (const workload_case& c : w.cases)
        if (c.role == case_role::correctness)
            out.cases.push_back(c);
    if (out.cases.empty() && !w.cases.empty())
        out.cases.push_back(w.cases.front());
    return out;
}

/// Waits until the logs of `tool` stop growing (the tool writes them from its own process).
asio::awaitable<void> settle_logs(sanitizer_tool tool, fs::path dir)
{
    asio::steady_timer timer(co_await asio::this_coro::executor);
    auto last = snapshot_sanitizer_logs(tool, dir);
    for (int i = 0, stable = 0; i < 30 && stable < 2; ++i)
    {
        timer.expires_after(std::chrono::milliseconds(100));
        co_await timer.async_wait(asio::use_awaitable);
        auto now = snapshot_sanitizer_logs(tool, dir);
        stable = now == last ? stable + 1 : 0;
        last = std::move(now);
    }
}

/// One tool: a worker under compute-sanitizer, the workload's correctness cases loaded, the
/// candidate evaluated validate-only, the logs read and attributed. A tool that cannot run (refuses
/// the device, the worker does not start) is reported, never fatal: the eval's own results stand.
asio::awaitable<sanitizer_summary> sanitize_pass(asio::io_context& ioc,
                                                 const eval_plan& plan,
                                                 sanitizer_tool tool,
                                                 fs::path log_dir)
{
    sanitizer_command_options o;
    o.sanitizer = plan.sanitizer;
    o.tool = tool;
    o.log_dir = log_dir;
    o.worker_binary = plan.session.launch.worker_binary.empty() ? worker_launch::default_worker_binary()
                                                                : plan.session.launch.worker_binary;
    o.worker_args = plan.session.launch.extra_args;
    session_options opts = plan.session;
    opts.launch = worker_launch{};
    opts.launch.command = sanitizer_worker_command(o);
    // Instrumented kernels run 10-100x slower (racecheck more); a hang is still a hang, later.
    opts.launch_timeout =
        std::max<std::chrono::milliseconds>(plan.session.launch_timeout * 10, std::chrono::minutes(2));

    const workload w = sanitizer_workload(plan.w);
    candidate cand = plan.cand;
    for (auto it = cand.overrides.begin(); it != cand.overrides.end();)
        it = w.find_case(it->first) ? std::next(it) : cand.overrides.erase(it);

    std::vector<std::pair<std::string, std::size_t>> at_start;
    std::string error, status, failure_kind;
    bool ran = false;
    try
    {
        eval_session session(ioc, opts);
        co_await session.start();
        co_await session.load(w, plan.hidden_seed);
        co_await settle_logs(tool, log_dir);
        at_start = snapshot_sanitizer_logs(tool, log_dir);
        std::vector<std::string> all;
        kernel_run run = co_await session.run(plan.name, cand, plan.timing, all, true);
        co_await session.stop();
        ran = true;
        status = run.gpu.result.valid() ? "valid" : "invalid";
        failure_kind = run.gpu.result.failure_kind();
    }
    catch (const user_error& e)
    {
        error = one_line(e.what());
    }
    catch (const boost::system::system_error& e)
    {
        // A worker that died, broke the protocol or timed out under the tool is a finding about
        // the tool run; anything else (Ctrl-C, an executor that stopped) ends the eval.
        const std::optional<errc> k = worker_errc(e);
        if (!k || (*k != errc::worker_exited && *k != errc::worker_protocol && *k != errc::worker_timeout))
            throw;
        error = one_line(e.what());
    }
    co_await settle_logs(tool, log_dir);
    sanitizer_summary summary =
        summarize_sanitizer(tool, read_sanitizer_logs(tool, log_dir, at_start), cand.entry);
    summary.ran = ran;
    summary.error = error;
    summary.status = status;
    summary.failure_kind = failure_kind;
    co_return summary;
}

void print(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
}

asio::awaitable<int> eval_main(asio::io_context& ioc,
                               std::shared_ptr<eval_args> args,
                               std::shared_ptr<eval_plan> plan)
{
    eval_session session(ioc, plan->session);
    co_await session.start();
    co_await session.load(plan->w, plan->hidden_seed);
    std::vector<std::string> all;
    kernel_run ref = co_await session.run(
        "reference", candidate::from_kernel(plan->w.reference), plan->timing, all, false);
    if (!ref.valid())
        log_warn("the workload's reference did not validate against itself: " +
                 (ref.gpu.result.failure ? ref.gpu.result.failure->text() : std::string("invalid")));
    std::optional<kernel_run> init;
    if (plan->w.initial)
        init = co_await session.run(
            "initial", candidate::from_kernel(*plan->w.initial), plan->timing, all, false);
    kernel_run cand = co_await session.run(plan->name, plan->cand, plan->timing, all, false);
    json::object hello = session.hello();
    co_await session.stop();

    const protocol::evaluation_result* ref_result = ref.valid() ? &ref.gpu.result : nullptr;
    const protocol::evaluation_result* init_result = init && init->valid() ? &init->gpu.result : nullptr;
    eval_report report = make_eval_report(plan->name, cand.gpu.result, ref_result, init_result);
    report.has_initial = init.has_value();

    // Claimed only now, so that an eval that cannot start (no GPU) leaves no empty directory.
    fs::path out = args->out.empty() ? claim_numbered_dir("results", "eval") : fs::path(args->out);
    ensure_dir(out);
    json::object doc = result_document(
        "eval", plan->w, cand, &ref, init ? &*init : nullptr, report, plan->timing, plan->hidden_seed, hello);

    std::vector<sanitizer_summary> sanitized;
    bool sanitizer_clean = true;
    if (!plan->sanitize.empty())
    {
        const fs::path log_dir = out / "sanitizer";
        ensure_dir(log_dir);
        json::object findings;
        for (sanitizer_tool tool : plan->sanitize)
        {
            sanitizer_summary s = co_await sanitize_pass(ioc, *plan, tool, log_dir);
            sanitizer_clean = sanitizer_clean && s.errors == 0;
            findings[to_string(tool)] = s.to_json();
            sanitized.push_back(std::move(s));
        }
        doc["sanitizer"] = std::move(findings);
    }
    write_json_file(out / "result.json", doc);
    for (const auto& c : plan->w.cases)
    {
        replay_request r;
        r.name = plan->name;
        r.case_name = c.name;
        r.validate_only = c.role == case_role::correctness;
        r.hidden_seed = plan->hidden_seed;
        r.timing = plan->timing;
        r.cand = plan->cand;
        r.w = plan->w;
        write_json_file(out / "requests" / (file_name_for_case(c.name) + ".json"), r.to_json());
    }

    if (args->json)
        print(pretty_json(doc));
    else
    {
        print(terminal_text(render_eval_report(report)));
        if (!sanitized.empty())
            print(terminal_text(render_sanitizer_report(sanitized)));
        print("wrote " + (out / "result.json").string() + " and " + (out / "requests").string() + "/\n");
    }
    co_return report.status == "valid" && sanitizer_clean ? 0 : 1;
}

}  // namespace

void add_eval_command(CLI::App& app)
{
    auto args = std::make_shared<eval_args>();
    CLI::App* cmd =
        app.add_subcommand("eval", "Validate and time one kernel on a workload, next to its reference");
    cmd->add_option("WORKLOAD",
                    args->workload_path,
                    "Workload directory (with workload.json), JSON file, or the name of a bundled one")
        ->required()
        ->transform(bundled_workload());
    args->kernel.add_to(*cmd, "The kernel to evaluate (CUDA source)");
    cmd->add_option("--device", args->device, "CUDA device index (default 0)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--arch", args->arch, "Compile for this architecture (default: the device's)");
    args->timing.add_to(*cmd);
    cmd->add_option("--out", args->out, "Output directory (default: results/eval-NNN, the next free number)");
    cmd->add_flag("--json", args->json, "Print result.json instead of the table");
    cmd->add_option("--launch-timeout-ms",
                    args->launch_timeout_ms,
                    "A launch running longer is a hang (the worker restarts); default " +
                        std::to_string(default_launch_timeout_ms))
        ->check(CLI::Range(1, 86400000));
    cmd->add_option("--hidden-seed", args->hidden_seed, "Seed of the hidden inputs (default: random)");
    cmd->add_flag("--no-cache", args->no_cache, "Do not use the on-disk compile cache");
    cmd->add_flag(
        "--sanitize{all}",
        args->sanitize,
        "Also run the candidate once per compute-sanitizer tool (validate-only, correctness cases): "
        "--sanitize for memcheck, racecheck and initcheck, or --sanitize=memcheck,racecheck");
    args->worker.add_to(*cmd);
    cmd->footer(
        "Example:\n  warpsmith eval bench/workloads/sgemm --kernel my_sgemm.cu --launch my_launch.json\n"
        "  warpsmith eval bench/workloads/sgemm --kernel my_sgemm.cu --sanitize=memcheck,racecheck\n"
        "Writes result.json and requests/<case>.json (replay with 'warpsmith run'); with --sanitize also\n"
        "sanitizer/<tool>-<pid>.log and a \"sanitizer\" object in result.json.\n"
        "Exit codes: 0 valid; 1 invalid (compile error, wrong result, fault, hang) or a sanitizer error in\n"
        "the candidate; 2 bad input, no GPU, or --sanitize without compute-sanitizer.");
    auto run = [args]
    {
        auto plan = std::make_shared<eval_plan>(make_plan(*args));
        auto body = [args, plan](asio::io_context& ioc) { return eval_main(ioc, args, plan); };
        exit_with(run_async(body));
    };
    cmd->callback(run);
}

}  // namespace warpsmith
