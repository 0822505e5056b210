// warpsmith tune: model-free autotuning (SPEC §6; docs/autotune.md). Runs a search session
// (engine/cli/search_session.hpp, shared with optimize) with the autotune strategy
// (agents/autotune): the workload's tunable kernel with its tunables as -D defines, points pruned
// by restrictions and device limits before they compile and by registers and shared memory after,
// a run directory like optimize's plus tune.json and tune_curve.json, an evaluation cache that lets
// a tune resume and strategies re-use each other's measurements without the GPU, and a final table
// with the best point, per-case times, speedups, vendor baselines (when the summary has them) and
// the roofline (engine/report/tune_table.hpp). --offline replays a strategy against the cache alone
// (engine/report/offline_tune.hpp).

#include "agents/autotune/autotune_strategy.hpp"
#include "agents/autotune/evaluation_cache.hpp"
#include "agents/autotune/roofline.hpp"
#include "agents/providers/provider_registry.hpp"
#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/nsight_args.hpp"
#include "engine/cli/search_session.hpp"
#include "engine/report/baseline_report.hpp"
#include "engine/report/offline_tune.hpp"
#include "engine/report/tune_table.hpp"
#include "engine/run/journal.hpp"
#include "engine/search/cached_backend.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/core/terminal_text.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json.hpp>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <unistd.h>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;
using lenient::object_at;

namespace
{

struct tune_args : search_session_args
{
    std::string workload;
    std::string strategy = "anneal";
    int budget = 100;
    std::vector<std::string> options;
    bool no_compile_prune = false;
    std::size_t population = 12;
    // Cache and output.
    bool no_eval_cache = false;
    std::string eval_cache;
    std::string roofline;
    bool offline = false;
    nsight_args nsight;  ///< --use-nsight: the winner is profiled at the end (docs/nsight.md).

    tune_args() { seed = 1; }
};

void write_stdout(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
}

// ---- the plan: everything checked before a worker starts ----

struct tune_plan : session_plan
{
    autotune_options tune;
    std::optional<fs::path> cache_dir;
    std::optional<autotune::roofline_spec> roofline;
};

void check_flags(const tune_args& a)
{
    if (!a.resume.empty())
    {
        a.refuse_with_resume({"--strategy",
                              "--seed",
                              "--hidden-seed",
                              "--branches",
                              "--async",
                              "--timing",
                              "--warmup",
                              "--iterations",
                              "--target-noise",
                              "--option",
                              "--no-compile-prune",
                              "--population",
                              "--results",
                              "--offline"},
                             "--resume continues a tune with its own workload and settings");
        if (!a.workload.empty())
            throw user_error("--resume continues a tune with its own workload; give no WORKLOAD with it");
        return;
    }
    if (a.workload.empty())
        throw user_error(
            "tune: give a WORKLOAD directory (e.g. bench/workloads/sgemm) or --resume results/run-NNN");
    a.check_async_or_branches();
    if (a.offline && a.nsight.use_nsight)
        throw user_error(
            "--offline replays the evaluation cache without a GPU; it cannot profile (--use-nsight)");
    if (a.offline && a.no_eval_cache)
        throw user_error(
            "--offline replays the evaluation cache; it cannot be combined with --no-eval-cache");
}

/// The strategy's settings from the flags; `candidates` is the evaluation budget, when there is one.
autotune_options tune_options_from(const tune_args& a, std::optional<int> candidates)
{
    autotune_options t;
    t.strategy = a.strategy;
    t.optimizer.seed = a.seed;
    t.optimizer.population = a.population;
    if (candidates)
        t.optimizer.expected_evaluations = static_cast<std::size_t>(*candidates);
    t.prune_after_compile = !a.no_compile_prune;
    t.compile_options = a.options;
    return t;
}

/// run.json "config.tune": the autotune provider's settings plus the evaluation cache.
json::object tune_config_json(const autotune_options& t, const std::optional<fs::path>& cache_dir)
{
    auto o = t.to_json();
    o["eval_cache"] = cache_dir ? json::value(fs::absolute(*cache_dir).string()) : json::value(nullptr);
    return o;
}

budget_limits budgets_from(const tune_args& a, budget_limits base, bool fresh)
{
    if (a.given("--budget") || (fresh && a.strategy != "grid"))
        base.candidates = a.budget;
    if (a.given("--max-wall-time"))
        base.wall_seconds = a.max_wall_time;
    return base;
}

/// tune --use-nsight: no profile each round (no model reads them), the winner once at the end.
nsight_options tune_nsight(const tune_args& a)
{
    nsight_options n = a.nsight.options();
    n.each_round = false;
    n.profile_winner = true;
    return n;
}

tune_plan prepare(const tune_args& a)
{
    check_flags(a);
    tune_plan p;
    p.backend = a.backend_options();
    p.backend.devices = a.devices();

    if (!a.resume.empty())
    {
        const auto config = reopen_run(p, a);
        const auto origin = p.run->run_json_path().string();
        p.search.budgets = budgets_from(a, p.search.budgets, false);
        if (a.nsight.use_nsight)
            p.search.nsight = tune_nsight(a);
        else if (!a.nsight.ncu.empty())
            p.search.nsight.profiler.ncu = a.nsight.ncu;
        const auto* tune = object_at(&config, "tune");
        if (!tune || !tune->contains("strategy"))
            throw user_error(origin + ": 'config.tune' is missing; this run was not made by warpsmith tune");
        std::optional<std::string> eval_cache;
        try
        {
            const json_reader tr(*tune, json_location(origin, "config.tune", json_style::record));
            p.tune = autotune_options::from_json(tr);
            eval_cache = tr.optional_string("eval_cache");
        }
        catch (const json_error& e)
        {
            throw user_error(e.what());
        }
        if (p.search.budgets.candidates)
            p.tune.optimizer.expected_evaluations = static_cast<std::size_t>(*p.search.budgets.candidates);
        p.tune.max_wall_seconds = p.search.budgets.wall_seconds;
        // The cache is read and written: a folder other than the usual one beside the run is used
        // only when --eval-cache names it again (a run directory can come from anyone).
        if (eval_cache && !a.no_eval_cache && !a.given("--eval-cache"))
        {
            std::error_code ec1, ec2, ec3;
            const fs::path usual = p.run->path().parent_path() / "eval-cache";
            if (fs::weakly_canonical(fs::absolute(*eval_cache), ec1) != fs::weakly_canonical(usual, ec2) ||
                ec1 || ec2 || fs::is_symlink(usual, ec3))
                confirm_resumed_path(origin, "tune.eval_cache", "--eval-cache", *eval_cache, std::nullopt);
            p.cache_dir = fs::path(*eval_cache);
        }
        if (a.given("--eval-cache"))
            p.cache_dir = fs::path(a.eval_cache);
        p.run_info["config"].as_object()["search"] = p.search.to_json();
        p.run_info["config"].as_object()["tune"] = tune_config_json(p.tune, p.cache_dir);
        if (!a.roofline.empty())
            p.roofline = autotune::roofline_spec::load(a.roofline);
        else
            p.roofline = autotune::roofline_spec::load_for(p.work);
        return p;
    }

    p.work = workload::load(a.workload);
    start_search(p.search, a);
    p.search.budgets = budgets_from(a, budget_limits{}, true);
    // An invalid point is just a bad point: the next one comes from the optimizer, not a repair.
    p.search.max_repairs = 0;
    p.search.nsight = tune_nsight(a);
    p.tune = tune_options_from(a, p.search.budgets.candidates);
    p.tune.max_wall_seconds = p.search.budgets.wall_seconds;
    if (!a.no_eval_cache)
        p.cache_dir = a.eval_cache.empty() ? autotune::evaluation_cache::default_dir(a.results)
                                           : fs::path(a.eval_cache);
    p.roofline = a.roofline.empty() ? autotune::roofline_spec::load_for(p.work)
                                    : std::optional(autotune::roofline_spec::load(a.roofline));
    // A bad strategy name or an untunable workload fails before a run directory is claimed.
    autotune_strategy check(p.work, p.tune);
    (void)check;

    p.run = run_directory::create(a.results);
    p.run->write_workload(p.work, std::nullopt);
    if (p.roofline)
        write_json_file(p.run->workload_dir() / "roofline.json", p.roofline->to_json());
    // The autotune provider's record (what `optimize --provider autotune` writes too), plus the cache.
    provider_options provider;
    provider.name = "autotune";
    provider.seed = a.seed;
    provider.strategy = a.strategy;
    provider.tune = p.tune;
    json::object config{{"workload", json::object{{"workload", fs::absolute(a.workload).string()}}}};
    provider.to_config(config);
    config["tune"] = tune_config_json(p.tune, p.cache_dir);
    config["search"] = p.search.to_json();
    config["evaluation"] = a.evaluation_config();
    p.run_info = new_run_info("tune", std::move(config));
    return p;
}

// ---- running it ----

/// Prints the tune's own events (the space, pruned points) next to the engine's progress.
class tune_event_printer
{
public:
    explicit tune_event_printer(bool json) : json_(json) {}

    void operator()(const json::object& ev) const
    {
        if (json_)
        {
            write_stdout(to_json_text(json::object{{"type", "tune"}, {"event", ev}}) + "\n");
            return;
        }
        // The strategy's own events (autotune_strategy.cpp).
        const json_reader r(ev, json_location("tune event", {}, json_style::record));
        const std::string kind = r.require_string("event");
        std::string line;
        if (kind == "tune_space")
            line = "search space: " + autotune::space_stats::from_json(r.require_object("space")).describe() +
                   " (strategy " + r.require_string("strategy") + ", seed " +
                   std::to_string(r.require_uint64("seed")) + ")";
        else if (kind == "tune_pruned")
        {
            const json_reader point = r.nested("point");
            std::string text;
            for (const auto& kv : point.object())
                text += (text.empty() ? "" : " ") + std::string(kv.key()) + "=" +
                        std::to_string(point.require_int64(kv.key()));
            line = "pruned " + text + ": " + r.require_string("reason");
        }
        else
            return;
        // On a terminal, clear the engine's live status line first; it is redrawn on its next event.
        std::fprintf(stderr, "%s%s\n", tty_ ? "\r\033[K" : "", terminal_text(line).c_str());
    }

private:
    bool json_;
    bool tty_ = ::isatty(STDERR_FILENO) != 0;
};

/// The evaluation cache's context (evaluation_cache::write_context): this tune's reference,
/// initial kernel and vendor baselines on GPU 0 and its device, for offline replays' tables.
void write_cache_context(const cached_backend& backend, const json::object& summary, const std::string& run)
{
    autotune::evaluation_cache* cache = backend.cache_of(0);
    if (!cache)
        return;
    json::object context{{"format", "warpsmith-eval-cache-context-1"},
                         {"run", run},
                         {"time", utc_timestamp()},
                         {"device", backend.device_info(0)}};
    for (const char* key : {"reference", "initial", "baselines"})
        if (const json::value* v = lenient::value_at(summary, key))
            context[key] = *v;
    try
    {
        cache->write_context(context);
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("cannot write the evaluation cache's context: ") + e.what());
    }
}

asio::awaitable<int> tune_main(asio::io_context& ioc,
                               std::shared_ptr<tune_args> args,
                               std::shared_ptr<tune_plan> p,
                               graceful_interrupt* interrupt)
{
    autotune_strategy strat(p->work, p->tune, tune_event_printer(args->json_progress));
    executor_backend gpus(ioc, p->backend);
    cached_backend backend(gpus, p->cache_dir, p->run->name(), p->search.timing.to_json());

    // The tune's own files next to the engine's: tune.json, tune_curve.json, and the summary with
    // "tune" and "roofline" sections.
    json::object report;
    std::optional<json::object> best_point;
    session_hooks hooks;
    hooks.title = "tune";
    hooks.complete_summary = [&](const search_engine& engine, json::object& summary)
    {
        report = strat.report();
        report["eval_cache"] = backend.stats();
        json::object curve = strat.curve().to_json();
        curve["strategy"] = p->tune.strategy;
        curve["seed"] = p->tune.optimizer.seed;
        curve["workload"] = p->work.name;
        if (const auto best_id = lenient::string_at(object_at(&summary, "best"), "id"))
            for (const auto& c : engine.history())
                if (c.id == *best_id)
                    if (const auto* pt = object_at(c.meta, "point"))
                        best_point = *pt;
        auto copied = [](const json::value* v) { return v ? *v : json::value(nullptr); };
        summary["tune"] =
            json::object{{"strategy", p->tune.strategy},
                         {"seed", p->tune.optimizer.seed},
                         {"space", copied(lenient::value_at(report, "space"))},
                         {"pruned", copied(lenient::value_at(object_at(report, "pruned"), "count"))},
                         {"time_to_best", copied(lenient::value_at(report, "time_to_best"))},
                         {"best_point", best_point ? json::value(*best_point) : json::value(nullptr)},
                         {"eval_cache", backend.stats()}};
        if (backend.gpu_count() > 0)
            summary["roofline"] = best_roofline(p->roofline,
                                                p->work,
                                                backend.device_info(0),
                                                summary,
                                                p->search.timing.mode == timing_mode::cold);
        write_cache_context(backend, summary, p->run->name());
        try
        {
            p->run->write_json("tune.json", report);
            p->run->write_json("tune_curve.json", curve);
        }
        catch (const std::exception& e)
        {
            log_warn(std::string("cannot write the tune files: ") + e.what());
        }
    };
    hooks.final_table = [&](const json::object& summary)
    { return warpsmith::report::tune_table(summary, report, p->run->path(), p->work, best_point); };
    const auto res = co_await run_session(ioc, *p, backend, strat, args->json_progress, *interrupt, hooks);
    co_return session_exit_code(res, *p->run, "tune");
}

int run_tune(const std::shared_ptr<tune_args>& args)
{
    auto plan = std::make_shared<tune_plan>(prepare(*args));
    auto interrupt = search_interrupt("points");
    auto body = [args, plan, &interrupt](asio::io_context& ioc)
    { return tune_main(ioc, args, plan, &interrupt); };
    return run_async(body, &interrupt);
}

// ---- --offline: a strategy against the evaluation cache only ----

int run_offline(const tune_args& a)
{
    check_flags(a);
    const bool budgeted = a.given("--budget") || a.strategy != "grid";
    report::offline_tune_options o;
    o.workload = a.workload;
    o.cache_dir =
        a.eval_cache.empty() ? autotune::evaluation_cache::default_dir(a.results) : fs::path(a.eval_cache);
    o.timing = a.timing.options().to_json();
    o.tune = tune_options_from(a, budgeted ? std::optional<int>(a.budget) : std::nullopt);
    if (budgeted)
        o.budget = static_cast<std::size_t>(a.budget);
    o.batch = static_cast<std::size_t>(a.branch_count());
    o.compile_prune = !a.no_compile_prune;
    o.roofline = a.roofline;
    const auto r = report::run_offline_tune(o);
    write_stdout(a.json_progress ? to_json_text(r.record) + "\n" : terminal_text(r.text));
    return 0;
}

constexpr const char* tune_footer = R"(Examples:
  # Anneal the SGEMM tunables for 100 evaluations (the default) on every local GPU:
  warpsmith tune bench/workloads/sgemm
  # Every feasible point, in grid order, on GPUs 0 and 1, two proposals in flight per GPU:
  warpsmith tune bench/workloads/sgemm --strategy grid --gpus 0,1 --async 4
  # A genetic search for ten minutes with a fixed seed; progress as JSON lines:
  warpsmith tune bench/workloads/softmax --strategy genetic --max-wall-time 600 --seed 7 --json-progress
  # Continue a stopped tune with a larger budget (cached points cost no GPU time):
  warpsmith tune --resume results/run-004 --budget 300
  # Replay a strategy against what earlier tunes measured, without a GPU:
  warpsmith tune bench/workloads/sgemm --offline --strategy local --seed 3 --budget 60

Strategies: grid (every feasible point; no budget by default), random (without replacement),
local (greedy multi-start over neighbours), anneal (simulated annealing, default), genetic.
--budget counts GPU evaluations (default 100 except for grid); points pruned after compile
(registers or shared memory beyond the device's limits) do not count. The evaluation cache lives in
<results>/eval-cache/ (or --eval-cache DIR): one JSON-lines file per workload and device.
The run directory is optimize's plus tune.json (space, pruned points, best point) and
tune_curve.json (best score after each evaluation). A "roofline" in workload.json, or a
roofline.json next to it ({"bytes": expr, "flops": expr} over case values), adds the roofline
column, against ceilings measured at start (--no-measure: datasheet figures). Baselines the
workload declares ("baselines": cuBLAS SGEMM) are timed in FP32 and TF32 and add their columns.
The same search runs under `warpsmith optimize --provider autotune --strategy S` (without the
evaluation cache and the tune files). docs/autotune.md.
Exit codes: 0 finished, 1 the tune failed, 2 bad input (flag, file, no GPU), 130 interrupted.)";

}  // namespace

void add_tune_command(CLI::App& app)
{
    auto a = std::make_shared<tune_args>();
    const auto positive = number_check(0, true);
    CLI::App* cmd = app.add_subcommand("tune", "Autotune a workload's tunable kernel without a model");
    cmd->add_option("workload",
                    a->workload,
                    "Workload directory or workload.json with tunables, or the name of a bundled one")
        ->transform(bundled_workload());

    const char* search_group = "Search";
    cmd->add_option("--strategy", a->strategy, "grid, random, local, anneal (default) or genetic")
        ->check(CLI::IsMember({"grid", "random", "local", "anneal", "genetic"}))
        ->group(search_group);
    cmd->add_option("--budget", a->budget, "GPU evaluations (default 100; grid: the whole space)")
        ->check(positive)
        ->group(search_group);
    a->add_seed_flags(*cmd, search_group, "Seed of the strategy (default 1)");
    a->add_concurrency_flags(*cmd,
                             search_group,
                             "Points proposed together each iteration (default 1)",
                             "N points in flight without iteration barriers (instead of --branches)");
    cmd->add_option(
           "--max-wall-time", a->max_wall_time, "Seconds of this session (also shapes anneal's schedule)")
        ->check(positive)
        ->group(search_group);
    cmd->add_option("--grace-seconds", a->grace_seconds, "Time for work in flight after a stop (default 30)")
        ->check(number_check(0, false))
        ->group(search_group);
    cmd->add_option("--population", a->population, "genetic: population size (default 12)")
        ->check(CLI::Range(2, 10000))
        ->group(search_group);
    cmd->add_option("--option",
                    a->options,
                    "Allow-listed NVRTC option for every point (repeatable), e.g. --use_fast_math")
        ->group(search_group);
    cmd->add_flag("--no-compile-prune",
                  a->no_compile_prune,
                  "Do not compile points before proposing them (no register / shared-memory pruning)")
        ->group(search_group);

    a->add_evaluation_flags(*cmd, "Evaluation", "Best points re-timed interleaved at the end (default 3)");

    const char* out_group = "Cache and output";
    cmd->add_flag("--no-eval-cache", a->no_eval_cache, "Neither read nor write the evaluation cache")
        ->group(out_group);
    cmd->add_option(
           "--eval-cache", a->eval_cache, "Evaluation cache directory (default <results>/eval-cache)")
        ->group(out_group);
    cmd->add_option("--roofline", a->roofline, "Roofline spec (default: roofline.json next to workload.json)")
        ->group(out_group);
    a->add_output_flags(*cmd, out_group);
    a->nsight.add_to(*cmd,
                     "Profile the best point once at the end under Nsight Compute and print its counters "
                     "below the roofline (profiles/ in the run)",
                     false);
    cmd->add_flag("--offline", a->offline, "Replay the strategy against the evaluation cache only (no GPU)")
        ->group(out_group);
    cmd->footer(tune_footer);
    auto run = [a] { exit_with(a->offline ? run_offline(*a) : run_tune(a)); };
    cmd->callback(run);
}

}  // namespace warpsmith
