#include "engine/report/offline_tune.hpp"

#include "agents/autotune/evaluation_cache.hpp"
#include "agents/autotune/offline_replay.hpp"
#include "agents/autotune/roofline.hpp"
#include "engine/report/baseline_report.hpp"
#include "engine/report/number_text.hpp"
#include "harness/compile/compile_cache.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/json/lenient.hpp"

#include <cstdio>
#include <functional>

namespace warpsmith::report
{

namespace json = boost::json;
namespace fs = std::filesystem;

offline_tune_result run_offline_tune(const offline_tune_options& o)
{
    const auto w = workload::load(o.workload);
    const fs::path& dir = o.cache_dir;
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
    autotune::evaluation_cache cache(w, *device, o.timing, dir);
    if (cache.file() != files[0])
        throw user_error("--offline: " + files[0].string() +
                         " was written for another version of this workload");

    autotune_strategy strat(w, o.tune);
    strat.prepare(*device);
    std::size_t budget = o.budget.value_or(static_cast<std::size_t>(-1));
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
    // Braces: clang reads the parenthesised form as a function declaration and cannot parse it.
    nvrtc_compiler compiler{std::optional<compile_cache>(compile_cache(compile_cache::default_dir()))};
    // The workload's kernel is not ours: compiled on a thread inside the compile sandbox, as the
    // compile pool's in-process threads do (this process may hold a key).
    compiler.compile_on(std::make_shared<compile_thread>(compiler.cache()->dir()));
    auto pruned = [&](const autotune::point& pt)
    { return !strat.judge_compiled(pt, compiler.compile(strat.compile_request_for(pt))).ok(); };
    const std::size_t batch = o.batch;
    const auto r =
        autotune::replay_offline(strat.optimizer(),
                                 score,
                                 budget,
                                 batch,
                                 !o.compile_prune ? std::function<bool(const autotune::point&)>{}
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
    const json::object* context_device = context ? lenient::object_at(*context, "device") : nullptr;
    const json::object& measured_on = context_device ? *context_device : *device;
    if (summary.contains("best"))
    {
        const auto spec = o.roofline.empty() ? autotune::roofline_spec::load_for(w)
                                             : std::optional(autotune::roofline_spec::load(o.roofline));
        if (auto roofline = best_roofline(spec, w, measured_on, summary); !roofline.is_null())
            summary["roofline"] = std::move(roofline);
    }
    const std::string device_name = lenient::string_or(measured_on, "name", "an unknown device");

    json::object out = r.curve.to_json();
    out["strategy"] = o.tune.strategy;
    out["seed"] = o.tune.optimizer.seed;
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
    offline_tune_result result;
    result.record = out;
    std::string text = "offline replay of measurements taken on " + device_name +
                       " (no GPU used): " + cache.file().string() + ", " + std::to_string(cache.size()) +
                       " measured points\n" + o.tune.strategy + " seed " +
                       std::to_string(o.tune.optimizer.seed) + ": " + std::to_string(r.asked) +
                       " evaluations, " + std::to_string(r.evaluated) + " with a measurement";
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
    result.text = std::move(text);
    return result;
}

}  // namespace warpsmith::report
