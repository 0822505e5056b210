// warpsmith tune: model-free autotuning (SPEC §6; docs/autotune.md). Runs the engine's search with
// the autotune strategy (agents/autotune): the workload's tunable kernel with its tunables as -D
// defines, points pruned by restrictions and device limits before they compile and by registers
// and shared memory after, a run directory like optimize's plus tune.json and tune_curve.json, an
// evaluation cache that lets a tune resume and strategies re-use each other's measurements without
// the GPU, and a final table with the best point, per-case times, speedups, vendor baselines (when
// the summary has them) and the roofline. --offline replays a strategy against the cache alone.

#include "agents/autotune/autotune_strategy.hpp"
#include "agents/autotune/evaluation_cache.hpp"
#include "agents/autotune/offline_replay.hpp"
#include "agents/autotune/roofline.hpp"
#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/eval_session.hpp"
#include "engine/report/run_report.hpp"
#include "engine/run/journal.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/run/run_replay.hpp"
#include "engine/search/clock.hpp"
#include "engine/search/executor_backend.hpp"
#include "engine/search/progress.hpp"
#include "engine/search/search_engine.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/workload/input_generator.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/json.hpp>

#include <CLI/CLI.hpp>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
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

struct tune_args
{
    std::string workload;
    std::string strategy = "anneal";
    int budget = 100;
    std::uint64_t seed = 1;
    int branches = 1;
    int async = 0;
    double max_wall_time = 0;
    double grace_seconds = 30;
    std::vector<std::string> options;
    bool no_compile_prune = false;
    std::size_t population = 12;
    // Evaluation.
    std::string gpus = "all";
    worker_options worker;
    int compile_workers = 0;
    bool in_process_compile = false;
    std::string timing = "cold";
    int warmup = 10;
    int iterations = 100;
    int launch_timeout_ms = 10000;
    int confirm_top = 3;
    bool no_measure = false;
    // Cache and output.
    bool no_eval_cache = false;
    std::string eval_cache;
    std::string roofline;
    std::string results = "results";
    std::string resume;
    bool offline = false;
    bool json_progress = false;

    CLI::App* cmd = nullptr;
    bool given(const std::string& flag) const { return cmd->get_option(flag)->count() > 0; }
};

// ---- small helpers (the same rules as optimize's) ----

std::vector<int> parse_gpus(const tune_args& a)
{
    if (a.gpus == "all")
    {
        if (!a.worker.worker_cmd.empty())
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
    std::stringstream ss(a.gpus);
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
            throw user_error("--gpus " + a.gpus + ": expected 'all' or device indices like 0,2,3");
        if (!seen.insert(d).second)
            throw user_error("--gpus " + a.gpus + ": device " + std::to_string(d) + " is listed twice");
        out.push_back(d);
    }
    if (out.empty())
        throw user_error("--gpus " + a.gpus + ": expected 'all' or device indices like 0,2,3");
    return out;
}

json::array command_line()
{
    json::array out;
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string arg;
    while (std::getline(f, arg, '\0'))
        out.emplace_back(arg);
    return out;
}

std::string fmt(const char* f, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

double num(const json::value* v)
{
    return v && v->is_number() ? v->to_number<double>() : 0;
}

const json::object* obj(const json::value* v)
{
    return v && v->is_object() ? &v->get_object() : nullptr;
}

std::map<std::string, double> medians_of(const json::value* v)
{
    std::map<std::string, double> out;
    if (const auto* o = obj(v))
        for (const auto& kv : *o)
            if (kv.value().is_number())
                out[std::string(kv.key())] = kv.value().to_number<double>();
    return out;
}

void write_stdout(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
}

// ---- the evaluation cache in front of the GPUs ----

/// An evaluation_backend that answers evaluations of candidates from the evaluation cache and
/// stores what the GPUs measure (docs/autotune.md, "Evaluation cache"). The reference, the initial
/// kernel and the final confirmation always run on the GPU: they are what this session's speedups
/// and winner are measured against.
class cached_backend final : public evaluation_backend
{
public:
    cached_backend(evaluation_backend& inner,
                   std::optional<fs::path> dir,
                   std::string run,
                   json::object timing)
        : inner_(inner), dir_(std::move(dir)), run_(std::move(run)), timing_(std::move(timing))
    {
    }

    asio::awaitable<void> start(const workload& w, std::uint64_t hidden_seed) override
    {
        co_await inner_.start(w, hidden_seed);
        caches_.clear();
        if (dir_)
            for (int g = 0; g < inner_.gpu_count(); ++g)
                caches_.push_back(
                    std::make_unique<autotune::evaluation_cache>(w, inner_.device_info(g), timing_, *dir_));
    }

    asio::awaitable<compile_output> compile(compile_request request) override
    {
        co_return co_await inner_.compile(std::move(request));
    }

    asio::awaitable<gpu_evaluation> evaluate(int gpu, evaluate_request request) override
    {
        const bool cacheable_request = gpu >= 0 && gpu < static_cast<int>(caches_.size()) &&
                                       request.name != "reference" && request.name != "initial" &&
                                       !request.validate_only && request.cases.empty();
        if (!cacheable_request)
            co_return co_await inner_.evaluate(gpu, std::move(request));
        auto& cache = *caches_[static_cast<std::size_t>(gpu)];
        const auto key = cache.key(request.cand);
        if (auto hit = cache.lookup(key))
        {
            ++hits_;
            gpu_evaluation ev;
            ev.result = hit->result;
            if (auto* o = ev.result.if_object())
                (*o)["eval_cache"] = json::object{{"hit", true},
                                                  {"run", hit->run},
                                                  {"candidate", hit->candidate},
                                                  {"time", hit->time},
                                                  {"key", key}};
            ev.device = gpu;
            co_return ev;
        }
        ++misses_;
        const candidate cand = request.cand;
        const std::string name = request.name;
        auto ev = co_await inner_.evaluate(gpu, std::move(request));
        if (!ev.worker_restarted && autotune::cacheable_result(ev.result))
        {
            try
            {
                cache.store(autotune::make_cache_entry(key, cand, ev.result, name, run_));
                ++stores_;
            }
            catch (const std::exception& e)
            {
                log_warn(std::string("evaluation cache: ") + e.what());
            }
        }
        co_return ev;
    }

    asio::awaitable<json::object> time_interleaved(
        int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds) override
    {
        co_return co_await inner_.time_interleaved(gpu, std::move(entries), rounds);
    }

    asio::awaitable<baseline_outcome> baseline(int gpu, baseline_request request) override
    {
        co_return co_await inner_.baseline(gpu, std::move(request));
    }

    asio::awaitable<void> stop() override { co_await inner_.stop(); }
    int gpu_count() const override { return inner_.gpu_count(); }
    const json::object& device_info(int gpu) const override { return inner_.device_info(gpu); }
    gpu_status status(int gpu) const override { return inner_.status(gpu); }
    int compiles_in_flight() const override { return inner_.compiles_in_flight(); }

    json::object stats() const
    {
        json::array files;
        std::set<std::string> seen;
        for (const auto& c : caches_)
            if (seen.insert(c->file().string()).second)
                files.push_back(json::value(c->file().string()));
        return json::object{{"enabled", dir_.has_value()},
                            {"files", std::move(files)},
                            {"hits", hits_},
                            {"misses", misses_},
                            {"stored", stores_}};
    }

private:
    evaluation_backend& inner_;
    std::optional<fs::path> dir_;
    std::string run_;
    json::object timing_;
    std::vector<std::unique_ptr<autotune::evaluation_cache>> caches_;
    int hits_ = 0, misses_ = 0, stores_ = 0;
};

// ---- the plan: everything checked before a worker starts ----

struct tune_plan
{
    workload work;
    autotune_options tune;
    search_options search;
    executor_backend_options backend;
    std::optional<run_directory> run;
    json::object run_info;
    std::optional<replayed_run> resume;
    std::optional<fs::path> cache_dir;
    std::optional<autotune::roofline_spec> roofline;
};

void check_flags(const tune_args& a)
{
    if (!a.resume.empty())
    {
        for (const char* f : {"--strategy",
                              "--seed",
                              "--branches",
                              "--async",
                              "--timing",
                              "--warmup",
                              "--iterations",
                              "--option",
                              "--no-compile-prune",
                              "--population",
                              "--results",
                              "--offline"})
            if (a.given(f))
                throw user_error(
                    std::string("--resume continues a tune with its own workload and settings; ") + f +
                    " cannot be combined with it");
        if (!a.workload.empty())
            throw user_error("--resume continues a tune with its own workload; give no WORKLOAD with it");
        return;
    }
    if (a.workload.empty())
        throw user_error(
            "tune: give a WORKLOAD directory (e.g. bench/workloads/sgemm) or --resume results/run-NNN");
    if (a.given("--async") && a.given("--branches"))
        throw user_error(
            "--async N replaces --branches (N proposals in flight, no iteration barrier); give one of them");
    if (a.offline && a.no_eval_cache)
        throw user_error(
            "--offline replays the evaluation cache; it cannot be combined with --no-eval-cache");
}

autotune_options tune_options_from(const tune_args& a, const search_options& search)
{
    autotune_options t;
    t.strategy = a.strategy;
    t.optimizer.seed = a.seed;
    t.optimizer.population = a.population;
    if (search.budgets.candidates)
        t.optimizer.expected_evaluations = static_cast<std::size_t>(*search.budgets.candidates);
    if (search.budgets.wall_seconds)
        t.max_wall_seconds = search.budgets.wall_seconds;
    t.prune_after_compile = !a.no_compile_prune;
    t.compile_options = a.options;
    return t;
}

json::object tune_config_json(const autotune_options& t, const std::optional<fs::path>& cache_dir)
{
    json::array opts;
    for (const auto& o : t.compile_options)
        opts.push_back(json::value(o));
    return json::object{
        {"strategy", t.strategy},
        {"seed", t.optimizer.seed},
        {"expected_evaluations", t.optimizer.expected_evaluations},
        {"population", t.optimizer.population},
        {"prune_after_compile", t.prune_after_compile},
        {"compile_options", std::move(opts)},
        {"eval_cache", cache_dir ? json::value(fs::absolute(*cache_dir).string()) : json::value(nullptr)}};
}

autotune_options tune_options_from_json(const json::value& v, const std::string& origin)
{
    const auto* o = obj(&v);
    if (!o || !o->contains("strategy"))
        throw user_error(origin + ": 'config.tune' is missing; this run was not made by warpsmith tune");
    autotune_options t;
    t.strategy = std::string(o->at("strategy").as_string());
    t.optimizer.seed = o->at("seed").to_number<std::uint64_t>();
    t.optimizer.expected_evaluations = o->at("expected_evaluations").to_number<std::size_t>();
    if (const auto* p = o->if_contains("population"); p && p->is_number())
        t.optimizer.population = p->to_number<std::size_t>();
    if (const auto* p = o->if_contains("prune_after_compile"); p && p->is_bool())
        t.prune_after_compile = p->get_bool();
    if (const auto* c = o->if_contains("compile_options"); c && c->is_array())
        for (const auto& x : c->get_array())
            t.compile_options.emplace_back(x.as_string());
    return t;
}

budget_limits budgets_from(const tune_args& a, budget_limits base, bool fresh)
{
    if (a.given("--budget") || (fresh && a.strategy != "grid"))
        base.candidates = a.budget;
    if (a.given("--max-wall-time"))
        base.wall_seconds = a.max_wall_time;
    return base;
}

tune_plan prepare(const tune_args& a)
{
    check_flags(a);
    tune_plan p;
    p.backend.devices = parse_gpus(a);
    p.backend.launch = a.worker.launch();
    p.backend.compile.workers = a.compile_workers;
    p.backend.compile.in_process = a.in_process_compile;
    p.backend.gpu.launch_timeout = std::chrono::milliseconds(a.launch_timeout_ms);
    p.backend.measure = !a.no_measure;

    if (!a.resume.empty())
    {
        p.run = run_directory::open(a.resume);
        const auto origin = p.run->run_json_path().string();
        const auto run_json = read_json_file(p.run->run_json_path());
        const auto* config = obj(run_json.as_object().if_contains("config"));
        if (!config)
            throw user_error(origin + ": 'config' is missing; cannot resume");
        p.search = search_options::from_json(config->at("search"), origin);
        p.search.budgets = budgets_from(a, p.search.budgets, false);
        if (a.given("--grace-seconds"))
            p.search.grace_seconds = a.grace_seconds;
        if (a.given("--confirm-top"))
            p.search.confirm_top = a.confirm_top;
        const auto* tune = config->if_contains("tune");
        if (!tune)
            throw user_error(origin + ": 'config.tune' is missing; this run was not made by warpsmith tune");
        p.tune = tune_options_from_json(*tune, origin);
        if (p.search.budgets.candidates)
            p.tune.optimizer.expected_evaluations = static_cast<std::size_t>(*p.search.budgets.candidates);
        p.tune.max_wall_seconds = p.search.budgets.wall_seconds;
        if (const auto* c = tune->as_object().if_contains("eval_cache");
            c && c->is_string() && !a.no_eval_cache)
            p.cache_dir = fs::path(std::string(c->get_string()));
        if (a.given("--eval-cache"))
            p.cache_dir = fs::path(a.eval_cache);
        p.work = workload::load(p.run->workload_dir() / "workload.json");
        p.resume = replay_events(read_journal(p.run->journal_path()).events);
        p.run_info = run_json.as_object();
        p.run_info["config"].as_object()["search"] = p.search.to_json();
        p.run_info["config"].as_object()["tune"] = tune_config_json(p.tune, p.cache_dir);
        if (!a.roofline.empty())
            p.roofline = autotune::roofline_spec::load(a.roofline);
        else
            p.roofline = autotune::roofline_spec::load_for(p.work);
        return p;
    }

    p.work = workload::load(a.workload);
    p.search.branches = a.given("--async") ? a.async : a.branches;
    p.search.async = a.given("--async");
    p.search.budgets = budgets_from(a, budget_limits{}, true);
    p.search.grace_seconds = a.grace_seconds;
    p.search.confirm_top = a.confirm_top;
    p.search.timing.mode = a.timing;
    p.search.timing.warmup = a.warmup;
    p.search.timing.iterations = a.iterations;
    // An invalid point is just a bad point: the next one comes from the optimizer, not a repair.
    p.search.max_repairs = 0;
    p.search.hidden_seed =
        a.given("--seed") ? splitmix64_mix(a.seed ^ 0x68696464656e5eedULL) : random_hidden_seed();
    p.tune = tune_options_from(a, p.search);
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
    p.run_info = json::object{
        {"tool", "warpsmith"},
        {"version", WARPSMITH_VERSION},
        {"command", "tune"},
        {"command_line", command_line()},
        {"cwd", fs::current_path().string()},
        {"config",
         json::object{{"workload", json::object{{"workload", fs::absolute(a.workload).string()}}},
                      {"provider", json::object{{"name", "autotune"}, {"seed", a.seed}}},
                      {"tune", tune_config_json(p.tune, p.cache_dir)},
                      {"search", p.search.to_json()},
                      {"evaluation",
                       json::object{{"gpus", a.gpus},
                                    {"worker", a.worker.worker},
                                    {"worker_cmd", a.worker.worker_cmd},
                                    {"compile_workers", a.compile_workers},
                                    {"in_process_compile", a.in_process_compile},
                                    {"launch_timeout_ms", a.launch_timeout_ms}}}}},
        {"sessions", json::array{}}};
    return p;
}

// ---- roofline and the final table ----

/// {"ceilings", "spec", "cases": {case: floor (+ time, fraction of the best)}} or null.
json::value roofline_section(const tune_plan& p,
                             const json::object& device,
                             const std::map<std::string, double>& best)
{
    if (!p.roofline)
        return nullptr;
    return autotune::roofline_summary(*p.roofline, p.work, device, best);
}

/// The best candidate's per-case medians: its confirmation timings when there are any.
std::map<std::string, double> best_medians(const json::object& summary)
{
    const auto* best = obj(summary.if_contains("best"));
    if (!best)
        return {};
    if (const auto* conf = obj(best->if_contains("confirmation")))
        if (auto m = medians_of(conf->if_contains("case_median_us")); !m.empty())
            return m;
    return medians_of(best->if_contains("case_median_us"));
}

std::map<std::string, double> baseline_medians(const json::object& summary, const char* key)
{
    const auto* b = obj(summary.if_contains(key));
    if (!b)
        return {};
    const auto* per_gpu = b->if_contains("per_gpu");
    if (!per_gpu || !per_gpu->is_array() || per_gpu->get_array().empty())
        return {};
    return medians_of(per_gpu->get_array()[0].as_object().if_contains("case_median_us"));
}

std::string format_count(double x, bool exact)
{
    return (exact ? "" : "~") + (x < 1e9 ? fmt("%.0f", x) : fmt("%.3g", x));
}

std::string final_table(const json::object& s,
                        const json::object& tune,
                        const fs::path& run_path,
                        const workload& w,
                        const std::optional<json::object>& best_point)
{
    std::string out;
    const auto& c = s.at("candidates").as_object();
    out += "tune " + run_path.string() + ": " + std::string(s.at("status").as_string()) + " (" +
           std::string(s.at("stop_reason").as_string()) + "), " + tune.at("strategy").as_string().c_str() +
           " seed " + std::to_string(tune.at("seed").to_number<std::uint64_t>()) + ", " +
           std::to_string(c.at("evaluated").as_int64()) + " evaluated (" +
           std::to_string(c.at("valid").as_int64()) + " valid), " +
           std::to_string(tune.at("pruned").at("count").to_number<std::int64_t>()) +
           " pruned after compile, " + fmt("%.1f s", num(s.if_contains("wall_seconds"))) + ", GPU busy " +
           fmt("%.0f%%", 100 * num(s.if_contains("gpu_busy_fraction"))) + "\n";
    if (const auto* space = obj(tune.if_contains("space")))
    {
        const bool exact = space->at("exact").as_bool();
        out += "space: " + format_count(num(space->if_contains("total")), true) + " points, " +
               format_count(num(space->if_contains("satisfy_restrictions")), exact) +
               " satisfy the restrictions, " + format_count(num(space->if_contains("feasible")), exact) +
               " fit the device limits\n";
    }
    if (const auto* cache = obj(tune.if_contains("eval_cache")); cache && cache->at("enabled").as_bool())
        out += "evaluation cache: " + std::to_string(cache->at("hits").as_int64()) + " hits, " +
               std::to_string(cache->at("stored").as_int64()) + " stored\n";

    const auto* best = obj(s.if_contains("best"));
    if (!best)
    {
        out += "no valid kernel was found\n";
        return out;
    }
    std::string point_text;
    if (best_point)
        for (const auto& kv : *best_point)
            point_text += (point_text.empty() ? "" : " ") + std::string(kv.key()) + "=" +
                          std::to_string(kv.value().to_number<std::int64_t>());
    out += "best " + std::string(best->at("id").as_string()) + (point_text.empty() ? "" : ": " + point_text) +
           " (" + std::string(best->at("decided_by").as_string()) + ")\n";

    const auto mine = best_medians(s);
    const auto ref = baseline_medians(s, "reference");
    const auto init = baseline_medians(s, "initial");
    // Vendor baselines (e.g. cuBLAS) when the summary has a "baselines" section:
    // {"baselines": {"cublas": {"case_median_us": {...}}}}.
    std::vector<std::pair<std::string, std::map<std::string, double>>> vendors;
    if (const auto* b = obj(s.if_contains("baselines")))
        for (const auto& kv : *b)
            if (const auto* bo = obj(&kv.value()))
                vendors.emplace_back(std::string(kv.key()), medians_of(bo->if_contains("case_median_us")));
    const auto* roof = obj(s.if_contains("roofline"));
    const auto* roof_cases = roof ? obj(roof->if_contains("cases")) : nullptr;

    std::size_t name_w = 8;
    for (const auto& k : w.cases)
        if (k.role == case_role::performance)
            name_w = std::max(name_w, k.name.size());
    auto cell = [](const std::string& t, std::size_t width)
    { return std::string(width > t.size() ? width - t.size() : 0, ' ') + t; };
    std::string header = "  " + std::string("case") + std::string(name_w - 4, ' ') + cell("best (us)", 12) +
                         cell("ref (us)", 12) + cell("vs ref", 9);
    if (!init.empty())
        header += cell("initial", 12) + cell("vs init", 9);
    for (const auto& [name, m] : vendors)
        header += cell(name, 12) + cell("vs " + name, 10);
    if (roof_cases)
        header += cell("roofline", 18);
    out += header + "\n";
    double log_mine = 0, log_ref = 0, log_init = 0;
    int n_ref = 0, n_init = 0, n = 0;
    for (const auto& k : w.cases)
    {
        if (k.role != case_role::performance)
            continue;
        auto get = [&](const std::map<std::string, double>& m) -> std::optional<double>
        {
            auto it = m.find(k.name);
            return it == m.end() ? std::nullopt : std::optional<double>(it->second);
        };
        const auto b = get(mine), r = get(ref), i = get(init);
        std::string line = "  " + k.name + std::string(name_w - k.name.size(), ' ');
        line += cell(b ? fmt("%.2f", *b) : "-", 12) + cell(r ? fmt("%.2f", *r) : "-", 12) +
                cell(b && r ? fmt("%.2fx", *r / *b) : "-", 9);
        if (!init.empty())
            line += cell(i ? fmt("%.2f", *i) : "-", 12) + cell(b && i ? fmt("%.2fx", *i / *b) : "-", 9);
        for (const auto& [name, m] : vendors)
        {
            const auto v = get(m);
            line += cell(v ? fmt("%.2f", *v) : "-", 12) + cell(b && v ? fmt("%.2fx", *v / *b) : "-", 10);
        }
        if (roof_cases)
        {
            std::string r_text = "-";
            if (const auto* rc = obj(roof_cases->if_contains(k.name)); rc && rc->contains("fraction"))
                r_text = fmt("%.0f%% ", 100 * num(rc->if_contains("fraction"))) +
                         std::string(rc->at("bound").as_string());
            line += cell(r_text, 18);
        }
        out += line + "\n";
        if (b)
        {
            log_mine += std::log(*b);
            ++n;
            if (r)
                log_ref += std::log(*r / *b), ++n_ref;
            if (i)
                log_init += std::log(*i / *b), ++n_init;
        }
    }
    if (n > 1)
    {
        std::string line = "  " + std::string("geomean") + std::string(name_w - 7, ' ') +
                           cell(fmt("%.2f", std::exp(log_mine / n)), 12) + cell("", 12) +
                           cell(n_ref ? fmt("%.2fx", std::exp(log_ref / n_ref)) : "-", 9);
        if (!init.empty())
            line += cell("", 12) + cell(n_init ? fmt("%.2fx", std::exp(log_init / n_init)) : "-", 9);
        out += line + "\n";
    }
    if (roof)
        if (const auto* ce = obj(roof->if_contains("ceilings")))
            out += "roofline ceilings (" + std::string(ce->at("source").as_string()) +
                   "): " + fmt("%.0f GB/s, ", num(ce->if_contains("bandwidth_gbps"))) +
                   fmt("%.1f FP32 TFLOP/s\n", num(ce->if_contains("fp32_tflops")));
    // A vendor baseline in reduced precision (cuBLAS TF32) is timed, but misses the tolerance the
    // kernels are held to: say so next to its numbers.
    for (const auto& [name, m] : vendors)
        if (const auto* bo = obj(obj(s.if_contains("baselines"))->if_contains(name)))
            if (const auto* wt = bo->if_contains("within_tolerance"); wt && wt->is_bool() && !wt->get_bool())
                out += name + ": outside the workload's tolerance (max abs error " +
                       fmt("%.3g", num(bo->if_contains("max_abs_error"))) + "); timed for reference only\n";
    return out;
}

// ---- running it ----

struct interrupt_hook
{
    std::function<void()> on_first;
};

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
        const auto kind = ev.at("event").as_string();
        std::string line;
        if (kind == "tune_space")
        {
            const auto& s = ev.at("space").as_object();
            const bool exact = s.at("exact").as_bool();
            line = "search space: " + format_count(num(s.if_contains("total")), true) + " points, " +
                   format_count(num(s.if_contains("satisfy_restrictions")), exact) +
                   " satisfy the restrictions, " + format_count(num(s.if_contains("feasible")), exact) +
                   " fit the device limits (strategy " + std::string(ev.at("strategy").as_string()) +
                   ", seed " + std::to_string(ev.at("seed").to_number<std::uint64_t>()) + ")";
        }
        else if (kind == "tune_pruned")
        {
            std::string point;
            for (const auto& kv : ev.at("point").as_object())
                point += (point.empty() ? "" : " ") + std::string(kv.key()) + "=" +
                         std::to_string(kv.value().to_number<std::int64_t>());
            line = "pruned " + point + ": " + std::string(ev.at("reason").as_string());
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

asio::awaitable<int> tune_main(asio::io_context& ioc,
                               std::shared_ptr<tune_args> args,
                               std::shared_ptr<tune_plan> p,
                               std::shared_ptr<interrupt_hook> hook)
{
    steady_clock_source clock;
    const bool json_mode = args->json_progress;
    autotune_strategy strat(p->work, p->tune, tune_event_printer(json_mode));
    executor_backend gpus(ioc, p->backend);
    cached_backend backend(gpus, p->cache_dir, p->run->name(), p->search.timing.to_json());
    const std::int64_t next_seq = p->resume ? p->resume->next_seq : 1;
    journal_writer journal(p->run->journal_path(), next_seq);

    const auto mode = json_mode                 ? progress_mode::json
                      : ::isatty(STDERR_FILENO) ? progress_mode::tty
                                                : progress_mode::plain;
    progress_reporter progress(mode, mode == progress_mode::json ? stdout : stderr);
    if (mode != progress_mode::json)
        std::fprintf(stderr, "%s %s\n", p->resume ? "resuming" : "tune", p->run->path().c_str());

    search_engine engine(
        ioc, backend, strat, clock, p->work, p->search, *p->run, journal, p->run_info, &progress);
    hook->on_first = [&engine] { engine.request_stop("interrupted", true); };
    search_result res;
    std::exception_ptr error;
    try
    {
        res = co_await engine.run(std::move(p->resume));
    }
    catch (...)
    {
        error = std::current_exception();
    }
    hook->on_first = nullptr;
    progress.finish();
    co_await backend.stop();
    if (error)
        std::rethrow_exception(error);

    // The tune's own files next to the engine's: tune.json, tune_curve.json, and the summary with
    // "tune" and "roofline" sections.
    json::object report = strat.report();
    report["eval_cache"] = backend.stats();
    json::object curve = strat.curve().to_json();
    curve["strategy"] = p->tune.strategy;
    curve["seed"] = p->tune.optimizer.seed;
    curve["workload"] = p->work.name;
    std::optional<json::object> best_point;
    if (const auto* best = obj(res.summary.if_contains("best")))
        for (const auto& c : engine.history())
            if (c.id == best->at("id").as_string())
                if (const auto* pt = obj(c.meta.if_contains("point")))
                    best_point = *pt;
    json::object summary = res.summary;
    summary["tune"] =
        json::object{{"strategy", p->tune.strategy},
                     {"seed", p->tune.optimizer.seed},
                     {"space", report.contains("space") ? report.at("space") : json::value(nullptr)},
                     {"pruned", report.at("pruned").at("count")},
                     {"time_to_best", report.at("time_to_best")},
                     {"best_point", best_point ? json::value(*best_point) : json::value(nullptr)},
                     {"eval_cache", backend.stats()}};
    if (backend.gpu_count() > 0)
        summary["roofline"] = roofline_section(*p, backend.device_info(0), best_medians(summary));
    try
    {
        p->run->write_json("tune.json", report);
        p->run->write_json("tune_curve.json", curve);
        p->run->write_json("summary.json", summary);
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("cannot write the tune files: ") + e.what());
    }
    report::write_run_report_noexcept(p->run->path());  // heatmap.svg/.png, report.html (docs/reports.md)

    if (mode == progress_mode::json)
        write_stdout(json::serialize(json::object{
                         {"type", "summary"}, {"run", p->run->path().string()}, {"summary", summary}}) +
                     "\n");
    else
        write_stdout(final_table(summary, report, p->run->path(), p->work, best_point));
    if (res.status == "failed")
        throw std::runtime_error("the tune failed: " + res.error + " (the journal is intact; --resume " +
                                 p->run->path().string() + " continues)");
    co_return res.exit_code;
}

int run_tune(std::shared_ptr<tune_args> args)
{
    auto plan = std::make_shared<tune_plan>(prepare(*args));
    asio::io_context ioc;
    asio::signal_set signals(ioc, SIGINT, SIGTERM);
    auto hook = std::make_shared<interrupt_hook>();
    bool interrupted = false;
    std::function<void(const boost::system::error_code&, int)> on_signal;
    on_signal = [&](const boost::system::error_code& ec, int)
    {
        if (ec)
            return;
        if (interrupted)
        {
            std::fputs("\nwarpsmith: aborted; the journal is intact (--resume continues)\n", stderr);
            std::_Exit(130);
        }
        interrupted = true;
        log_warn(
            "interrupted: no more points; the GPU finishes its current evaluation, then the run is "
            "finalized. "
            "Ctrl-C again to abort at once.");
        if (hook->on_first)
            hook->on_first();
        signals.async_wait(on_signal);
    };
    signals.async_wait(on_signal);

    int code = 0;
    std::exception_ptr error;
    auto on_done = [&](std::exception_ptr e, int value)
    {
        error = e;
        code = value;
        boost::system::error_code ignored;
        signals.cancel(ignored);
    };
    asio::co_spawn(ioc, tune_main(ioc, args, plan, hook), on_done);
    ioc.run();
    if (error)
        std::rethrow_exception(error);
    if (interrupted && code == 0)
        code = 130;
    return code;
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
    timing_options timing;
    timing.mode = a.timing;
    timing.warmup = a.warmup;
    timing.iterations = a.iterations;
    autotune::evaluation_cache cache(w, *device, timing.to_json(), dir);
    if (cache.file() != files[0])
        throw user_error("--offline: " + files[0].string() +
                         " was written for another version of this workload");

    autotune_options t;
    t.strategy = a.strategy;
    t.optimizer.seed = a.seed;
    t.optimizer.population = a.population;
    t.compile_options = a.options;
    const bool budgeted = a.given("--budget") || a.strategy != "grid";
    t.optimizer.expected_evaluations = budgeted ? static_cast<std::size_t>(a.budget) : 0;
    autotune_strategy strat(w, t);
    strat.prepare(*device);
    std::size_t budget = budgeted ? static_cast<std::size_t>(a.budget) : static_cast<std::size_t>(-1);
    auto score = [&](const autotune::point& pt) -> std::optional<double>
    {
        const auto hit = cache.lookup(cache.key(strat.candidate_for(pt)));
        if (!hit)
            return std::nullopt;
        return hit->valid && hit->score_us ? *hit->score_us : autotune::infeasible_score;
    };
    const std::size_t batch = static_cast<std::size_t>(a.given("--async") ? a.async : a.branches);
    const auto r = autotune::replay_offline(strat.optimizer(), score, budget, batch);

    json::object out = r.curve.to_json();
    out["strategy"] = a.strategy;
    out["seed"] = a.seed;
    out["workload"] = w.name;
    out["cache"] = cache.file().string();
    out["cached_points"] = cache.size();
    out["unknown_points"] = r.unknown;
    out["exhausted"] = r.exhausted;
    out["best_point"] = r.best ? json::value(strat.space().to_json(r.best->first)) : json::value(nullptr);
    if (a.json_progress)
    {
        write_stdout(json::serialize(out) + "\n");
        return 0;
    }
    std::string s = "offline " + a.strategy + " seed " + std::to_string(a.seed) + " on " +
                    cache.file().string() + " (" + std::to_string(cache.size()) +
                    " cached points): " + std::to_string(r.evaluated) + " evaluated, " +
                    std::to_string(r.unknown) + " not in the cache (told +inf)" +
                    (r.exhausted ? ", space exhausted" : "") + "\n";
    if (r.best)
        s += "best " + fmt("%.2f us", r.best->second) + " at evaluation " +
             std::to_string(*r.curve.time_to_best()) + ": " + strat.space().describe(r.best->first) + "\n";
    else
        s += "no valid point\n";
    write_stdout(s);
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
docs/autotune.md.
Exit codes: 0 finished, 1 the tune failed, 2 bad input (flag, file, no GPU), 130 interrupted.)";

}  // namespace

void add_tune_command(CLI::App& app)
{
    auto a = std::make_shared<tune_args>();
    CLI::App* cmd = app.add_subcommand("tune", "Autotune a workload's tunable kernel without a model");
    a->cmd = cmd;
    cmd->add_option("workload", a->workload, "Workload directory or workload.json with tunables");

    const char* search_group = "Search";
    cmd->add_option("--strategy", a->strategy, "grid, random, local, anneal (default) or genetic")
        ->check(CLI::IsMember({"grid", "random", "local", "anneal", "genetic"}))
        ->group(search_group);
    cmd->add_option("--budget", a->budget, "GPU evaluations (default 100; grid: the whole space)")
        ->check(CLI::PositiveNumber)
        ->group(search_group);
    cmd->add_option("--seed", a->seed, "Seed of the strategy (default 1) and of the hidden validation inputs")
        ->group(search_group);
    cmd->add_option("--branches", a->branches, "Points proposed together each iteration (default 1)")
        ->check(CLI::PositiveNumber)
        ->group(search_group);
    cmd->add_option(
           "--async", a->async, "N points in flight without iteration barriers (instead of --branches)")
        ->check(CLI::PositiveNumber)
        ->group(search_group);
    cmd->add_option(
           "--max-wall-time", a->max_wall_time, "Seconds of this session (also shapes anneal's schedule)")
        ->check(CLI::PositiveNumber)
        ->group(search_group);
    cmd->add_option("--grace-seconds", a->grace_seconds, "Time for work in flight after a stop (default 30)")
        ->check(CLI::NonNegativeNumber)
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

    const char* eval_group = "Evaluation";
    cmd->add_option("--gpus", a->gpus, "GPUs to use: all (default) or a list like 0,2,3")->group(eval_group);
    a->worker.add_to(*cmd);
    cmd->add_option(
           "--compile-workers", a->compile_workers, "Compile worker processes (default: CPU threads)")
        ->check(CLI::NonNegativeNumber)
        ->group(eval_group);
    cmd->add_flag("--in-process-compile", a->in_process_compile, "Compile with NVRTC in this process")
        ->group(eval_group);
    cmd->add_option("--timing", a->timing, "cold (L2 scrubbed before each launch, default) or hot")
        ->check(CLI::IsMember({"cold", "hot"}))
        ->group(eval_group);
    cmd->add_option("--warmup", a->warmup, "Warm-up launches per case (default 10)")
        ->check(CLI::NonNegativeNumber)
        ->group(eval_group);
    cmd->add_option("--iterations", a->iterations, "Measured launches per case (default 100)")
        ->check(CLI::PositiveNumber)
        ->group(eval_group);
    cmd->add_option(
           "--launch-timeout-ms", a->launch_timeout_ms, "A launch running longer is a hang (default 10000)")
        ->check(CLI::PositiveNumber)
        ->group(eval_group);
    cmd->add_option(
           "--confirm-top", a->confirm_top, "Best points re-timed interleaved at the end (default 3)")
        ->check(CLI::NonNegativeNumber)
        ->group(eval_group);
    cmd->add_flag("--no-measure",
                  a->no_measure,
                  "Do not measure copy bandwidth and FP32 rate at start (the roofline then uses datasheet figures)")
        ->group(eval_group);

    const char* out_group = "Cache and output";
    cmd->add_flag("--no-eval-cache", a->no_eval_cache, "Neither read nor write the evaluation cache")
        ->group(out_group);
    cmd->add_option(
           "--eval-cache", a->eval_cache, "Evaluation cache directory (default <results>/eval-cache)")
        ->group(out_group);
    cmd->add_option("--roofline", a->roofline, "Roofline spec (default: roofline.json next to workload.json)")
        ->group(out_group);
    cmd->add_option("--results", a->results, "Where run-NNN directories go (default results)")
        ->group(out_group);
    cmd->add_option("--resume", a->resume, "Continue results/run-NNN from its journal")->group(out_group);
    cmd->add_flag("--offline", a->offline, "Replay the strategy against the evaluation cache only (no GPU)")
        ->group(out_group);
    cmd->add_flag("--json-progress",
                  a->json_progress,
                  "Machine-readable progress and summary on stdout (JSON lines)")
        ->group(out_group);
    cmd->footer(tune_footer);
    auto run = [a] { exit_with(a->offline ? run_offline(*a) : run_tune(a)); };
    cmd->callback(run);
}

}  // namespace warpsmith
