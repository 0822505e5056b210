// warpsmith profile: one candidate on one case under Nsight Compute (docs/nsight.md). The kernel is
// first validated on that case by an ordinary worker; then a single-shot worker under ncu
// validates it again and profiles exactly its repeat validation launch. Prints the summary table,
// writes the .ncu-rep and a JSON summary.

#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/eval_session.hpp"
#include "engine/cli/kernel_args.hpp"
#include "engine/profile/ncu_tool.hpp"
#include "engine/profile/profiler.hpp"
#include "engine/run/run_directory.hpp"
#include "harness/core/defaults.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/terminal_text.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

struct profile_args
{
    std::string workload_path;
    kernel_args kernel;
    std::string case_name;
    std::vector<std::string> sections;
    std::string ncu;
    int profile_timeout_ms = 180000;
    int device = 0;
    std::string arch;
    std::string out;
    bool json = false;
    int launch_timeout_ms = default_launch_timeout_ms;
    std::optional<std::uint64_t> hidden_seed;
    bool no_cache = false;
    worker_options worker;
};

void print(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
}

struct profile_plan
{
    workload w;
    candidate cand;
    std::string name;
    std::string case_name;
    std::uint64_t hidden_seed = 0;
    session_options session;
    profiler_options profiler;
};

profile_plan make_plan(const profile_args& a)
{
    profile_plan p;
    p.w = workload::load(a.workload_path);
    p.cand = a.kernel.make_candidate(p.w);
    p.name = a.kernel.candidate_name();
    p.case_name = a.case_name.empty() ? largest_performance_case(p.w) : a.case_name;
    if (!p.w.find_case(p.case_name))
    {
        std::string names;
        for (const workload_case& c : p.w.cases)
            names += (names.empty() ? "" : ", ") + c.name;
        throw user_error("--case " + a.case_name + ": not a case of workload '" + p.w.name + "' (" + names +
                         ")");
    }
    p.hidden_seed = a.hidden_seed ? *a.hidden_seed : random_hidden_seed();
    p.session.device = a.device;
    p.session.launch = a.worker.launch();
    if (p.session.launch.command)
        throw user_error(
            "profile runs warpsmith-worker locally under ncu; it cannot be combined with --worker-cmd");
    if (!a.arch.empty())
        p.session.arch = a.arch;
    p.session.launch_timeout = std::chrono::milliseconds(a.launch_timeout_ms);
    p.session.use_cache = !a.no_cache;
    if (!a.ncu.empty())
        p.profiler.ncu = a.ncu;
    p.profiler.sections = a.sections;
    p.profiler.timeout = std::chrono::milliseconds(a.profile_timeout_ms);
    p.profiler.launch_timeout = p.session.launch_timeout;
    // Before any GPU work: a missing ncu is one line and exit 2.
    std::vector<std::string> looked;
    if (!find_ncu(p.profiler.ncu, &looked))
        throw user_error(ncu_missing_message(looked));
    return p;
}

asio::awaitable<int> profile_main(asio::io_context& ioc,
                                  std::shared_ptr<profile_args> args,
                                  std::shared_ptr<profile_plan> plan)
{
    // The ordinary worker first: the compile (cubin, spills) and a validation on the case, so that
    // an invalid kernel is reported as such and never profiled.
    eval_session session(ioc, plan->session);
    co_await session.start();
    co_await session.load(plan->w, plan->hidden_seed);
    // Named locals, not braced lists, inside co_await (g++ 12, STYLE.md habit 8).
    std::vector<std::string> cases{plan->case_name};
    timing_options timing;
    kernel_run run = co_await session.run(plan->name, plan->cand, timing, cases, true);
    co_await session.stop();
    if (!run.valid())
    {
        std::string why =
            run.compile.compiled ? "failed validation" : "did not compile: " + run.compile.error;
        if (run.gpu.result.failure)
            why = "failed validation: " + run.gpu.result.failure->message;
        print(terminal_text(args->kernel.kernel + ": not profiled: " + why + "\n"));
        co_return 1;
    }

    fs::path out = args->out.empty() ? claim_numbered_dir("results", "profile") : fs::path(args->out);
    ensure_dir(out);
    profile_job job;
    job.w = &plan->w;
    job.hidden_seed = plan->hidden_seed;
    job.request.name = plan->name;
    job.request.cand = plan->cand;
    job.request.cubin = run.compile.cubin;
    job.request.local_memory = run.compile.local_memory;
    job.case_name = plan->case_name;
    job.launch = plan->session.launch;
    job.device = plan->session.device;
    job.output_base = out / (plan->name + "-" + plan->case_name);
    job.spill_stores_bytes = run.compile.resources.spill_stores_bytes;
    job.spill_loads_bytes = run.compile.resources.spill_loads_bytes;
    profile_outcome p = co_await run_profile(ioc.get_executor(), plan->profiler, std::move(job));
    if (!p.ok)
    {
        print(terminal_text("profile: " + p.message + "\n"));
        co_return p.error_kind == "invalid" ? 1 : 2;
    }
    if (args->json)
        print(pretty_json(read_json_file(p.json_path)));
    else
    {
        print(terminal_text("case         " + p.case_name + "\n"));
        print(terminal_text(p.summary->render_table()));
        print("wrote " + p.report_path.string() + " and " + p.json_path.string() + " (" +
              std::to_string(static_cast<long long>(p.wall_ms)) + " ms under ncu)\n");
    }
    co_return 0;
}

}  // namespace

void add_profile_command(CLI::App& app)
{
    auto args = std::make_shared<profile_args>();
    CLI::App* cmd = app.add_subcommand(
        "profile",
        "Profile one kernel on one case under Nsight Compute (counters, occupancy, stalls, hints)");
    cmd->add_option("WORKLOAD",
                    args->workload_path,
                    "Workload directory (with workload.json), JSON file, or the name of a bundled one")
        ->required()
        ->transform(bundled_workload());
    args->kernel.add_to(*cmd, "The kernel to profile (CUDA source)");
    cmd->add_option("--case", args->case_name, "The case to profile (default: the largest performance case)");
    cmd->add_option("--section",
                    args->sections,
                    "An ncu section to collect (repeatable; default: SpeedOfLight, MemoryWorkloadAnalysis, "
                    "Occupancy, LaunchStats, WarpStateStats, ComputeWorkloadAnalysis, SchedulerStats)");
    cmd->add_option(
        "--ncu", args->ncu, "Nsight Compute's ncu (default: on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
    cmd->add_option("--profile-timeout-ms",
                    args->profile_timeout_ms,
                    "Give up on the profile after this long (default 180000)")
        ->check(CLI::Range(1000, 86400000));
    cmd->add_option("--device", args->device, "CUDA device index (default 0)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--arch", args->arch, "Compile for this architecture (default: the device's)");
    cmd->add_option(
        "--out", args->out, "Output directory (default: results/profile-NNN, the next free number)");
    cmd->add_flag("--json", args->json, "Print the JSON summary instead of the table");
    cmd->add_option("--launch-timeout-ms",
                    args->launch_timeout_ms,
                    "A launch running longer is a hang; default " + std::to_string(default_launch_timeout_ms))
        ->check(CLI::Range(1, 86400000));
    cmd->add_option("--hidden-seed", args->hidden_seed, "Seed of the hidden inputs (default: random)");
    cmd->add_flag("--no-cache", args->no_cache, "Do not use the on-disk compile cache");
    args->worker.add_to(*cmd);
    cmd->footer(
        "Example:\n  warpsmith profile bench/workloads/sgemm --kernel bench/workloads/sgemm/initial.cu\n"
        "  warpsmith profile bench/workloads/elementwise --kernel my.cu --case 16384x4096 --json\n"
        "The profiled launch is the kernel's repeat validation launch on the case: same validated inputs,\n"
        "output checked. ncu runs with --clock-control none (the GPU's clocks are left alone).\n"
        "Writes <out>/<kernel>-<case>.ncu-rep (open it in Nsight Compute) and <kernel>-<case>.json.\n"
        "Exit codes: 0 profiled; 1 the kernel is invalid on the case; 2 bad input, no GPU, ncu missing,\n"
        "counters not permitted, an ncu whose output cannot be read, or a profile that timed out.");
    auto run = [args]
    {
        auto plan = std::make_shared<profile_plan>(make_plan(*args));
        auto body = [args, plan](asio::io_context& ioc) { return profile_main(ioc, args, plan); };
        exit_with(run_async(body));
    };
    cmd->callback(run);
}

}  // namespace warpsmith
