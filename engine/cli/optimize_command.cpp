// warpsmith optimize: the search (SPEC §4; docs/engine.md). Assembles the workload from --workload
// or its parts, builds the strategy for --provider through the provider registry
// (agents/providers/provider_registry.hpp), claims results/run-NNN (or reopens one with --resume)
// and runs a search session (engine/cli/search_session.hpp, shared with tune): one GPU worker per
// selected GPU, a compile pool, a live progress line. Ctrl-C: stop proposing, let the GPU finish,
// finalize, exit 130; a second Ctrl-C aborts at once (the journal is intact: every event is written
// before moving on).

#include "agents/llm/workload_assembly.hpp"
#include "agents/providers/provider_registry.hpp"
#include "agents/strategies/llm_setup.hpp"
#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/config_file.hpp"
#include "engine/cli/nsight_args.hpp"
#include "engine/cli/search_session.hpp"
#include "engine/report/baseline_report.hpp"
#include "engine/report/search_table.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/search/workload_inference.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"

#include <boost/json.hpp>

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

/// The flags; those optimize shares with tune (evaluation, output, the search's shape) are in
/// search_session_args.
struct optimize_args : search_session_args
{
    // Workload.
    std::string workload, description, signature, reference, initial_kernel, input_cases;
    // Search.
    /// "" until resolved: --candidates alone means scripted, anything else openai (the quick start,
    /// `optimize --description "..."`, needs a model and names none).
    std::string provider;
    std::string strategy;  ///< "": the provider's default.
    std::string candidates;
    double scripted_latency_ms = 0;
    int max_iterations = 5;
    int max_repairs = 2;
    // Budgets.
    int max_candidates = 0;
    std::int64_t max_tokens = 0;
    double max_cost = 0;
    // Output.
    std::string config;
    nsight_args nsight;  ///< --use-nsight and its flags (docs/nsight.md).

    // Model providers (openai, openai-chat, replay): agents/strategies/llm_setup.hpp.
    llm_options llm;
};

// ---- the command ----

struct optimize_plan : session_plan
{
    provider_options provider;
};

/// The provider as the flags of a new run give it.
provider_options provider_from(const optimize_args& a)
{
    provider_options p;
    p.name = a.provider;
    p.seed = a.seed;
    p.strategy = a.strategy;
    if (!a.candidates.empty())
        p.candidates_dir = fs::absolute(a.candidates);
    p.scripted_latency = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double, std::milli>(a.scripted_latency_ms));
    p.llm = a.llm;
    p.llm.branches = a.branch_count();
    return p;
}

void check_flags(const optimize_args& a)
{
    if (!a.resume.empty())
    {
        a.refuse_with_resume({"--workload",
                              "--description",
                              "--signature",
                              "--reference",
                              "--initial-kernel",
                              "--input-cases",
                              "--provider",
                              "--strategy",
                              "--branches",
                              "--async",
                              "--timing",
                              "--warmup",
                              "--iterations",
                              "--target-noise",
                              "--seed",
                              "--hidden-seed",
                              "--max-repairs",
                              "--results"},
                             "--resume continues a run with its own workload and search settings");
        // --base-url and --api-key-env may repeat run.json's values: the confirmation
        // llm_options::confirm_resumed_endpoint asks for; --replay-from, --price-table and
        // --candidates the one confirm_resumed_path asks for. --no-api-key only sends less.
        for (const std::string& flag : a.llm.given_llm_flags())
            if (flag != "--base-url" && flag != "--api-key-env" && flag != "--replay-from" &&
                flag != "--price-table" && flag != "--no-api-key")
                throw user_error("--resume continues a run with its own model settings; " + flag +
                                 " cannot be combined with it");
        return;
    }
    // Model flags with another provider, or bad ones, are refused before anything starts.
    provider_from(a).model_options().check();
    a.check_async_or_branches();
    if (!a.workload.empty() && !a.signature.empty())
        throw user_error("--workload and --signature both describe the workload; give one of them");
    if (a.given("--candidates") && a.provider != "scripted")
        throw user_error("--candidates is an option of --provider scripted");
    if (a.given("--scripted-latency-ms") && a.provider != "scripted")
        throw user_error("--scripted-latency-ms is an option of --provider scripted");
}

budget_limits budgets_from(const optimize_args& a, budget_limits base)
{
    if (a.given("--max-iterations"))
        base.iterations = a.max_iterations;
    if (a.given("--max-candidates"))
        base.candidates = a.max_candidates;
    if (a.given("--max-wall-time"))
        base.wall_seconds = a.max_wall_time;
    if (a.given("--max-tokens"))
        base.tokens = a.max_tokens;
    if (a.given("--max-cost"))
        base.cost_usd = a.max_cost;
    return base;
}

/// The workload's sources as the flags give them (agents/llm/workload_assembly.hpp).
llm::workload_sources workload_sources_from(const optimize_args& a)
{
    // Files of an earlier run (best.cu, workload/reference.cu, workload/cases.json) may be given
    // here; a link planted in a folder someone handed over is not followed.
    for (const auto& [flag, file] : {std::pair<const char*, const std::string&>{"--reference", a.reference},
                                     {"--initial-kernel", a.initial_kernel},
                                     {"--signature", a.signature},
                                     {"--input-cases", a.input_cases}})
        if (!file.empty())
        {
            check_not_a_link(file, flag);
            if (std::string_view(flag) == "--initial-kernel")
                check_not_a_link(fs::path(file).replace_extension(".json"), flag);
        }
    llm::workload_sources s;
    s.workload = a.workload;
    s.signature = a.signature;
    s.input_cases = a.input_cases;
    s.reference = a.reference;
    s.initial_kernel = a.initial_kernel;
    s.description = a.description;
    s.model_provider = is_llm_provider(a.provider);
    // A partial workload.json or cases file names files inside its own directory, unless it is a
    // run's own (workload/workload.json or workload/cases.json of a run directory).
    if (!a.signature.empty() && is_run_workload_file(a.signature))
        s.signature_scope = file_scope::self_contained;
    if (!a.input_cases.empty() && is_run_workload_file(a.input_cases))
        s.input_cases_scope = file_scope::self_contained;
    return s;
}

/// Workload inference's settings from the flags and the plan (engine/search/workload_inference.hpp).
workload_inference_options inference_options_from(const optimize_args& a, const optimize_plan& p)
{
    workload_inference_options o;
    o.description = a.description;
    o.model = p.provider.model_options();
    o.backend = p.backend;
    o.backend.devices = a.devices();
    o.results = a.results;
    o.limits = budgets_from(a, budget_limits{});
    o.hidden_seed = a.hidden_seed();
    return o;
}

/// What the autotune provider plans with: the evaluations it expects (the candidates budget, else
/// iterations x branches) shape anneal's schedule, like --budget does for tune.
void plan_autotune(optimize_plan& p)
{
    auto& t = p.provider.tune;
    const auto& b = p.search.budgets;
    if (b.candidates)
        t.optimizer.expected_evaluations = static_cast<std::size_t>(*b.candidates);
    else if (b.iterations)
        t.optimizer.expected_evaluations =
            static_cast<std::size_t>(*b.iterations) * static_cast<std::size_t>(p.search.branches);
    t.max_wall_seconds = b.wall_seconds;
}

optimize_plan prepare(const optimize_args& a)
{
    check_flags(a);
    optimize_plan p;
    p.backend = a.backend_options();

    if (!a.resume.empty())
    {
        const auto config = reopen_run(p, a);
        const auto origin = p.run->run_json_path().string();
        p.search.budgets = budgets_from(a, p.search.budgets);
        p.provider = provider_options::from_config(config, origin);
        // The client is built for config.provider.name (model_options), whatever config.llm says.
        p.provider.model_options().confirm_resumed_endpoint(a.llm, origin);
        // A run that sent no key keeps sending none (run.json's no_api_key), and --no-api-key makes
        // any resumed run keyless: whatever run.json says, the user can be sure none is sent.
        if (a.llm.no_api_key)
            p.provider.llm.no_api_key = true;
        // Paths run.json names are read only when the user names them again.
        const auto confirm = [&](const char* field,
                                 const char* flag,
                                 const fs::path& recorded,
                                 bool given,
                                 const std::string& value)
        {
            confirm_resumed_path(
                origin, field, flag, recorded, given ? std::optional<fs::path>(value) : std::nullopt);
        };
        const auto& llm = p.provider.llm;
        if (p.provider.name == "scripted" && p.provider.candidates_dir)
            confirm("provider.candidates",
                    "--candidates",
                    *p.provider.candidates_dir,
                    a.given("--candidates"),
                    a.candidates);
        if (p.provider.name == "replay" && !llm.replay_from.empty())
            confirm("llm.replay_from",
                    "--replay-from",
                    llm.replay_from,
                    a.llm.given("--replay-from"),
                    a.llm.replay_from);
        if (is_llm_provider(p.provider.name) && !llm.price_table.empty())
            confirm("llm.price_table",
                    "--price-table",
                    llm.price_table,
                    a.llm.given("--price-table"),
                    a.llm.price_table);
        if (!a.nsight.ncu.empty())
            p.search.nsight.profiler.ncu = a.nsight.ncu;
        if (a.given("--scripted-latency-ms"))
            p.provider.scripted_latency = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::duration<double, std::milli>(a.scripted_latency_ms));
        if (p.provider.name == "autotune")
        {
            plan_autotune(p);
            p.run_info["config"].as_object()["tune"].as_object()["expected_evaluations"] =
                p.provider.tune.optimizer.expected_evaluations;
        }
        p.backend.devices = a.devices();
        p.run_info["config"].as_object()["search"] = p.search.to_json();
        return p;
    }

    p.provider = provider_from(a);
    // --description with a model provider: the inference claims the run directory, so that the
    // exchanges are kept in llm/ whatever happens.
    llm::infer_parts_function infer = [&](json::object given, const fs::path& dir)
    {
        const auto options = inference_options_from(a, p);
        p.backend.devices = options.backend.devices;
        auto inferred = infer_workload_parts(options, std::move(given), dir);
        p.run = std::move(inferred.run);
        return std::move(inferred.workload_json);
    };
    auto [w, supplied] = llm::assemble_workload(workload_sources_from(a), infer);
    p.work = std::move(w);
    start_search(p.search, a);
    const bool any_budget = a.given("--max-iterations") || a.given("--max-candidates") ||
                            a.given("--max-wall-time") || a.given("--max-tokens") || a.given("--max-cost");
    p.search.budgets = budgets_from(a, budget_limits{});
    if (!any_budget)
        p.search.budgets.iterations = a.max_iterations;  // the documented default
    p.search.max_repairs = a.max_repairs;
    p.search.nsight = a.nsight.options(a.llm.replay_from);
    if (p.provider.name == "autotune")
    {
        // As in tune: an invalid point is just a bad point, the next one comes from the optimizer.
        if (!a.given("--max-repairs"))
            p.search.max_repairs = 0;
        plan_autotune(p);
    }
    // Build the strategy once now, so that a bad provider or candidate directory fails before a
    // run directory is claimed (workload inference has claimed it already).
    {
        asio::io_context check_ioc;
        make_strategy(p.provider, p.work, check_ioc.get_executor());
    }
    p.backend.devices = a.devices();

    if (!p.run)
        p.run = run_directory::create(a.results);
    p.run->write_workload(p.work, supplied);
    keep_roofline_sidecar(p.work, *p.run);
    json::object config{{"workload",
                         json::object{{"workload", a.workload},
                                      {"signature", a.signature},
                                      {"reference", a.reference},
                                      {"initial_kernel", a.initial_kernel},
                                      {"input_cases", a.input_cases},
                                      {"description", a.description}}}};
    p.provider.to_config(config);  // "provider", and "llm" or "tune"
    config["search"] = p.search.to_json();
    config["evaluation"] = a.evaluation_config();
    p.run_info = new_run_info("", std::move(config));
    return p;
}

asio::awaitable<int> optimize_main(asio::io_context& ioc,
                                   std::shared_ptr<optimize_plan> p,
                                   bool json_progress,
                                   graceful_interrupt* interrupt)
{
    auto built = make_strategy(p->provider, p->work, ioc.get_executor());
    executor_backend backend(ioc, p->backend);
    session_hooks hooks;
    hooks.title = "run";
    hooks.complete_summary = [&](const search_engine&, json::object& summary)
    {
        // How far the best is from the physical limit, with the ceilings measured at start.
        if (auto roofline = best_roofline(
                p->work, backend.device_info(0), summary, p->search.timing.mode == timing_mode::cold);
            !roofline.is_null())
            summary["roofline"] = std::move(roofline);
    };
    hooks.final_table = [&](const json::object& summary)
    {
        json::value history = nullptr;
        try
        {
            history = read_json_file(p->run->path() / "history.json");
        }
        catch (const std::exception&)
        {
        }
        return report::search_table(summary, p->run->path(), history) + baseline_case_table(summary, p->work);
    };
    const auto res = co_await run_session(ioc, *p, backend, *built.strat, json_progress, *interrupt, hooks);
    if (built.fatal_error)
        if (const auto fatal = built.fatal_error())
            throw user_error(*fatal + " (the run directory keeps what was done: " + p->run->path().string() +
                             ")");
    co_return session_exit_code(res, *p->run, "search");
}

int run_optimize(const std::shared_ptr<optimize_args>& args)
{
    if (!args->config.empty())
        apply_config_file(*args->cmd, args->config);
    if (args->provider.empty())
        args->provider = args->candidates.empty() ? "openai" : "scripted";
    auto plan = std::make_shared<optimize_plan>(prepare(*args));
    if (!args->json_progress)
        std::fflush(stdout);
    auto interrupt = search_interrupt("proposals");
    const bool json_progress = args->json_progress;
    auto body = [plan, json_progress, &interrupt](asio::io_context& ioc)
    { return optimize_main(ioc, plan, json_progress, &interrupt); };
    return run_async(body, &interrupt);
}

constexpr const char* optimize_footer = R"(Examples:
  # Your own candidates, two branches, simulated 2 s model latency:
  warpsmith optimize --workload bench/workloads/sgemm --provider scripted --candidates my_kernels/ \
      --branches 2 --scripted-latency-ms 2000 --max-iterations 4
  # Four proposals in flight without iteration barriers, on GPUs 0 and 1, at most 40 candidates:
  warpsmith optimize --workload bench/workloads/sgemm --candidates my_kernels/ --async 4 --gpus 0,1 \
      --max-candidates 40
  # Continue a stopped (even kill -9'd) run, with a larger budget:
  warpsmith optimize --resume results/run-003 --max-iterations 10
  # Start again from an earlier run's workload and best kernel:
  warpsmith optimize --workload results/run-003/workload --initial-kernel results/run-003/best.cu \
      --candidates more_kernels/
  # Settings from a file (keys are flag names; the command line wins):
  warpsmith optimize --config optimize.json --max-iterations 3

  # Quick start: OpenAI's Responses API (gpt-5-mini, medium effort; key from OPENAI_API_KEY or ./.env),
  # workload inferred from a description:
  warpsmith optimize --description "Single-precision GEMM with rectangular matrices." --max-cost 2
  # The same with other settings, and NVIDIA's documentation searched on the web:
  warpsmith optimize --description "Single-precision GEMM with rectangular matrices." --provider openai \
      --model gpt-5 --reasoning-effort high --strategy evolve --branches 4 --max-cost 5 --nvidia-research
  # A local OpenAI-compatible server (vLLM, llama.cpp, Ollama, LM Studio) with its own workload:
  warpsmith optimize --workload bench/workloads/sgemm --provider openai-chat \
      --base-url http://127.0.0.1:8000/v1 --model qwen2.5-coder --strategy beam --branches 2
  # Re-run an earlier model run's answers at zero cost (deterministic):
  warpsmith optimize --workload results/run-003/workload --provider replay --replay-from results/run-003
  # No model: anneal the workload's tunables for 60 candidates (warpsmith tune adds its cache):
  warpsmith optimize --workload bench/workloads/sgemm --provider autotune --strategy anneal --max-candidates 60

Providers: scripted, openai, openai-chat, replay (docs/agents.md), autotune (docs/autotune.md).
Without --provider: scripted when --candidates is given, else openai.
Without any budget flag, --max-iterations 5 applies. Budgets stop the run at the first one reached;
work in flight then gets --grace-seconds to finish. Ctrl-C: stop proposing, let the GPU finish the
current evaluation, write the summary, exit 130; Ctrl-C again aborts at once (the journal is intact).
Run directory: docs/run-directory.md. Engine and scripted provider: docs/engine.md.
Exit codes: 0 finished (any budget), 1 the search failed, 2 bad input (flag, file, no GPU), 130 interrupted.)";

/// --provider's help: every provider the registry knows.
std::string provider_help()
{
    std::string names;
    for (const auto& p : providers())
        names += (names.empty() ? "" : ", ") + p.name;
    return "Who proposes candidates: " + names +
           " (default: scripted with --candidates, else openai: Responses API, gpt-5-mini, medium effort)";
}

}  // namespace

void add_optimize_command(CLI::App& app)
{
    auto a = std::make_shared<optimize_args>();
    const auto positive = number_check(0, true);
    const auto non_negative = number_check(0, false);
    CLI::App* cmd = app.add_subcommand("optimize", "Search for the fastest valid kernel of a workload");
    const char* workload_group = "Workload";
    cmd->add_option(
           "--workload",
           a->workload,
           "Workload directory or workload.json (docs/workload-format.md), or the name of a bundled one")
        ->transform(bundled_workload())
        ->group(workload_group);
    cmd->add_option(
           "--description",
           a->description,
           "What the kernel computes; with a model provider, the missing parts (signature, cases, reference, "
           "initial kernel) are inferred from it and checked before the search")
        ->group(workload_group);
    cmd->add_option("--signature",
                    a->signature,
                    "Signature JSON ({\"entry\", \"params\"} plus \"launch\"), or a partial workload.json")
        ->group(workload_group);
    cmd->add_option(
           "--reference", a->reference, "Reference kernel .cu (kept as workload/supplied-reference.cu)")
        ->group(workload_group);
    cmd->add_option(
           "--initial-kernel",
           a->initial_kernel,
           "Initial kernel .cu, e.g. an earlier run's best.cu (its <stem>.json gives entry and launch)")
        ->group(workload_group);
    cmd->add_option(
           "--input-cases", a->input_cases, "Cases JSON (an array or {\"cases\": [...]}, e.g. cases.json)")
        ->group(workload_group);

    const char* search_group = "Search";
    cmd->add_option("--provider", a->provider, provider_help())->group(search_group);
    cmd->add_option(
           "--strategy",
           a->strategy,
           "Model providers: how branches pick parents, refine (default), beam or evolve. autotune: grid, "
           "random, local, anneal (default) or genetic")
        ->group(search_group);
    cmd->add_option(
           "--candidates", a->candidates, "Scripted provider: directory of .cu files (+ optional .json)")
        ->group(search_group);
    cmd->add_option("--scripted-latency-ms",
                    a->scripted_latency_ms,
                    "Scripted provider: simulated model latency per proposal (default 0)")
        ->check(non_negative)
        ->group(search_group);
    cmd->add_option(
           "--max-iterations", a->max_iterations, "Iterations (rounds per branch); default 5 without budgets")
        ->check(number_check(1, false))
        ->group(search_group);
    a->add_concurrency_flags(*cmd,
                             search_group,
                             "Branches proposing concurrently each iteration (default 1)",
                             "N proposals in flight without iteration barriers (instead of --branches)");
    cmd->add_option("--max-repairs",
                    a->max_repairs,
                    "Consecutive repair requests for a branch's invalid candidates (default 2; autotune: 0)")
        ->check(non_negative)
        ->group(search_group);
    a->add_seed_flags(*cmd, search_group, "Seed for strategies (default random)");
    a->llm.add_to(*cmd, "Model providers (openai, openai-chat, replay; docs/agents.md)");

    const char* budget_group = "Budgets (each optional; the first reached stops the run)";
    cmd->add_option("--max-candidates", a->max_candidates, "Candidates proposed in all")
        ->check(positive)
        ->group(budget_group);
    cmd->add_option("--max-wall-time", a->max_wall_time, "Seconds of this session")
        ->check(positive)
        ->group(budget_group);
    cmd->add_option("--max-tokens", a->max_tokens, "Model tokens (input + output)")
        ->check(positive)
        ->group(budget_group);
    cmd->add_option("--max-cost", a->max_cost, "Model cost in USD")->check(positive)->group(budget_group);
    cmd->add_option("--grace-seconds", a->grace_seconds, "Time for work in flight after a stop (default 30)")
        ->check(non_negative)
        ->group(budget_group);

    a->nsight.add_to(
        *cmd,
        "Profile the best candidate each round under Nsight Compute and give the model a profile "
        "tool; profiles never overlap a timing and never count in a score",
        true);

    a->add_evaluation_flags(
        *cmd,
        "Evaluation",
        "Candidates re-timed interleaved with the initial kernel and reference at the end "
        "(default 3)");
    const char* out_group = "Output";
    a->add_output_flags(*cmd, out_group);
    cmd->add_option("--config", a->config, "JSON file mirroring these flags (\"max-iterations\": 7, ...)")
        ->group(out_group);
    cmd->footer(optimize_footer);
    auto run = [a] { exit_with(run_optimize(a)); };
    cmd->callback(run);
}

}  // namespace warpsmith
