#include "engine/report/baseline_report.hpp"

#include "engine/report/number_text.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/json/lenient.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

namespace warpsmith
{

namespace json = boost::json;
using lenient::array_at;
using lenient::bool_at;
using lenient::number_at;
using lenient::numbers_at;
using lenient::object_at;
using lenient::string_at;
using report::fmt;

namespace
{

std::string right(const std::string& t, std::size_t width)
{
    return std::string(width > t.size() ? width - t.size() : 0, ' ') + t;
}

/// The per-case medians of "reference" or "initial" on GPU 0 (where the summary's speedups and
/// the vendor baselines were timed).
std::map<std::string, double> gpu0_medians(const json::object& summary, const char* key)
{
    const auto* per_gpu = array_at(object_at(&summary, key), "per_gpu");
    if (!per_gpu || per_gpu->empty())
        return {};
    return numbers_at(object_at(&per_gpu->front()), "case_median_us");
}

std::optional<double> at_case(const std::map<std::string, double>& m, const std::string& c)
{
    const auto it = m.find(c);
    return it == m.end() ? std::nullopt : std::optional<double>(it->second);
}

}  // namespace

std::map<std::string, double> best_case_medians(const json::object& summary)
{
    const auto* best = object_at(&summary, "best");
    if (!best)
        return {};
    if (auto m = numbers_at(object_at(best, "confirmation"), "case_median_us"); !m.empty())
        return m;
    return numbers_at(best, "case_median_us");
}

void keep_roofline_sidecar(const workload& w, const run_directory& run)
{
    if (w.roofline)
        return;
    if (const auto spec = autotune::roofline_spec::load_for(w))
        write_json_file(run.workload_dir() / "roofline.json", spec->to_json());
}

json::value best_roofline(const std::optional<autotune::roofline_spec>& spec,
                          const workload& w,
                          const json::object& device,
                          const json::object& summary,
                          bool cold_timing)
{
    if (!spec)
        return nullptr;
    try
    {
        return autotune::roofline_summary(*spec, w, device, best_case_medians(summary), cold_timing);
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("no roofline: ") + e.what());
        return nullptr;
    }
}

json::value best_roofline(const workload& w,
                          const json::object& device,
                          const json::object& summary,
                          bool cold_timing)
{
    std::optional<autotune::roofline_spec> spec;
    try
    {
        spec = autotune::roofline_spec::load_for(w);
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("no roofline: ") + e.what());
        return nullptr;
    }
    return best_roofline(spec, w, device, summary, cold_timing);
}

std::string baseline_case_table(const json::object& summary, const workload& w, bool with_reference)
{
    const auto mine = best_case_medians(summary);
    std::vector<std::pair<std::string, const json::object*>> vendors;
    if (const auto* b = object_at(&summary, "baselines"))
        for (const auto& kv : *b)
            if (const auto* bo = object_at(&kv.value()))
                vendors.emplace_back(std::string(kv.key()), bo);
    const auto* roof = object_at(&summary, "roofline");
    const auto* roof_cases = object_at(roof, "cases");
    if (with_reference ? !object_at(&summary, "best") : mine.empty() || (vendors.empty() && !roof_cases))
        return {};
    const auto ref = with_reference ? gpu0_medians(summary, "reference") : std::map<std::string, double>{};
    const auto init = with_reference ? gpu0_medians(summary, "initial") : std::map<std::string, double>{};

    std::size_t name_w = 8;
    for (const auto& c : w.cases)
        if (c.role == case_role::performance)
            name_w = std::max(name_w, c.name.size());
    auto vendor_w = [](const std::string& name) { return std::max<std::size_t>(12, name.size() + 2); };
    auto vs_vendor_w = [](const std::string& name) { return std::max<std::size_t>(10, name.size() + 5); };
    std::string out = "  case" + std::string(name_w - 4, ' ') + right("best (us)", 12);
    if (with_reference)
        out += right("ref (us)", 12) + right("vs ref", 9);
    if (!init.empty())
        out += right("initial", 12) + right("vs init", 9);
    for (const auto& [name, b] : vendors)
        out += right(name, vendor_w(name)) + right("vs " + name, vs_vendor_w(name));
    // A cold copy of the same bytes (memory-bound cases on a device that measured the curve).
    bool any_cold_copy = false;
    if (roof_cases)
        for (const auto& kv : *roof_cases)
            any_cold_copy = any_cold_copy || number_at(object_at(&kv.value()), "cold_copy_us").has_value();
    if (roof_cases)
        out += right("roofline", 18);
    if (any_cold_copy)
        out += right("cold copy", 12) + right("vs copy", 9);
    out += "\n";
    double log_best = 0, log_ref = 0, log_init = 0;
    int n = 0, n_ref = 0, n_init = 0;
    for (const auto& c : w.cases)
    {
        if (c.role != case_role::performance)
            continue;
        const auto best = at_case(mine, c.name);
        std::string line = "  " + c.name + std::string(name_w - c.name.size(), ' ') +
                           right(best ? fmt("%.2f", *best) : "-", 12);
        if (with_reference)
        {
            const auto r = at_case(ref, c.name);
            line +=
                right(r ? fmt("%.2f", *r) : "-", 12) + right(best && r ? fmt("%.2fx", *r / *best) : "-", 9);
            if (best && r)
                log_ref += std::log(*r / *best), ++n_ref;
        }
        if (!init.empty())
        {
            const auto i = at_case(init, c.name);
            line +=
                right(i ? fmt("%.2f", *i) : "-", 12) + right(best && i ? fmt("%.2fx", *i / *best) : "-", 9);
            if (best && i)
                log_init += std::log(*i / *best), ++n_init;
        }
        for (const auto& [name, b] : vendors)
        {
            const auto v = at_case(numbers_at(b, "case_median_us"), c.name);
            const bool have = v && *v > 0;
            line += right(have ? fmt("%.2f", *v) : "-", vendor_w(name)) +
                    right(have && best ? fmt("%.2fx", *v / *best) : "-", vs_vendor_w(name));
        }
        if (roof_cases)
        {
            std::string text = "-";
            const auto* rc = object_at(roof_cases, c.name);
            if (const auto fraction = number_at(rc, "fraction"))
                text = fmt("%.0f%% ", 100 * *fraction) + string_at(rc, "bound").value_or("");
            line += right(text, 18);
            if (any_cold_copy)
            {
                const auto copy = number_at(rc, "cold_copy_us");
                line += right(copy ? fmt("%.2f", *copy) : "-", 12) +
                        right(copy && best ? fmt("%.2fx", *copy / *best) : "-", 9);
            }
        }
        out += line + "\n";
        if (best)
            log_best += std::log(*best), ++n;
    }
    if (with_reference && n > 1)
    {
        std::string line = "  geomean" + std::string(name_w - 7, ' ') +
                           right(fmt("%.2f", std::exp(log_best / n)), 12) + right("", 12) +
                           right(n_ref ? fmt("%.2fx", std::exp(log_ref / n_ref)) : "-", 9);
        if (!init.empty())
            line += right("", 12) + right(n_init ? fmt("%.2fx", std::exp(log_init / n_init)) : "-", 9);
        out += line + "\n";
    }
    if (const auto* ce = object_at(roof, "ceilings"))
        out += "roofline ceilings (" + string_at(ce, "source").value_or("") +
               "): " + fmt("%.0f GB/s, ", number_at(ce, "bandwidth_gbps").value_or(0)) +
               fmt("%.1f FP32 TFLOP/s\n", number_at(ce, "fp32_tflops").value_or(0));
    if (any_cold_copy)
        out +=
            "cold copy: the same bytes copied under the same cold timing (the device's measured curve); "
            "not a floor\n";
    // A vendor baseline in reduced precision (cuBLAS TF32) is timed, but misses the tolerance the
    // kernels are held to: say so next to its numbers.
    for (const auto& [name, b] : vendors)
        if (bool_at(b, "within_tolerance") == false)
            out += name + ": outside the workload's tolerance (max abs error " +
                   fmt("%.3g", number_at(b, "max_abs_error").value_or(0)) + "); timed for reference only\n";
    return out;
}

}  // namespace warpsmith
