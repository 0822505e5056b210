// warpsmith compile: NVRTC in this process on a thread closed by Landlock (no GPU needed), resource
// usage and log.

#include "agents/llm/credentials.hpp"
#include "agents/strategies/llm_setup.hpp"
#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/eval_session.hpp"
#include "engine/cli/kernel_entry.hpp"
#include "harness/compile/compile_cache.hpp"
#include "harness/compile/compile_options.hpp"
#include "harness/compile/compile_sandbox.hpp"
#include "harness/compile/compile_thread.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/core/secret_redaction.hpp"
#include "harness/core/terminal_text.hpp"

#include <boost/json/value_from.hpp>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

namespace warpsmith
{

namespace fs = std::filesystem;

namespace
{

struct compile_args
{
    std::string kernel;
    std::string arch = "sm_90";
    std::string entry;
    std::vector<std::string> defines;
    std::vector<std::string> options;
    bool json = false;
    bool no_cache = false;
    std::string cache_dir;
    std::string output;
};

void print(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
}

std::string render(const compile_args& a, const compile_request& req, const compile_output& out)
{
    const auto& r = out.resources;
    char line[512];
    std::string s;
    if (out.compiled)
    {
        std::snprintf(line,
                      sizeof line,
                      "%s: compiled '%s' for %s in %.1f ms%s\n",
                      a.kernel.c_str(),
                      req.entry.c_str(),
                      out.arch.c_str(),
                      out.compile_ms,
                      out.cache_hit ? " (cache hit)" : "");
        s += line;
        std::snprintf(
            line,
            sizeof line,
            "  registers %d, spill stores %d B, spill loads %d B, static shared %d B, local (stack) %d B, "
            "barriers %d, constant %d B, cubin %zu B\n",
            r.registers,
            r.spill_stores_bytes,
            r.spill_loads_bytes,
            r.static_shared_bytes,
            r.stack_frame_bytes,
            r.barriers,
            r.constant_bytes,
            out.cubin.size());
        s += line;
    }
    else
        s += a.kernel + ": did not compile: " + out.error + "\n";
    if (!out.log.empty())
    {
        s += "log:\n" + out.log;
        if (s.back() != '\n')
            s += '\n';
    }
    return s;
}

int compile_main(const compile_args& a)
{
    std::string source = read_text_file(a.kernel);
    compile_request req;
    req.source = source;
    req.name = fs::path(a.kernel).filename().string();
    req.arch = a.arch;
    req.entry =
        choose_entry(source, a.entry.empty() ? std::nullopt : std::optional<std::string>(a.entry), a.kernel);
    for (const auto& d : a.defines)
        req.options.push_back("-D" + d);
    for (const auto& o : a.options)
        req.options.push_back(o);
    // Refusals are the user's to fix (exit 2); only a kernel that does not compile is exit 1.
    if (auto why = check_arch(req.arch))
        throw user_error("--arch " + req.arch + ": " + *why);
    if (auto why = check_compile_options(req.options))
        throw user_error(*why);

    std::optional<fs::path> cache_dir;
    if (!a.no_cache)
        cache_dir = a.cache_dir.empty() ? compile_cache::default_dir() : fs::path(a.cache_dir);
    std::optional<compile_cache> cache;
    if (cache_dir)
        cache.emplace(*cache_dir);
    // On a thread of its own that first closes its view of the file system (Landlock binds a thread;
    // docs/hardening.md, "Model code reads no host file"): a kernel that gets past the include
    // policy sees no host file, while this thread keeps its access (it writes -o wherever the user
    // asks).
    nvrtc_compiler compiler(std::move(cache));
    compiler.compile_on(std::make_shared<compile_thread>(cache_dir));
    // The key a model run here would use (OPENAI_API_KEY, else ./.env): the log is redacted of it
    // like every other compile log, should a kernel get it read where no sandbox holds.
    if (const auto key = llm::find_api_key(llm_options{}.api_key_env))
        register_secret(key->value);
    compile_output out = compiler.compile(req);
    if (const sandbox_outcome sandbox = compiler.thread()->outcome();
        sandbox.status != sandbox_outcome::state::applied)
        log_warn("no Landlock file-system sandbox for this compile (" + sandbox.detail +
                 "); it relies on the include policy alone");

    if (out.compiled && !a.output.empty())
        write_file_atomic(a.output, out.cubin);
    if (a.json)
    {
        auto doc = compile_summary(out);
        doc["source"] = a.kernel;
        doc["entry"] = req.entry;
        doc["options"] = boost::json::value_from(req.options);
        print(pretty_json(doc));
    }
    else
        print(terminal_text(render(a, req, out)));
    return out.compiled ? 0 : 1;
}

}  // namespace

void add_compile_command(CLI::App& app)
{
    auto args = std::make_shared<compile_args>();
    CLI::App* cmd = app.add_subcommand("compile", "Compile a kernel with NVRTC to a cubin (no GPU needed)");
    cmd->add_option("KERNEL", args->kernel, "CUDA source file (device code, extern \"C\" entry)")->required();
    cmd->add_option("--arch", args->arch, "Target architecture: sm_90 (default), sm_90a, sm_100, ...");
    cmd->add_option("--entry",
                    args->entry,
                    "Entry point (default: the only extern \"C\" __global__ function in the file)");
    cmd->add_option("-D,--define", args->defines, "Preprocessor define NAME=V or NAME (repeatable)");
    cmd->add_option(
        "--option", args->options, "Allow-listed NVRTC option (repeatable; write --option=--use_fast_math)");
    cmd->add_flag("--json", args->json, "Print the compile output as JSON (without the cubin)");
    cmd->add_flag("--no-cache", args->no_cache, "Do not use the on-disk compile cache");
    cmd->add_option(
        "--cache-dir", args->cache_dir, "Compile cache directory (default: ~/.cache/warpsmith/compile)");
    cmd->add_option("-o,--output", args->output, "Write the cubin to this file");
    cmd->footer(
        "Example:\n  warpsmith compile sgemm.cu --arch sm_90 -D BM=128 --option=--use_fast_math\n"
        "Exit codes: 0 compiled; 1 did not compile; 2 bad input (missing file, refused option).");
    auto run = [args] { exit_with(compile_main(*args)); };
    cmd->callback(run);
}

}  // namespace warpsmith
