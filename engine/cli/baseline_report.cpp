#include "engine/cli/baseline_report.hpp"

#include "agents/autotune/roofline.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

const json::object* obj(const json::value* v)
{
    return v && v->is_object() ? &v->get_object() : nullptr;
}

double num(const json::value* v)
{
    return v && v->is_number() ? v->to_number<double>() : 0;
}

std::string fmt(const char* f, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
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

std::string right(const std::string& t, std::size_t width)
{
    return std::string(width > t.size() ? width - t.size() : 0, ' ') + t;
}

}  // namespace

std::map<std::string, double> best_case_medians(const json::object& summary)
{
    const auto* best = obj(summary.if_contains("best"));
    if (!best)
        return {};
    if (const auto* conf = obj(best->if_contains("confirmation")))
        if (auto m = medians_of(conf->if_contains("case_median_us")); !m.empty())
            return m;
    return medians_of(best->if_contains("case_median_us"));
}

void keep_roofline_sidecar(const workload& w, const run_directory& run)
{
    if (w.roofline)
        return;
    if (const auto spec = autotune::roofline_spec::load_for(w))
        write_json_file(run.workload_dir() / "roofline.json", spec->to_json());
}

json::value best_roofline(const workload& w, const json::object& device, const json::object& summary)
{
    try
    {
        const auto spec = autotune::roofline_spec::load_for(w);
        if (!spec)
            return nullptr;
        return autotune::roofline_summary(*spec, w, device, best_case_medians(summary));
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("no roofline: ") + e.what());
        return nullptr;
    }
}

std::string baseline_case_table(const json::object& summary, const workload& w)
{
    const auto mine = best_case_medians(summary);
    std::vector<std::pair<std::string, const json::object*>> vendors;
    if (const auto* b = obj(summary.if_contains("baselines")))
        for (const auto& kv : *b)
            if (const auto* bo = obj(&kv.value()))
                vendors.emplace_back(std::string(kv.key()), bo);
    const auto* roof = obj(summary.if_contains("roofline"));
    const auto* roof_cases = roof ? obj(roof->if_contains("cases")) : nullptr;
    if (mine.empty() || (vendors.empty() && !roof_cases))
        return {};

    std::size_t name_w = 8;
    for (const auto& c : w.cases)
        if (c.role == case_role::performance)
            name_w = std::max(name_w, c.name.size());
    std::string out = "  case" + std::string(name_w - 4, ' ') + right("best (us)", 12);
    for (const auto& [name, b] : vendors)
        out += right(name, std::max<std::size_t>(12, name.size() + 2)) +
               right("vs " + name, std::max<std::size_t>(10, name.size() + 5));
    if (roof_cases)
        out += right("roofline", 18);
    out += "\n";
    for (const auto& c : w.cases)
    {
        if (c.role != case_role::performance)
            continue;
        const auto it = mine.find(c.name);
        const std::optional<double> best =
            it == mine.end() ? std::nullopt : std::optional<double>(it->second);
        std::string line = "  " + c.name + std::string(name_w - c.name.size(), ' ') +
                           right(best ? fmt("%.2f", *best) : "-", 12);
        for (const auto& [name, b] : vendors)
        {
            const auto m = medians_of(b->if_contains("case_median_us"));
            const auto v = m.find(c.name);
            const bool have = v != m.end() && v->second > 0;
            line += right(have ? fmt("%.2f", v->second) : "-", std::max<std::size_t>(12, name.size() + 2)) +
                    right(have && best ? fmt("%.2fx", v->second / *best) : "-",
                          std::max<std::size_t>(10, name.size() + 5));
        }
        if (roof_cases)
        {
            std::string text = "-";
            if (const auto* rc = obj(roof_cases->if_contains(c.name)); rc && rc->contains("fraction"))
                text = fmt("%.0f%% ", 100 * num(rc->if_contains("fraction"))) +
                       std::string(rc->at("bound").as_string());
            line += right(text, 18);
        }
        out += line + "\n";
    }
    if (roof)
        if (const auto* ce = obj(roof->if_contains("ceilings")))
            out += "roofline ceilings (" + std::string(ce->at("source").as_string()) +
                   "): " + fmt("%.0f GB/s, ", num(ce->if_contains("bandwidth_gbps"))) +
                   fmt("%.1f FP32 TFLOP/s\n", num(ce->if_contains("fp32_tflops")));
    for (const auto& [name, b] : vendors)
        if (const auto* wt = b->if_contains("within_tolerance"); wt && wt->is_bool() && !wt->get_bool())
            out += name + ": outside the workload's tolerance (max abs error " +
                   fmt("%.3g", num(b->if_contains("max_abs_error"))) + "); timed for reference only\n";
    return out;
}

}  // namespace warpsmith
