#include "engine/search/search_summary.hpp"

#include "harness/json/lenient.hpp"

#include <boost/json/array.hpp>

#include <algorithm>

namespace warpsmith
{

namespace json = boost::json;

json::object medians_json(const case_medians& m)
{
    json::object o;
    for (const auto& [k, v] : m)
        o[k] = v;
    return o;
}

json::object baseline_json(const std::vector<kernel_baseline>& b)
{
    json::array per_gpu;
    for (std::size_t g = 0; g < b.size(); ++g)
        per_gpu.push_back(json::object{{"gpu", static_cast<int>(g)},
                                       {"valid", b[g].valid},
                                       {"score_us", opt_json(b[g].score)},
                                       {"case_median_us", medians_json(b[g].medians)}});
    return json::object{{"per_gpu", std::move(per_gpu)}};
}

json::object candidate_summary(const candidate_record& r)
{
    return json::object{{"id", r.id()},
                        {"branch", r.ec.branch},
                        {"iteration", r.ec.iteration},
                        {"score_us", r.ec.score_us},
                        {"speedup_vs_reference", r.ec.speedup_vs_reference},
                        {"speedup_vs_initial", r.ec.speedup_vs_initial},
                        {"case_median_us", medians_json(r.ec.case_median_us)},
                        {"gpu", r.gpu}};
}

/// summary.json "baselines": {key: {"case_median_us", "score_us", per-case timing, errors}}. The
/// events come from this run's journal, a resumed run's included (read leniently: journal events).
json::object vendor_summary(const std::map<std::string, json::object>& vendor)
{
    using lenient::array_at;
    using lenient::object_at;
    using lenient::value_at;
    auto copied = [](const json::value* v, const json::value& fallback) { return v ? *v : fallback; };
    json::object out;
    for (const auto& [key, ev] : vendor)
    {
        const json::object* baseline = object_at(ev, "baseline");
        json::object cases;
        if (const json::array* list = array_at(baseline, "cases"))
            for (const json::value& c : *list)
                if (const json::object* t = object_at(c, "timing"))
                    if (auto name = lenient::string_at(c, "name"))
                        cases[*name] = *t;
        json::object entry{{"name", copied(value_at(ev, "name"), nullptr)},
                           {"kind", copied(value_at(ev, "kind"), nullptr)},
                           {"math", copied(value_at(ev, "math"), nullptr)},
                           {"gpu", copied(value_at(ev, "gpu"), nullptr)},
                           {"case_median_us", copied(value_at(ev, "case_median_us"), json::object{})},
                           {"score_us", copied(value_at(ev, "score_us"), nullptr)},
                           {"within_tolerance", copied(value_at(ev, "within_tolerance"), nullptr)},
                           {"max_abs_error", copied(value_at(ev, "max_abs_error"), nullptr)},
                           {"max_rel_error", copied(value_at(ev, "max_rel_error"), nullptr)},
                           {"cases", std::move(cases)}};
        if (const json::value* lib = value_at(baseline, "library"))
            entry["library"] = *lib;
        out[key] = std::move(entry);
    }
    return out;
}

json::object summary(const search_summary_state& s, const search_outcome& res, double wall)
{
    json::object failures;
    int valid = 0, invalid = 0, pending = 0, invalidated = 0;
    for (const auto& r : s.records)
    {
        invalidated += r.invalidated ? 1 : 0;
        if (!r.evaluated)
            ++pending;
        else if (r.ec.valid)
            ++valid;
        else
        {
            ++invalid;
            auto& n = failures[r.ec.failure_kind];
            n = (n.is_int64() ? n.get_int64() : 0) + 1;
        }
    }
    json::array gpus;
    double busy_total = 0;
    for (std::size_t g = 0; g < s.gpus.size(); ++g)
    {
        const auto& st = s.gpus[g];
        busy_total += st.busy_seconds;
        gpus.push_back(json::object{{"index", static_cast<int>(g)},
                                    {"name", st.name},
                                    {"busy_seconds", st.busy_seconds},
                                    {"busy_fraction", wall > 0 ? std::min(1.0, st.busy_seconds / wall) : 0.0},
                                    {"restarts", st.restarts}});
    }
    json::array branches;
    for (int b = 0; b < s.opts.branches; ++b)
    {
        int n = 0;
        for (const auto& r : s.records)
            n += r.ec.branch == b ? 1 : 0;
        branches.push_back(json::object{
            {"branch", b},
            {"candidates", n},
            {"stopped",
             s.branch_stopped.at(b) ? json::value(*s.branch_stopped.at(b)) : json::value(nullptr)}});
    }
    int iterations = s.opts.async ? 0 : s.current_iteration - 1;
    if (s.opts.async)
        for (const auto& r : s.records)
            iterations = std::max(iterations, r.ec.iteration);
    return json::object{
        {"run", s.run_name},
        {"workload", s.workload_name},
        {"status", res.status},
        {"stop_reason", res.stop_reason},
        {"error", res.error.empty() ? json::value(nullptr) : json::value(res.error)},
        {"exit_code", res.exit_code},
        {"resumed", s.resumed},
        {"best", s.best_json},
        {"best_note", s.best_note.empty() ? json::value(nullptr) : json::value(s.best_note)},
        {"best_search", s.best ? json::value(candidate_summary(s.records[*s.best])) : json::value(nullptr)},
        {"reference", baseline_json(s.reference)},
        {"initial", s.has_initial ? json::value(baseline_json(s.initial)) : json::value(nullptr)},
        {"baselines", vendor_summary(s.vendor)},
        {"baselines_unavailable", s.vendor_unavailable},
        {"candidates",
         json::object{{"proposed", static_cast<int>(s.records.size())},
                      {"evaluated", static_cast<int>(s.evaluated)},
                      {"valid", valid},
                      {"invalid", invalid},
                      {"pending", pending},
                      {"invalidated_by_confirmation", invalidated},
                      {"failures", std::move(failures)}}},
        {"iterations_finished", iterations},
        {"budgets", s.budget.to_json(iterations, s.candidates_started, wall)},
        {"tokens", to_json(s.budget.usage())},
        {"cost_usd", s.budget.usage().cost_usd},
        {"wall_seconds", wall},
        {"gpus", std::move(gpus)},
        {"gpu_busy_fraction",
         wall > 0 && !s.gpus.empty() ? std::min(1.0, busy_total / (wall * static_cast<double>(s.gpus.size())))
                                     : 0.0},
        {"confirmation", s.confirmation},
        {"branches", std::move(branches)},
        {"options", s.opts.to_json()}};
}

}  // namespace warpsmith
