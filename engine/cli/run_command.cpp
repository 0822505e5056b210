// warpsmith run: re-executes one replay request (compile, validate, time that case) by hand.

#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/eval_session.hpp"
#include "engine/cli/replay_request.hpp"
#include "engine/run/run_directory.hpp"
#include "harness/core/defaults.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
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

struct run_args
{
    std::string request;
    int device = 0;
    std::string arch;
    std::string out;
    bool json = false;
    int launch_timeout_ms = default_launch_timeout_ms;
    bool no_cache = false;
    bool no_reference = false;
    worker_options worker;
};

void print(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
}

asio::awaitable<int> run_main(asio::io_context& ioc,
                              std::shared_ptr<run_args> args,
                              std::shared_ptr<replay_request> req)
{
    if (!req->tool_version.empty() && req->tool_version != WARPSMITH_VERSION)
        log_warn(args->request + " was written by warpsmith " + req->tool_version + "; this is " +
                 WARPSMITH_VERSION);

    session_options opts;
    opts.device = args->device;
    opts.launch = args->worker.launch();
    if (!args->arch.empty())
        opts.arch = args->arch;
    opts.launch_timeout = std::chrono::milliseconds(args->launch_timeout_ms);
    opts.use_cache = !args->no_cache;

    eval_session session(ioc, opts);
    co_await session.start();
    co_await session.load(req->w, req->hidden_seed);
    std::vector<std::string> cases{req->case_name};
    // The reference on the same case gives the speedup column; a validate-only request has no timing.
    std::optional<kernel_run> ref;
    if (!req->validate_only && !args->no_reference)
        ref = co_await session.run(
            "reference", candidate::from_kernel(req->w.reference), req->timing, cases, false);
    kernel_run cand = co_await session.run(req->name, req->cand, req->timing, cases, req->validate_only);
    json::object hello = session.hello();
    co_await session.stop();

    const protocol::evaluation_result* ref_result = ref && ref->valid() ? &ref->gpu.result : nullptr;
    eval_report report = make_eval_report(req->name, cand.gpu.result, ref_result, nullptr);
    fs::path out = args->out.empty() ? claim_numbered_dir("results", "replay") : fs::path(args->out);
    ensure_dir(out);
    json::object doc = result_document(
        "run", req->w, cand, ref ? &*ref : nullptr, nullptr, report, req->timing, req->hidden_seed, hello);
    doc["case"] = req->case_name;
    doc["request"] = args->request;
    write_json_file(out / "result.json", doc);
    if (args->json)
        print(pretty_json(doc));
    else
    {
        print(terminal_text(render_eval_report(report)));
        print("wrote " + (out / "result.json").string() + "\n");
    }
    co_return report.status == "valid" ? 0 : 1;
}

}  // namespace

void add_run_command(CLI::App& app)
{
    auto args = std::make_shared<run_args>();
    CLI::App* cmd =
        app.add_subcommand("run", "Re-execute one replay request (compile, validate, time one case)");
    cmd->add_option("REQUEST", args->request, "A replay request (requests/<case>.json of an eval or a run)")
        ->required();
    cmd->add_option("--device", args->device, "CUDA device index (default 0)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--arch", args->arch, "Compile for this architecture (default: the device's)");
    cmd->add_option(
        "--out", args->out, "Output directory (default: results/replay-NNN, the next free number)");
    cmd->add_flag("--json", args->json, "Print result.json instead of the table");
    cmd->add_option("--launch-timeout-ms",
                    args->launch_timeout_ms,
                    "A launch running longer is a hang (the worker restarts); default " +
                        std::to_string(default_launch_timeout_ms))
        ->check(CLI::Range(1, 86400000));
    cmd->add_flag("--no-reference", args->no_reference, "Do not time the reference for the speedup column");
    cmd->add_flag("--no-cache", args->no_cache, "Do not use the on-disk compile cache");
    args->worker.add_to(*cmd);
    cmd->footer(
        "Example:\n  warpsmith run results/run-003/candidates/c0007/requests/4096x2048x1024.json\n"
        "The request carries the workload, the candidate, the timing options and the hidden seed, so the\n"
        "case sees the same inputs as when it was recorded.\n"
        "Exit codes: 0 valid; 1 invalid; 2 bad input (malformed request) or no GPU.");
    auto run = [args]
    {
        json::value v = read_json_file(args->request);
        auto req = std::make_shared<replay_request>(
            replay_request::from_json(v, args->request, fs::absolute(args->request).parent_path()));
        auto body = [args, req](asio::io_context& ioc) { return run_main(ioc, args, req); };
        exit_with(run_async(body));
    };
    cmd->callback(run);
}

}  // namespace warpsmith
