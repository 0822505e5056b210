// warpsmith optimize: the search (SPEC §4; docs/engine.md). Assembles the workload from --workload
// or its parts, builds the strategy for --provider, claims results/run-NNN (or reopens one with
// --resume), starts one GPU worker per selected GPU and a compile pool, and runs the search loop
// with a live progress line. Ctrl-C: stop proposing, let the GPU finish, finalize, exit 130; a
// second Ctrl-C aborts at once (the journal is intact: every event is written before moving on).

#include "agents/llm/inference.hpp"
#include "agents/llm/llm_records.hpp"
#include "agents/providers/provider_registry.hpp"
#include "agents/strategies/llm_setup.hpp"
#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/cli/baseline_report.hpp"
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

#include <CLI/CLI.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/json.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

namespace warpsmith {

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct optimize_args
{
    // Workload.
    std::string workload, description, signature, reference, initial_kernel, input_cases;
    // Search.
    std::string provider = "scripted";
    std::string candidates;
    double scripted_latency_ms = 0;
    int max_iterations = 5;
    int branches = 1;
    int async = 0;
    int max_repairs = 2;
    std::uint64_t seed = 0;
    // Budgets.
    int max_candidates = 0;
    double max_wall_time = 0;
    std::int64_t max_tokens = 0;
    double max_cost = 0;
    double grace_seconds = 30;
    // Evaluation.
    std::string gpus = "all";
    worker_options worker;
    int compile_workers = 0;
    bool in_process_compile = false;
    std::string timing = "cold";
    int warmup = 10;
    int iterations = 100;
    int confirm_top = 3;
    int launch_timeout_ms = 10000;
    bool no_measure = false;
    // Output.
    std::string results = "results";
    std::string resume;
    bool json_progress = false;
    std::string config;

    // Model providers (openai, openai-chat, replay): agents/strategies/llm_setup.hpp.
    llm_options llm;

    CLI::App* cmd = nullptr;
    bool given(const std::string& flag) const { return cmd->get_option(flag)->count() > 0; }
};

/// Infers the missing parts of the workload JSON from --description (model providers only).
using infer_hook = std::function<json::object(json::object given, const fs::path& dir)>;

// ---- --config: a JSON object mirroring the flags; the command line wins ----

std::string config_value_text(const json::value& v, const std::string& origin, const std::string& key)
{
    switch (v.kind())
    {
    case json::kind::string: return std::string(v.get_string());
    case json::kind::bool_: return v.get_bool() ? "true" : "false";
    case json::kind::int64: return std::to_string(v.get_int64());
    case json::kind::uint64: return std::to_string(v.get_uint64());
    case json::kind::double_:
    {
        std::ostringstream s;
        s.precision(17);
        s << v.get_double();
        return s.str();
    }
    default: throw user_error(origin + ": '" + key + "' must be a string, number or boolean");
    }
}

void apply_config(optimize_args& a)
{
    const auto origin = a.config;
    const auto v = read_json_file(a.config);
    if (!v.is_object())
        throw user_error(origin + ": must be a JSON object whose keys are optimize flags (e.g. \"max-iterations\")");
    for (const auto& kv : v.get_object())
    {
        std::string key(kv.key());
        std::replace(key.begin(), key.end(), '_', '-');
        if (key == "config")
            throw user_error(origin + ": 'config' cannot name another config file");
        CLI::Option* opt = a.cmd->get_option_no_throw("--" + key);
        if (!opt)
            throw user_error(origin + ": unknown key '" + std::string(kv.key()) + "' (keys are optimize flags)");
        if (opt->count() > 0)
            continue;  // the command line wins
        try
        {
            if (kv.value().is_array())
                for (const auto& e : kv.value().get_array())
                    opt->add_result(config_value_text(e, origin, key));
            else
                opt->add_result(config_value_text(kv.value(), origin, key));
            opt->run_callback();
        }
        catch (const CLI::Error& e)
        {
            throw user_error(origin + ": '" + std::string(kv.key()) + "': " + e.what());
        }
    }
}

// ---- the workload, from --workload or its parts ----

json::object read_object(const std::string& path, const char* what)
{
    auto v = read_json_file(path);
    if (!v.is_object())
        throw user_error(path + ": " + what + " must be a JSON object");
    return std::move(v.get_object());
}

/// The workload JSON as used, and the supplied reference source when --reference was given.
std::pair<workload, std::optional<std::string>> assemble_workload(const optimize_args& a, const infer_hook& infer)
{
    json::object wj;
    fs::path dir = fs::current_path();
    std::string origin = "the workload";
    if (!a.workload.empty())
    {
        wj = workload::load(a.workload).to_json().as_object();
        origin = a.workload;
    }
    else if (!a.signature.empty())
    {
        auto sig = read_object(a.signature, "--signature");
        dir = fs::absolute(a.signature).parent_path();
        origin = a.signature;
        if (sig.contains("signature"))
            wj = std::move(sig);  // a partial workload.json
        else
        {
            wj["signature"] = std::move(sig);
            // A signature file may also carry the launch plan and tolerance the workload needs.
            for (const char* k : {"launch", "tolerance", "name", "description"})
                if (auto* x = wj["signature"].as_object().if_contains(k))
                {
                    wj[k] = *x;
                    wj["signature"].as_object().erase(k);
                }
        }
    }
    else if (!a.description.empty() && is_llm_provider(a.provider))
        origin = "the workload inferred from --description";
    else if (!a.description.empty())
        throw user_error("inferring a workload from --description requires a model provider (--provider openai, "
                         "openai-chat or replay); give --workload DIR (or --signature, --input-cases and --reference)");
    else
        throw user_error("nothing to optimize: give --workload DIR (or --signature, --input-cases and --reference)");

    if (!a.input_cases.empty())
    {
        auto cv = read_json_file(a.input_cases);
        if (cv.is_object() && cv.as_object().contains("cases"))
            cv = cv.as_object().at("cases");
        if (!cv.is_array())
            throw user_error(a.input_cases + ": --input-cases must be a JSON array of cases or {\"cases\": [...]}");
        wj["cases"] = std::move(cv);
        dir = fs::absolute(a.input_cases).parent_path();
    }
    std::optional<std::string> supplied;
    if (!a.reference.empty())
    {
        supplied = read_text_file(a.reference);
        wj.erase("reference");
        wj["reference_source"] = *supplied;
    }
    if (!a.initial_kernel.empty())
    {
        wj.erase("initial");
        wj.erase("initial_entry");
        wj.erase("initial_launch");
        wj["initial_source"] = read_text_file(a.initial_kernel);
        // best.json (or any <stem>.json) next to the kernel carries its entry and launch plan.
        auto sidecar = fs::path(a.initial_kernel).replace_extension(".json");
        std::error_code ec;
        if (fs::exists(sidecar, ec))
        {
            const auto side = read_object(sidecar.string(), "the kernel's sidecar");
            if (const auto* e = side.if_contains("entry"))
                wj["initial_entry"] = *e;
            if (const auto* l = side.if_contains("launch"))
                wj["initial_launch"] = *l;
        }
    }
    if (!a.description.empty())
        wj["description"] = a.description;
    if (a.workload.empty() && !a.description.empty() && is_llm_provider(a.provider) &&
        (!llm::missing_parts(wj).empty() || !wj.contains("launch")))
        wj = infer(std::move(wj), dir);
    if (!wj.contains("name"))
        wj["name"] = "workload";
    if (!wj.contains("launch"))
        throw user_error(origin + ": the workload has no launch plan ('launch'); give it in the --signature file");
    if (!wj.contains("reference") && !wj.contains("reference_source"))
        throw user_error("no reference kernel: give --reference FILE.cu (inferring one needs a model provider)");
    if (!wj.contains("cases"))
        throw user_error("no cases: give --input-cases FILE.json (inferring them needs a model provider)");
    return {workload::from_json(wj, dir, origin), supplied};
}

// ---- GPUs ----

std::vector<int> parse_gpus(const optimize_args& a)
{
    if (a.gpus == "all")
    {
        if (!a.worker.worker_cmd.empty())
            throw user_error("--gpus all counts local GPUs; with --worker-cmd name the devices (e.g. --gpus 0,1)");
        const int n = cuda::device_count();
        if (n <= 0)
            throw user_error("no CUDA device found (--gpus all)");
        std::vector<int> all(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            all[i] = i;
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

// ---- run.json ----

json::array command_line()
{
    json::array out;
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string arg;
    while (std::getline(f, arg, '\0'))
        out.emplace_back(arg);
    return out;
}

std::uint64_t hidden_seed_for(const optimize_args& a)
{
    // With --seed the hidden inputs are reproducible too; they stay hidden from models either way.
    return a.given("--seed") ? splitmix64_mix(a.seed ^ 0x68696464656e5eedULL) : random_hidden_seed();
}

// ---- the final table ----

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

std::string final_table(const json::object& s, const fs::path& run_path, const json::value& history)
{
    std::string out;
    const auto& c = s.at("candidates").as_object();
    out += "run " + run_path.string() + ": " + std::string(s.at("status").as_string()) + " (" +
           std::string(s.at("stop_reason").as_string()) + "), " + std::to_string(c.at("proposed").as_int64()) +
           " candidates (" + std::to_string(c.at("valid").as_int64()) + " valid, " +
           std::to_string(c.at("invalid").as_int64()) + " invalid" +
           (c.at("pending").as_int64() ? ", " + std::to_string(c.at("pending").as_int64()) + " pending" : "") +
           "), " + fmt("%.1f s", num(s.if_contains("wall_seconds"))) + ", GPU busy " +
           fmt("%.0f%%", 100 * num(s.if_contains("gpu_busy_fraction"))) + "\n";

    // Confirmation numbers per key, when there are any.
    std::map<std::string, const json::object*> confirmed;
    if (const auto* e = s.at("confirmation").as_object().if_contains("entries"); e && e->is_array())
        for (const auto& x : e->get_array())
            confirmed[std::string(x.at("key").as_string())] = &x.as_object();

    char line[256];
    std::snprintf(line, sizeof line, "  %-10s %12s %10s %10s %14s\n", "", "score (us)", "vs ref", "vs initial",
                  "confirmed (us)");
    out += line;
    auto row = [&](const std::string& key, double score, double vs_ref, double vs_init, bool best) {
        std::string conf = "-";
        if (auto it = confirmed.find(key); it != confirmed.end())
            conf = fmt("%.2f", num(it->second->if_contains("score_us")));
        std::snprintf(line, sizeof line, "  %-10s %12s %10s %10s %14s\n", (key + (best ? " *" : "")).c_str(),
                      score > 0 ? fmt("%.2f", score).c_str() : "-", vs_ref > 0 ? fmt("%.2fx", vs_ref).c_str() : "-",
                      vs_init > 0 ? fmt("%.2fx", vs_init).c_str() : "-", conf.c_str());
        out += line;
    };
    std::string winner;
    if (const auto* b = s.if_contains("best"); b && b->is_object())
        winner = std::string(b->at("id").as_string());
    const auto ref = s.at("reference").at("per_gpu").as_array();
    if (!ref.empty())
        row("reference", num(ref[0].as_object().if_contains("score_us")), 1.0, 0, false);
    if (const auto* init = s.if_contains("initial"); init && init->is_object())
    {
        const auto& pg = init->at("per_gpu").as_array();
        if (!pg.empty() && pg[0].at("valid").as_bool())
        {
            const double is = num(pg[0].as_object().if_contains("score_us"));
            const double rs = ref.empty() ? 0 : num(ref[0].as_object().if_contains("score_us"));
            row("initial", is, rs > 0 && is > 0 ? rs / is : 0, 1.0, winner == "initial");
        }
    }
    // The five best valid candidates by search speedup.
    std::vector<const json::object*> valid;
    if (const auto* h = history.if_object(); h && h->contains("candidates"))
        for (const auto& r : h->at("candidates").as_array())
            if (r.at("status").as_string() == "valid")
                valid.push_back(&r.as_object());
    std::sort(valid.begin(), valid.end(), [](auto* x, auto* y) {
        return num(x->if_contains("speedup_vs_reference")) > num(y->if_contains("speedup_vs_reference"));
    });
    for (std::size_t i = 0; i < valid.size() && i < 5; ++i)
    {
        const auto id = std::string(valid[i]->at("id").as_string());
        row(id, num(valid[i]->if_contains("score_us")), num(valid[i]->if_contains("speedup_vs_reference")),
            num(valid[i]->if_contains("speedup_vs_initial")), id == winner);
    }
    if (!winner.empty())
    {
        const auto& b = s.at("best").as_object();
        out += "best: " + winner + " -> " + (run_path / "best.cu").string() + " (decided by " +
               std::string(b.at("decided_by").as_string()) + ")\n";
        if (const auto* d = s.at("confirmation").as_object().if_contains("max_abs_rel_diff_vs_search"))
            out += "confirmation vs search timings: up to " + fmt("%.1f%%", 100 * num(d)) + " apart (mean " +
                   fmt("%.1f%%", 100 * num(s.at("confirmation").as_object().if_contains("mean_abs_rel_diff_vs_search"))) +
                   ")\n";
    }
    else
        out += "no valid kernel\n";
    const auto& t = s.at("tokens").as_object();
    if (num(t.if_contains("input")) > 0 || num(t.if_contains("cost_usd")) > 0)
        out += "tokens: " + std::to_string(static_cast<long long>(num(t.if_contains("input")))) + " in, " +
               std::to_string(static_cast<long long>(num(t.if_contains("output")))) + " out, " +
               fmt("$%.4f", num(t.if_contains("cost_usd"))) + "\n";
    return out;
}

// ---- the command ----

struct prepared_run
{
    std::optional<run_directory> run;
    workload work;
    search_options search;
    provider_options provider;
    executor_backend_options backend;
    json::object run_info;
    std::optional<replayed_run> resume;
    std::optional<llm_options> llm;  ///< Set for the model providers.
};

void check_flags(const optimize_args& a)
{
    if (!a.resume.empty())
    {
        for (const char* f : {"--workload", "--description", "--signature", "--reference", "--initial-kernel",
                              "--input-cases", "--provider", "--candidates", "--branches", "--async", "--timing",
                              "--warmup", "--iterations", "--seed", "--max-repairs", "--results"})
            if (a.given(f))
                throw user_error(std::string("--resume continues a run with its own workload and search settings; ") + f +
                                 " cannot be combined with it");
        if (auto given = a.llm.given_llm_flags(); !given.empty())
            throw user_error("--resume continues a run with its own model settings; " + given.front() +
                             " cannot be combined with it");
        return;
    }
    llm_options llm = a.llm;
    llm.provider = a.provider;
    llm.check();
    if (a.given("--async") && a.given("--branches"))
        throw user_error("--async N replaces --branches (N proposals in flight, no iteration barrier); give one of them");
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

/// The strategy for the run's provider; `llm` points at it for the model providers.
struct built_strategy
{
    std::unique_ptr<strategy> strat;
    llm_strategy* llm = nullptr;
};

built_strategy build_strategy(const prepared_run& p, asio::any_io_executor ex)
{
    built_strategy b;
    if (p.llm)
    {
        auto s = make_llm_strategy(*p.llm, make_model_client(*p.llm, ex), p.work);
        b.llm = s.get();
        b.strat = std::move(s);
    }
    else
        b.strat = make_strategy(p.provider, p.work);
    return b;
}

/// --description with a model provider: claims the run directory (so the exchanges are kept in
/// llm/ whatever happens), asks the model for the missing parts, and checks them on a compile pool
/// and one GPU worker before the search (agents/llm/inference.hpp).
json::object infer_workload_parts(const optimize_args& a, prepared_run& p, json::object given, const fs::path& dir)
{
    asio::io_context ioc;
    auto bundle = make_model_client(*p.llm, ioc.get_executor());  // a missing key fails before the claim
    p.backend.devices = parse_gpus(a);
    p.run = run_directory::create(a.results);
    std::fprintf(stderr, "run %s: inferring the workload from --description\n", p.run->path().c_str());
    llm::record_writer records(p.run->llm_dir(), bundle.redact);
    bundle.client->set_observer(records.observer());
    compile_pool pool(ioc, p.backend.launch, p.backend.compile);
    gpu_executor gpu(ioc, p.backend.launch, p.backend.devices.front(), p.backend.gpu);
    llm::inference_request request{a.description, std::move(given), dir};
    llm::inference_settings settings;
    settings.stream = !p.llm->no_stream;
    settings.reasoning_effort = p.llm->effective_reasoning_effort();
    const auto limits = budgets_from(a, budget_limits{});
    token_usage used;
    llm::usage_reporter report = [&](const token_usage& u) {
        used += u;
        return !(limits.tokens && budget_tracker::counted_tokens(used) >= *limits.tokens) &&
               !(limits.cost_usd && used.cost_usd >= *limits.cost_usd);
    };
    const auto hidden_seed = hidden_seed_for(a);
    llm::compile_function compile = [&pool](compile_request r) -> asio::awaitable<compile_output> {
        co_return co_await pool.compile(std::move(r));
    };
    llm::load_function load = [&gpu, hidden_seed](const workload& w) -> asio::awaitable<json::object> {
        co_return co_await gpu.load(w, hidden_seed);
    };
    std::optional<llm::inference_result> result;
    std::exception_ptr error;
    auto body = [&]() -> asio::awaitable<void> {
        try
        {
            const auto hello = co_await gpu.start();
            if (const auto* d = hello.if_contains("device"); d && d->is_object())
                if (const auto* arch = d->get_object().if_contains("arch"); arch && arch->is_string())
                    settings.arch = std::string(arch->get_string());
            result = co_await llm::infer_workload(*bundle.client, std::move(request), compile, load, report, &records,
                                                  settings);
        }
        catch (...)
        {
            error = std::current_exception();
        }
        co_await gpu.stop();
        co_await pool.stop();
    };
    asio::co_spawn(ioc, body(), asio::detached);
    ioc.run();
    if (error)
        std::rethrow_exception(error);
    json::array inferred;
    for (const auto& part : result->inferred)
        inferred.emplace_back(part);
    json::array recs;
    for (const auto& r : result->records)
        recs.emplace_back(r);
    p.run->write_json("workload/inference.json", json::object{{"description", a.description},
                                                               {"inferred", std::move(inferred)},
                                                               {"attempts", result->attempts},
                                                               {"checks", result->checks},
                                                               {"llm_records", std::move(recs)},
                                                               {"usage", to_json(result->usage)}});
    return std::move(result->workload_json);
}

prepared_run prepare(const optimize_args& a)
{
    check_flags(a);
    prepared_run p;
    p.backend.launch = a.worker.launch();
    p.backend.compile.workers = a.compile_workers;
    p.backend.compile.in_process = a.in_process_compile;
    p.backend.gpu.launch_timeout = std::chrono::milliseconds(a.launch_timeout_ms);
    p.backend.measure = !a.no_measure;

    if (!a.resume.empty())
    {
        p.run = run_directory::open(a.resume);
        const auto run_json = read_json_file(p.run->run_json_path());
        const auto* config = run_json.as_object().if_contains("config");
        if (!config || !config->is_object())
            throw user_error(p.run->run_json_path().string() + ": 'config' is missing; cannot resume");
        const auto origin = p.run->run_json_path().string();
        p.search = search_options::from_json(config->at("search"), origin);
        p.search.budgets = budgets_from(a, p.search.budgets);
        if (a.given("--grace-seconds"))
            p.search.grace_seconds = a.grace_seconds;
        if (a.given("--confirm-top"))
            p.search.confirm_top = a.confirm_top;
        const auto& prov = config->at("provider").as_object();
        p.provider.name = std::string(prov.at("name").as_string());
        if (const auto* s = prov.if_contains("seed"); s && s->is_number())
            p.provider.seed = s->to_number<std::uint64_t>();
        if (const auto* d = prov.if_contains("candidates"); d && d->is_string())
            p.provider.candidates_dir = fs::path(std::string(d->get_string()));
        double latency = 0;
        if (const auto* l = prov.if_contains("scripted_latency_ms"); l && l->is_number())
            latency = l->to_number<double>();
        if (a.given("--scripted-latency-ms"))
            latency = a.scripted_latency_ms;
        p.provider.scripted_latency = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::duration<double, std::milli>(latency));
        if (const auto* l = config->as_object().if_contains("llm"); l && l->is_object())
            p.llm = llm_options::from_json(*l, origin);
        p.work = workload::load(p.run->workload_dir() / "workload.json");
        p.backend.devices = parse_gpus(a);
        p.resume = replay_events(read_journal(p.run->journal_path()).events);
        p.run_info = run_json.as_object();
        p.run_info["config"].as_object()["search"] = p.search.to_json();
        // A session still "running" was killed (it never wrote its end).
        if (auto* sessions = p.run_info.if_contains("sessions"); sessions && sessions->is_array())
            for (auto& s : sessions->get_array())
                if (s.is_object() && s.as_object().contains("status") && s.at("status") == "running")
                    s.as_object()["status"] = "aborted";
        return p;
    }

    if (is_llm_provider(a.provider))
    {
        p.llm = a.llm;
        p.llm->provider = a.provider;
        p.llm->seed = a.seed;
        p.llm->branches = a.given("--async") ? a.async : a.branches;
    }
    infer_hook infer = [&](json::object given, const fs::path& dir) {
        return infer_workload_parts(a, p, std::move(given), dir);
    };
    auto [w, supplied] = assemble_workload(a, infer);
    p.work = std::move(w);
    p.search.branches = a.given("--async") ? a.async : a.branches;
    p.search.async = a.given("--async");
    const bool any_budget = a.given("--max-iterations") || a.given("--max-candidates") || a.given("--max-wall-time") ||
                            a.given("--max-tokens") || a.given("--max-cost");
    p.search.budgets = budgets_from(a, budget_limits{});
    if (!any_budget)
        p.search.budgets.iterations = a.max_iterations;  // the documented default
    p.search.grace_seconds = a.grace_seconds;
    p.search.confirm_top = a.confirm_top;
    p.search.timing.mode = a.timing;
    p.search.timing.warmup = a.warmup;
    p.search.timing.iterations = a.iterations;
    p.search.max_repairs = a.max_repairs;
    p.search.hidden_seed = hidden_seed_for(a);
    p.provider.name = a.provider;
    p.provider.seed = a.seed;
    if (!a.candidates.empty())
        p.provider.candidates_dir = fs::absolute(a.candidates);
    p.provider.scripted_latency =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double, std::milli>(a.scripted_latency_ms));
    // Build the strategy once now, so that a bad provider or candidate directory fails before a
    // run directory is claimed (workload inference has claimed it already).
    {
        asio::io_context check_ioc;
        build_strategy(p, check_ioc.get_executor());
    }
    p.backend.devices = parse_gpus(a);

    if (!p.run)
        p.run = run_directory::create(a.results);
    p.run->write_workload(p.work, supplied);
    keep_roofline_sidecar(p.work, *p.run);
    p.run_info = json::object{{"tool", "warpsmith"},
                              {"version", WARPSMITH_VERSION},
                              {"command_line", command_line()},
                              {"cwd", fs::current_path().string()},
                              {"config",
                               json::object{{"workload",
                                             json::object{{"workload", a.workload},
                                                          {"signature", a.signature},
                                                          {"reference", a.reference},
                                                          {"initial_kernel", a.initial_kernel},
                                                          {"input_cases", a.input_cases},
                                                          {"description", a.description}}},
                                            {"provider", p.provider.to_json()},
                                            {"search", p.search.to_json()},
                                            {"evaluation",
                                             json::object{{"gpus", a.gpus},
                                                          {"worker", a.worker.worker},
                                                          {"worker_cmd", a.worker.worker_cmd},
                                                          {"compile_workers", a.compile_workers},
                                                          {"in_process_compile", a.in_process_compile},
                                                          {"launch_timeout_ms", a.launch_timeout_ms}}}}},
                              {"sessions", json::array{}}};
    if (p.llm)
        p.run_info["config"].as_object()["llm"] = p.llm->to_json();
    return p;
}

/// The interrupt hook the signal handler calls; set once the engine exists.
struct interrupt_hook
{
    std::function<void()> on_first;
};

asio::awaitable<int> optimize_main(asio::io_context& ioc, std::shared_ptr<optimize_args> args,
                                   std::shared_ptr<prepared_run> p, std::shared_ptr<interrupt_hook> hook)
{
    steady_clock_source clock;
    auto built = build_strategy(*p, ioc.get_executor());
    auto& strat = built.strat;
    executor_backend backend(ioc, p->backend);
    const std::int64_t next_seq = p->resume ? p->resume->next_seq : 1;
    journal_writer journal(p->run->journal_path(), next_seq);

    const auto mode = args->json_progress ? progress_mode::json
                      : ::isatty(STDERR_FILENO) ? progress_mode::tty
                                                : progress_mode::plain;
    progress_reporter progress(mode, mode == progress_mode::json ? stdout : stderr);
    if (mode != progress_mode::json)
        std::fprintf(stderr, "%s %s\n", p->resume ? "resuming" : "run", p->run->path().c_str());

    search_engine engine(ioc, backend, *strat, clock, p->work, p->search, *p->run, journal, p->run_info, &progress);
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
    // How far the best is from the physical limit, with the ceilings measured at start.
    if (auto roofline = best_roofline(p->work, backend.device_info(0), res.summary); !roofline.is_null())
    {
        res.summary["roofline"] = std::move(roofline);
        try
        {
            p->run->write_json("summary.json", res.summary);
        }
        catch (const std::exception& e)
        {
            log_warn(std::string("cannot write summary.json: ") + e.what());
        }
    }

    report::write_run_report_noexcept(p->run->path());  // heatmap.svg/.png, report.html (docs/reports.md)
    json::value history = nullptr;
    try
    {
        history = read_json_file(p->run->path() / "history.json");
    }
    catch (const std::exception&)
    {
    }
    if (mode == progress_mode::json)
    {
        json::object line{{"type", "summary"}, {"run", p->run->path().string()}, {"summary", res.summary}};
        std::string s = json::serialize(line) + "\n";
        std::fwrite(s.data(), 1, s.size(), stdout);
    }
    else
    {
        std::string s = final_table(res.summary, p->run->path(), history) +
                        baseline_case_table(res.summary, p->work);
        std::fwrite(s.data(), 1, s.size(), stdout);
    }
    std::fflush(stdout);
    if (built.llm && built.llm->fatal_error())
        throw user_error(*built.llm->fatal_error() + " (the run directory keeps what was done: " +
                         p->run->path().string() + ")");
    if (res.status == "failed")
        throw std::runtime_error("the search failed: " + res.error + " (the journal is intact; --resume " +
                                 p->run->path().string() + " continues)");
    co_return res.exit_code;
}

int run_optimize(std::shared_ptr<optimize_args> args)
{
    if (!args->config.empty())
        apply_config(*args);
    auto prepared = std::make_shared<prepared_run>(prepare(*args));
    if (!args->json_progress)
        std::fflush(stdout);

    asio::io_context ioc;
    asio::signal_set signals(ioc, SIGINT, SIGTERM);
    auto hook = std::make_shared<interrupt_hook>();
    bool interrupted = false;
    std::function<void(const boost::system::error_code&, int)> on_signal;
    on_signal = [&](const boost::system::error_code& ec, int) {
        if (ec)
            return;
        if (interrupted)
        {
            // Every journal event is already on disk (one write(2) each): abort at once.
            std::fputs("\nwarpsmith: aborted; the journal is intact (--resume continues)\n", stderr);
            std::_Exit(130);
        }
        interrupted = true;
        log_warn("interrupted: no more proposals; the GPU finishes its current evaluation, then the run is "
                 "finalized. Ctrl-C again to abort at once.");
        if (hook->on_first)
            hook->on_first();
        signals.async_wait(on_signal);
    };
    signals.async_wait(on_signal);

    int code = 0;
    std::exception_ptr error;
    auto on_done = [&](std::exception_ptr e, int value) {
        error = e;
        code = value;
        boost::system::error_code ignored;
        signals.cancel(ignored);
    };
    asio::co_spawn(ioc, optimize_main(ioc, args, prepared, hook), on_done);
    ioc.run();
    if (error)
        std::rethrow_exception(error);
    if (interrupted && code == 0)
        code = 130;
    return code;
}

/// Number checks with plain messages ("--branches: must be at least 1, got 0").
CLI::Validator number_check(double min, bool strict)
{
    auto check = [min, strict](std::string& text) -> std::string {
        double x = 0;
        try
        {
            std::size_t used = 0;
            x = std::stod(text, &used);
            if (used != text.size())
                return "not a number: " + text;
        }
        catch (const std::exception&)
        {
            return "not a number: " + text;
        }
        if (strict ? x > min : x >= min)
            return {};
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", min);
        return std::string(strict ? "must be greater than " : "must be at least ") + buf + ", got " + text;
    };
    return CLI::Validator(check, "", "");
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

  # A model on the OpenAI Responses API (key from OPENAI_API_KEY or ./.env), workload inferred:
  warpsmith optimize --description "Single-precision GEMM with rectangular matrices." --provider openai \
      --model gpt-5-mini --reasoning-effort medium --strategy evolve --branches 4 --max-cost 2
  # A local OpenAI-compatible server (vLLM, llama.cpp, Ollama, LM Studio) with its own workload:
  warpsmith optimize --workload bench/workloads/sgemm --provider openai-chat \
      --base-url http://127.0.0.1:8000/v1 --model qwen2.5-coder --strategy beam --branches 2
  # Re-run an earlier model run's answers at zero cost (deterministic):
  warpsmith optimize --workload results/run-003/workload --provider replay --replay-from results/run-003

Providers: scripted, openai, openai-chat, replay (docs/agents.md); autotune is `warpsmith tune`.
Without any budget flag, --max-iterations 5 applies. Budgets stop the run at the first one reached;
work in flight then gets --grace-seconds to finish. Ctrl-C: stop proposing, let the GPU finish the
current evaluation, write the summary, exit 130; Ctrl-C again aborts at once (the journal is intact).
Run directory: docs/run-directory.md. Engine and scripted provider: docs/engine.md.
Exit codes: 0 finished (any budget), 1 the search failed, 2 bad input (flag, file, no GPU), 130 interrupted.)";

}  // namespace

void add_optimize_command(CLI::App& app)
{
    auto a = std::make_shared<optimize_args>();
    const auto positive = number_check(0, true);
    const auto non_negative = number_check(0, false);
    CLI::App* cmd = app.add_subcommand("optimize", "Search for the fastest valid kernel of a workload");
    a->cmd = cmd;
    const char* workload_group = "Workload";
    cmd->add_option("--workload", a->workload, "Workload directory or workload.json (docs/workload-format.md)")
        ->group(workload_group);
    cmd->add_option("--description", a->description,
                    "What the kernel computes; with a model provider, the missing parts (signature, cases, reference, "
                    "initial kernel) are inferred from it and checked before the search")
        ->group(workload_group);
    cmd->add_option("--signature", a->signature,
                    "Signature JSON ({\"entry\", \"params\"} plus \"launch\"), or a partial workload.json")
        ->group(workload_group);
    cmd->add_option("--reference", a->reference, "Reference kernel .cu (kept as workload/supplied-reference.cu)")
        ->group(workload_group);
    cmd->add_option("--initial-kernel", a->initial_kernel,
                    "Initial kernel .cu, e.g. an earlier run's best.cu (its <stem>.json gives entry and launch)")
        ->group(workload_group);
    cmd->add_option("--input-cases", a->input_cases, "Cases JSON (an array or {\"cases\": [...]}, e.g. cases.json)")
        ->group(workload_group);

    const char* search_group = "Search";
    cmd->add_option("--provider", a->provider, "Who proposes candidates (default scripted)")->group(search_group);
    cmd->add_option("--candidates", a->candidates, "Scripted provider: directory of .cu files (+ optional .json)")
        ->group(search_group);
    cmd->add_option("--scripted-latency-ms", a->scripted_latency_ms,
                    "Scripted provider: simulated model latency per proposal (default 0)")
        ->check(non_negative)
        ->group(search_group);
    cmd->add_option("--max-iterations", a->max_iterations, "Iterations (rounds per branch); default 5 without budgets")
        ->check(number_check(1, false))
        ->group(search_group);
    cmd->add_option("--branches", a->branches, "Branches proposing concurrently each iteration (default 1)")
        ->check(number_check(1, false))
        ->group(search_group);
    cmd->add_option("--async", a->async, "N proposals in flight without iteration barriers (instead of --branches)")
        ->check(number_check(1, false))
        ->group(search_group);
    cmd->add_option("--max-repairs", a->max_repairs,
                    "Consecutive repair requests for a branch's invalid candidates (default 2)")
        ->check(non_negative)
        ->group(search_group);
    cmd->add_option("--seed", a->seed, "Seed for strategies and the hidden validation inputs (default random)")
        ->group(search_group);
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

    const char* eval_group = "Evaluation";
    cmd->add_option("--gpus", a->gpus, "GPUs to use: all (default) or a list like 0,2,3")->group(eval_group);
    a->worker.add_to(*cmd);
    for (const char* f : {"--worker", "--worker-cmd", "--worker-arg"})
        cmd->get_option(f)->group(eval_group);
    cmd->add_option("--compile-workers", a->compile_workers, "Compile worker processes (default: CPU threads)")
        ->check(non_negative)
        ->group(eval_group);
    cmd->add_flag("--in-process-compile", a->in_process_compile,
                  "Compile with NVRTC in this process instead of compile workers (small machines)")
        ->group(eval_group);
    cmd->add_option("--timing", a->timing, "cold (L2 scrubbed before each launch, default) or hot")
        ->check(CLI::IsMember({"cold", "hot"}))
        ->group(eval_group);
    cmd->add_option("--warmup", a->warmup, "Warm-up launches per case (default 10)")
        ->check(non_negative)
        ->group(eval_group);
    cmd->add_option("--iterations", a->iterations, "Measured launches per case (default 100)")
        ->check(positive)
        ->group(eval_group);
    cmd->add_option("--launch-timeout-ms", a->launch_timeout_ms, "A launch running longer is a hang (default 10000)")
        ->check(positive)
        ->group(eval_group);
    cmd->add_option("--confirm-top", a->confirm_top,
                    "Candidates re-timed interleaved with the initial kernel and reference at the end (default 3)")
        ->check(non_negative)
        ->group(eval_group);
    cmd->add_flag("--no-measure", a->no_measure,
                  "Do not measure copy bandwidth and FP32 rate at start (the roofline then uses datasheet figures)")
        ->group(eval_group);

    const char* out_group = "Output";
    cmd->add_option("--results", a->results, "Where run-NNN directories go (default results)")->group(out_group);
    cmd->add_option("--resume", a->resume, "Continue results/run-NNN from its journal")->group(out_group);
    cmd->add_flag("--json-progress", a->json_progress, "Machine-readable progress events on stdout (JSON lines)")
        ->group(out_group);
    cmd->add_option("--config", a->config, "JSON file mirroring these flags (\"max-iterations\": 7, ...)")
        ->group(out_group);
    cmd->footer(optimize_footer);
    auto run = [a] { exit_with(run_optimize(a)); };
    cmd->callback(run);
}

}  // namespace warpsmith
