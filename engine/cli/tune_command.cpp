// warpsmith tune: model-free autotuning (SPEC §6; docs/autotune.md). Runs a search session
// (engine/cli/search_session.hpp, shared with optimize) with the autotune strategy
// (agents/autotune): the workload's tunable kernel with its tunables as -D defines, points pruned
// by restrictions and device limits before they compile and by registers and shared memory after,
// a run directory like optimize's plus tune.json and tune_curve.json, an evaluation cache that lets
// a tune resume and strategies re-use each other's measurements without the GPU, and a final table
// with the best point, per-case times, speedups, vendor baselines (when the summary has them) and
// the roofline. --offline replays a strategy against the cache alone.

#include "agents/autotune/autotune_strategy.hpp"
#include "agents/autotune/evaluation_cache.hpp"
#include "agents/autotune/offline_replay.hpp"
#include "agents/autotune/roofline.hpp"
#include "agents/providers/provider_registry.hpp"
#include "engine/cli/baseline_report.hpp"
#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/nsight_args.hpp"
#include "engine/cli/search_session.hpp"
#include "engine/report/profile_listing.hpp"
#include "engine/run/journal.hpp"
#include "engine/search/cached_backend.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
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
using lenient::number_at;
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

std::string fmt(const char* f, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

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
        if (eval_cache && !a.no_eval_cache)
            p.cache_dir = fs::path(*eval_cache);
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

// ---- the final table ----

/// --use-nsight: the winner's profile (profiles/<id>-<case>.json) below the roofline, or why
/// there is none.
std::string winner_profile_text(const fs::path& run_path, const std::string& winner)
{
    const auto profiles = report::list_run_profiles(run_path);
    if (const report::listed_profile* p = report::find_profile(profiles, winner))
        return "profile of " + winner + " on " + p->case_name + " (" +
               (p->report ? (run_path / *p->report).string() : run_path.string() + "/" + p->document) +
               "):\n" + p->summary->render_table();
    for (const auto& p : profiles)
        if (p.candidate == winner)
            return "no profile of " + winner + ": " + p.message + "\n";
    return winner == "initial" ? "the initial kernel won; it was not profiled\n"
                               : "no profile of " + winner + " (see the log)\n";
}

std::string final_table(const json::object& s,
                        const json::object& tune,
                        const fs::path& run_path,
                        const workload& w,
                        const std::optional<json::object>& best_point)
{
    // summary.json as this run has just written it, and the strategy's report (records: null is
    // absent).
    const json_reader sr(s, json_location("summary.json", {}, json_style::record));
    const json_reader tr(tune, json_location("tune.json", {}, json_style::record));
    std::string out;
    const json_reader c = sr.nested("candidates");
    out += "tune " + run_path.string() + ": " + sr.require_string("status") + " (" +
           sr.require_string("stop_reason") + "), " + tr.require_string("strategy") + " seed " +
           std::to_string(tr.require_uint64("seed")) + ", " + std::to_string(c.require_int64("evaluated")) +
           " evaluated (" + std::to_string(c.require_int64("valid")) + " valid), " +
           std::to_string(tr.nested("pruned").require_int64("count")) + " pruned after compile, " +
           fmt("%.1f s", sr.optional_number("wall_seconds").value_or(0)) + ", GPU busy " +
           fmt("%.0f%%", 100 * sr.optional_number("gpu_busy_fraction").value_or(0)) + "\n";
    if (const json::object* space = tr.optional_object("space"))
        out += "space: " + autotune::space_stats::from_json(*space).describe() + "\n";
    if (const auto cache = tr.optional_nested("eval_cache"); cache && cache->require_bool("enabled"))
        out += "evaluation cache: " + std::to_string(cache->require_int64("hits")) + " hits, " +
               std::to_string(cache->require_int64("stored")) + " stored\n";

    const std::optional<json_reader> best = sr.optional_nested("best");
    if (!best)
    {
        out += "no valid kernel was found\n";
        return out;
    }
    std::string point_text;
    if (best_point)
    {
        const json_reader point(*best_point, json_location("best point", {}, json_style::record));
        for (const auto& kv : *best_point)
            point_text += (point_text.empty() ? "" : " ") + std::string(kv.key()) + "=" +
                          std::to_string(point.require_int64(kv.key()));
    }
    const std::string best_id = best->require_string("id");
    out += "best " + best_id + (point_text.empty() ? "" : ": " + point_text) + " (" +
           best->require_string("decided_by") + ")\n";
    // Per case: the best, the reference and initial kernel, the vendor baselines, the roofline.
    out += baseline_case_table(s, w, true);
    if (sr.find("profiles"))
        out += winner_profile_text(run_path, best_id);
    return out;
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
            write_stdout(json::serialize(json::object{{"type", "tune"}, {"event", ev}}) + "\n");
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
        std::fprintf(stderr, "%s%s\n", tty_ ? "\r\033[K" : "", line.c_str());
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
            summary["roofline"] = best_roofline(p->roofline, p->work, backend.device_info(0), summary);
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
    { return final_table(summary, report, p->run->path(), p->work, best_point); };
    const auto res = co_await run_session(ioc, *p, backend, strat, args->json_progress, *interrupt, hooks);
    co_return session_exit_code(res, *p->run, "tune");
}

int run_tune(std::shared_ptr<tune_args> args)
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
    const auto w = workload::load(a.workload);
    const fs::path dir =
        a.eval_cache.empty() ? autotune::evaluation_cache::default_dir(a.results) : fs::path(a.eval_cache);
    const auto files = autotune::evaluation_cache::files_for(w, dir);
    if (files.empty())
        throw user_error("--offline: no evaluation cache of workload '" + w.name + "' in " + dir.string() +
                         " (run a tune first, or give --eval-cache DIR)");
    if (files.size() > 1)
        throw user_error("--offline: " + dir.string() + " holds caches of '" + w.name + "' for " +
                         std::to_string(files.size()) +
                         " devices; give --eval-cache a directory with one of them");
    const auto device = autotune::evaluation_cache::device_of(files[0]);
    if (!device)
        throw user_error("--offline: " + files[0].string() + " holds no entries");
    // The cache key holds the timing options: an offline replay must name those the cache was
    // measured with (the committed H200 cache: --target-noise 0, scripts/demo).
    autotune::evaluation_cache cache(w, *device, a.timing.options().to_json(), dir);
    if (cache.file() != files[0])
        throw user_error("--offline: " + files[0].string() +
                         " was written for another version of this workload");

    const bool budgeted = a.given("--budget") || a.strategy != "grid";
    autotune_strategy strat(w, tune_options_from(a, budgeted ? std::optional<int>(a.budget) : std::nullopt));
    strat.prepare(*device);
    std::size_t budget = budgeted ? static_cast<std::size_t>(a.budget) : static_cast<std::size_t>(-1);
    auto score = [&](const autotune::point& pt) -> std::optional<double>
    {
        const auto hit = cache.lookup(cache.key(strat.candidate_for(pt)));
        if (!hit)
            return std::nullopt;
        return hit->valid && hit->score_us ? *hit->score_us : autotune::infeasible_score;
    };
    // A point the cache does not hold may have been pruned after compile online (never timed,
    // never counted): NVRTC runs without a GPU, so the replay compiles such points and judges them
    // as the tune did.
    nvrtc_compiler compiler(std::optional<compile_cache>(compile_cache(compile_cache::default_dir())));
    auto pruned = [&](const autotune::point& pt)
    { return !strat.judge_compiled(pt, compiler.compile(strat.compile_request_for(pt))).ok(); };
    const std::size_t batch = static_cast<std::size_t>(a.branch_count());
    const auto r =
        autotune::replay_offline(strat.optimizer(),
                                 score,
                                 budget,
                                 batch,
                                 a.no_compile_prune ? std::function<bool(const autotune::point&)>{}
                                                    : std::function<bool(const autotune::point&)>(pruned));

    // The per-case table of a GPU run, from the cache: the best point's medians, and the
    // reference, initial kernel and vendor baselines the tune that wrote the cache timed.
    const auto context = autotune::evaluation_cache::read_context(cache.file());
    json::object summary;
    if (r.best)
        if (const auto hit = cache.lookup(cache.key(strat.candidate_for(r.best->first))))
        {
            json::object medians;
            for (const auto& [name, us] : hit->case_median_us)
                medians[name] = us;
            summary["best"] = json::object{{"id", "offline"}, {"case_median_us", std::move(medians)}};
        }
    if (context)
        for (const char* key : {"reference", "initial", "baselines"})
            if (const json::value* v = lenient::value_at(*context, key))
                summary[key] = *v;
    const json::object* context_device = context ? object_at(*context, "device") : nullptr;
    const json::object& measured_on = context_device ? *context_device : *device;
    if (summary.contains("best"))
    {
        const auto spec = a.roofline.empty() ? autotune::roofline_spec::load_for(w)
                                             : std::optional(autotune::roofline_spec::load(a.roofline));
        if (auto roofline = best_roofline(spec, w, measured_on, summary); !roofline.is_null())
            summary["roofline"] = std::move(roofline);
    }
    const std::string device_name = lenient::string_or(measured_on, "name", "an unknown device");

    json::object out = r.curve.to_json();
    out["strategy"] = a.strategy;
    out["seed"] = a.seed;
    out["workload"] = w.name;
    out["replay_of"] = device_name;
    out["cache"] = cache.file().string();
    out["cached_points"] = cache.size();
    out["asked"] = r.asked;
    out["measured"] = r.evaluated;
    out["unknown_points"] = r.unknown;
    out["pruned_after_compile"] = r.pruned;
    out["first_unknown_at"] = r.first_unknown_at ? json::value(*r.first_unknown_at) : json::value(nullptr);
    out["exhausted"] = r.exhausted;
    out["best_point"] = r.best ? json::value(strat.space().to_json(r.best->first)) : json::value(nullptr);
    out["summary"] = summary;
    if (a.json_progress)
    {
        write_stdout(json::serialize(out) + "\n");
        return 0;
    }
    std::string text = "offline replay of measurements taken on " + device_name +
                       " (no GPU used): " + cache.file().string() + ", " + std::to_string(cache.size()) +
                       " measured points\n" + a.strategy + " seed " + std::to_string(a.seed) + ": " +
                       std::to_string(r.asked) + " evaluations, " + std::to_string(r.evaluated) +
                       " with a measurement";
    if (r.pruned > 0)
        text += ", " + std::to_string(r.pruned) + " pruned after compile (not counted, as on the GPU)";
    if (r.unknown > 0)
        text += ", " + std::to_string(r.unknown) +
                " without one (told +inf like a failed point; first at evaluation " +
                std::to_string(*r.first_unknown_at) + ": a GPU run would have measured them)";
    text += (r.exhausted ? ", space exhausted" : "") + std::string("\n");
    if (r.best)
    {
        text += "best " + fmt("%.2f us", r.best->second) + " at evaluation " +
                std::to_string(*r.curve.time_to_best()) + ": " + strat.space().describe(r.best->first) + "\n";
        text += baseline_case_table(summary, w, true);
        if (!context)
            text += "(no " + autotune::evaluation_cache::context_file_of(cache.file()).filename().string() +
                    " beside the cache: the reference, initial and vendor columns need a tune with this "
                    "version)\n";
    }
    else
        text += "no valid point\n";
    write_stdout(text);
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
