#include "engine/profile/profile_summary.hpp"

#include "harness/core/utf8_text.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

/// Scale of a unit prefix ncu prints ("Kbyte", "Gbyte/second", "usecond").
double prefix_scale(std::string_view unit, std::string_view base)
{
    const std::size_t at = unit.find(base);
    if (at == std::string_view::npos || at > 1)
        return std::nan("");
    if (at == 0)
        return 1;
    switch (unit[0])
    {
        case 'K':
            return 1e3;
        case 'M':
            return 1e6;
        case 'G':
            return 1e9;
        case 'T':
            return 1e12;
        case 'n':
            return 1e-9;
        case 'u':
            return 1e-6;
        case 'm':
            return 1e-3;
        default:
            return std::nan("");
    }
}

/// A duration metric in microseconds, whatever unit ncu chose.
std::optional<double> microseconds(const ncu_kernel& k, std::string_view metric)
{
    const ncu_metric* m = k.find(metric);
    if (!m || !m->value)
        return std::nullopt;
    std::string unit = m->unit;
    if (unit == "ns")
        unit = "nsecond";
    else if (unit == "us")
        unit = "usecond";
    else if (unit == "ms")
        unit = "msecond";
    else if (unit == "s")
        unit = "second";
    const double scale = prefix_scale(unit, "second");
    if (std::isnan(scale))
        return std::nullopt;
    return *m->value * scale * 1e6;
}

/// A byte count or rate in base units (bytes, bytes per second); `base` is "byte".
std::optional<double> in_bytes(const ncu_kernel& k, std::string_view metric)
{
    const ncu_metric* m = k.find(metric);
    if (!m || !m->value)
        return std::nullopt;
    std::string_view unit = m->unit;
    if (unit.empty())
        return m->value;
    double scale = prefix_scale(unit, "byte");
    if (std::isnan(scale))
        return std::nullopt;
    return *m->value * scale;
}

json::value optional_number(const std::optional<double>& v)
{
    return v ? json::value(*v) : json::value(nullptr);
}

std::string fmt(const std::optional<double>& v, int decimals = 1)
{
    if (!v)
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
    return buf;
}

std::string pct(const std::optional<double>& v)
{
    return v ? fmt(v) + " %" : "-";
}

constexpr std::string_view stall_prefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view stall_suffix = "_per_issue_active.ratio";

}  // namespace

std::string shorten_hint(const std::string& text, std::size_t max_chars)
{
    // ncu's rule texts are a few sentences; the first two carry the finding.
    std::string out;
    std::size_t sentences = 0;
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        out += text[i];
        if ((text[i] == '.' || text[i] == '!') && (i + 1 == text.size() || text[i + 1] == ' '))
            if (++sentences == 2)
                break;
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    if (out.size() > max_chars)
    {
        std::size_t cut = out.rfind(' ', max_chars - 3);
        out = std::string(cut == std::string::npos ? utf8_prefix(out, max_chars - 3)
                                                   : std::string_view(out).substr(0, cut)) +
              "...";
    }
    return out;
}

profile_summary profile_summary::from_kernel(const ncu_kernel& k, std::string ncu_version)
{
    profile_summary s;
    s.kernel = k.name;
    s.grid = k.grid;
    s.block = k.block;
    s.ncu_version = std::move(ncu_version);
    s.duration_us = microseconds(k, "gpu__time_duration.sum");
    s.sol_compute_pct = k.number("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    s.sol_memory_pct = k.number("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    s.dram_pct = k.number("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
    if (!s.dram_pct)
        s.dram_pct = k.number("dram__throughput.avg.pct_of_peak_sustained_elapsed");
    if (auto bps = in_bytes(k, "dram__bytes.sum.per_second"))
        s.dram_gbps = *bps / 1e9;
    s.l2_pct = k.number("lts__throughput.avg.pct_of_peak_sustained_elapsed");
    s.l2_hit_pct = k.number("lts__t_sector_hit_rate.pct");
    s.l1_pct = k.number("l1tex__throughput.avg.pct_of_peak_sustained_active");
    s.l1_hit_pct = k.number("l1tex__t_sector_hit_rate.pct");
    s.achieved_occupancy_pct = k.number("sm__warps_active.avg.pct_of_peak_sustained_active");
    s.theoretical_occupancy_pct = k.number("sm__maximum_warps_per_active_cycle_pct");
    s.registers_per_thread = k.number("launch__registers_per_thread");
    s.waves_per_sm = k.number("launch__waves_per_multiprocessor");
    {
        auto st = in_bytes(k, "launch__shared_mem_per_block_static");
        auto dy = in_bytes(k, "launch__shared_mem_per_block_dynamic");
        if (st || dy)
            s.shared_bytes_per_block = st.value_or(0) + dy.value_or(0);
    }
    // The limiter is the smallest of the per-SM block caps; on a tie, the first named (registers
    // and shared memory are what a kernel author can change).
    const std::pair<const char*, const char*> limits[] = {
        {"registers", "launch__occupancy_limit_registers"},
        {"shared memory", "launch__occupancy_limit_shared_mem"},
        {"warps", "launch__occupancy_limit_warps"},
        {"blocks", "launch__occupancy_limit_blocks"},
    };
    for (const auto& [what, metric] : limits)
        if (auto v = k.number(metric); v && (!s.blocks_per_sm_limit || *v < *s.blocks_per_sm_limit))
        {
            s.blocks_per_sm_limit = v;
            s.occupancy_limiter = what;
        }
    // Warp stalls: cycles stalled per issued instruction, by reason (WarpStateStats section).
    double total = 0;
    std::vector<warp_stall> stalls;
    for (const auto& [name, m] : k.metrics)
    {
        if (!m.value || name.size() <= stall_prefix.size() + stall_suffix.size() ||
            name.compare(0, stall_prefix.size(), stall_prefix) != 0 ||
            name.compare(name.size() - stall_suffix.size(), stall_suffix.size(), stall_suffix) != 0)
            continue;
        std::string reason =
            name.substr(stall_prefix.size(), name.size() - stall_prefix.size() - stall_suffix.size());
        // "selected" is the warp that issued, not a stall.
        if (reason == "selected" || reason.find("_not_issued") != std::string::npos)
            continue;
        total += *m.value;
        stalls.push_back({std::move(reason), *m.value});
    }
    if (total > 0)
    {
        for (warp_stall& w : stalls)
            w.share /= total;
        std::stable_sort(stalls.begin(),
                         stalls.end(),
                         [](const warp_stall& a, const warp_stall& b) { return a.share > b.share; });
        stalls.resize(std::min<std::size_t>(stalls.size(), 5));
        s.top_stalls = std::move(stalls);
    }
    // Hints: optimisation advice and warnings first, by ncu's estimated speedup.
    std::vector<const ncu_rule*> rules;
    for (const ncu_rule& r : k.rules)
        // Notes about metrics ncu did not collect say nothing about the kernel.
        if (!r.description.empty() && r.description.find("optional metric") == std::string::npos)
            rules.push_back(&r);
    auto rank = [](const ncu_rule* r) { return r->type == "OPT" ? 0 : r->type == "WRN" ? 1 : 2; };
    std::stable_sort(rules.begin(),
                     rules.end(),
                     [&](const ncu_rule* a, const ncu_rule* b)
                     {
                         if (rank(a) != rank(b))
                             return rank(a) < rank(b);
                         return a->estimated_speedup.value_or(0) > b->estimated_speedup.value_or(0);
                     });
    for (const ncu_rule* r : rules)
    {
        if (s.hints.size() == 5)
            break;
        s.hints.push_back({r->name, r->type, shorten_hint(r->description), r->estimated_speedup});
    }
    return s;
}

json::object profile_summary::to_json() const
{
    json::array stalls;
    for (const warp_stall& w : top_stalls)
        stalls.push_back(json::object{{"reason", w.reason}, {"share", w.share}});
    json::array hs;
    for (const profile_hint& h : hints)
        hs.push_back(json::object{{"rule", h.rule},
                                  {"type", h.type},
                                  {"text", h.text},
                                  {"estimated_speedup_pct", optional_number(h.estimated_speedup)}});
    json::object o;
    o["kernel"] = kernel;
    o["grid"] = grid;
    o["block"] = block;
    o["ncu_version"] = ncu_version;
    o["duration_us"] = optional_number(duration_us);
    o["sol_compute_pct"] = optional_number(sol_compute_pct);
    o["sol_memory_pct"] = optional_number(sol_memory_pct);
    o["dram_pct"] = optional_number(dram_pct);
    o["dram_gbps"] = optional_number(dram_gbps);
    o["l2_pct"] = optional_number(l2_pct);
    o["l2_hit_pct"] = optional_number(l2_hit_pct);
    o["l1_pct"] = optional_number(l1_pct);
    o["l1_hit_pct"] = optional_number(l1_hit_pct);
    o["achieved_occupancy_pct"] = optional_number(achieved_occupancy_pct);
    o["theoretical_occupancy_pct"] = optional_number(theoretical_occupancy_pct);
    o["occupancy_limiter"] =
        occupancy_limiter.empty() ? json::value(nullptr) : json::value(occupancy_limiter);
    o["blocks_per_sm_limit"] = optional_number(blocks_per_sm_limit);
    o["registers_per_thread"] = optional_number(registers_per_thread);
    o["shared_bytes_per_block"] = optional_number(shared_bytes_per_block);
    o["waves_per_sm"] = optional_number(waves_per_sm);
    o["spill_stores_bytes"] = spill_stores_bytes ? json::value(*spill_stores_bytes) : json::value(nullptr);
    o["spill_loads_bytes"] = spill_loads_bytes ? json::value(*spill_loads_bytes) : json::value(nullptr);
    o["top_stalls"] = std::move(stalls);
    o["hints"] = std::move(hs);
    return o;
}

profile_summary profile_summary::from_json(const json::object& o)
try
{
    // Profile documents are warpsmith's records (null is absent); every problem names its field.
    const json_reader r(o, json_location("profile summary", {}, json_style::record));
    profile_summary s;
    s.kernel = r.optional_string("kernel").value_or("");
    if (s.kernel.empty())
        throw std::invalid_argument("profile summary: 'kernel' is missing");
    s.grid = r.optional_string("grid").value_or("");
    s.block = r.optional_string("block").value_or("");
    s.ncu_version = r.optional_string("ncu_version").value_or("");
    s.duration_us = r.optional_number("duration_us");
    s.sol_compute_pct = r.optional_number("sol_compute_pct");
    s.sol_memory_pct = r.optional_number("sol_memory_pct");
    s.dram_pct = r.optional_number("dram_pct");
    s.dram_gbps = r.optional_number("dram_gbps");
    s.l2_pct = r.optional_number("l2_pct");
    s.l2_hit_pct = r.optional_number("l2_hit_pct");
    s.l1_pct = r.optional_number("l1_pct");
    s.l1_hit_pct = r.optional_number("l1_hit_pct");
    s.achieved_occupancy_pct = r.optional_number("achieved_occupancy_pct");
    s.theoretical_occupancy_pct = r.optional_number("theoretical_occupancy_pct");
    s.occupancy_limiter = r.optional_string("occupancy_limiter").value_or("");
    s.blocks_per_sm_limit = r.optional_number("blocks_per_sm_limit");
    s.registers_per_thread = r.optional_number("registers_per_thread");
    s.shared_bytes_per_block = r.optional_number("shared_bytes_per_block");
    s.waves_per_sm = r.optional_number("waves_per_sm");
    if (auto v = r.optional_number("spill_stores_bytes"))
        s.spill_stores_bytes = static_cast<int>(*v);
    if (auto v = r.optional_number("spill_loads_bytes"))
        s.spill_loads_bytes = static_cast<int>(*v);
    for (const json_reader& stall : r.optional_elements("top_stalls"))
        s.top_stalls.push_back(
            {stall.optional_string("reason").value_or(""), stall.optional_number("share").value_or(0)});
    for (const json_reader& h : r.optional_elements("hints"))
        s.hints.push_back({h.optional_string("rule").value_or(""),
                           h.optional_string("type").value_or(""),
                           h.optional_string("text").value_or(""),
                           h.optional_number("estimated_speedup_pct")});
    return s;
}
catch (const json_error& e)
{
    throw std::invalid_argument(e.what());
}

std::string profile_summary::render_table() const
{
    std::string out;
    auto line = [&out](std::string_view label, const std::string& text)
    {
        std::string l(label);
        l.resize(std::max<std::size_t>(l.size(), 13), ' ');
        out += l + text + "\n";
    };
    line("kernel", kernel + "  grid " + grid + "  block " + block);
    line("duration", fmt(duration_us) + " us (one launch under the profiler; not a score)");
    line("SOL", "compute " + pct(sol_compute_pct) + "   memory " + pct(sol_memory_pct));
    line("DRAM", pct(dram_pct) + " of peak" + (dram_gbps ? "   " + fmt(dram_gbps, 0) + " GB/s" : ""));
    line("L2", pct(l2_pct) + " of peak   hit " + pct(l2_hit_pct));
    line("L1/TEX", pct(l1_pct) + " of peak   hit " + pct(l1_hit_pct));
    std::string occ =
        pct(achieved_occupancy_pct) + " achieved of " + pct(theoretical_occupancy_pct) + " theoretical";
    if (!occupancy_limiter.empty())
        occ += "; limited by " + occupancy_limiter + " (" + fmt(blocks_per_sm_limit, 0) + " blocks/SM)";
    line("occupancy", occ);
    std::string res = fmt(registers_per_thread, 0) + " registers/thread, " + fmt(shared_bytes_per_block, 0) +
                      " B shared/block";
    if (spill_stores_bytes || spill_loads_bytes)
        res += ", spills " + std::to_string(spill_stores_bytes.value_or(0)) + " B stored / " +
               std::to_string(spill_loads_bytes.value_or(0)) + " B loaded";
    if (waves_per_sm)
        res += ", " + fmt(waves_per_sm, 2) + " waves";
    line("resources", res);
    std::string stalls;
    for (const warp_stall& w : top_stalls)
        stalls += (stalls.empty() ? "" : ", ") + w.reason + " " + fmt(w.share * 100, 0) + "%";
    line("top stalls", stalls.empty() ? "-" : stalls);
    for (std::size_t i = 0; i < hints.size(); ++i)
    {
        const profile_hint& h = hints[i];
        std::string text = "[" + h.type + "] " + h.rule;
        if (h.estimated_speedup)
            text += " (est. " + fmt(h.estimated_speedup, 0) + "% faster)";
        text += ": " + h.text;
        line(i == 0 ? "ncu hints" : "", text);
    }
    line("ncu", ncu_version.empty() ? "-" : ncu_version);
    return out;
}

std::string profile_summary::render_for_model() const
{
    std::string out = "Nsight Compute, kernel " + kernel + " grid " + grid + " block " + block + ":\n";
    out += "- speed of light: compute " + pct(sol_compute_pct) + ", memory " + pct(sol_memory_pct) + "\n";
    out += "- DRAM " + pct(dram_pct) + " of peak" + (dram_gbps ? " (" + fmt(dram_gbps, 0) + " GB/s)" : "") +
           "; L2 " + pct(l2_pct) + " of peak, hit rate " + pct(l2_hit_pct) + "; L1 " + pct(l1_pct) +
           " of peak, hit rate " + pct(l1_hit_pct) + "\n";
    out += "- occupancy " + pct(achieved_occupancy_pct) + " achieved, " + pct(theoretical_occupancy_pct) +
           " theoretical";
    if (!occupancy_limiter.empty())
        out += ", limited by " + occupancy_limiter + " (" + fmt(blocks_per_sm_limit, 0) + " blocks per SM)";
    out += "; " + fmt(registers_per_thread, 0) + " registers per thread, " + fmt(shared_bytes_per_block, 0) +
           " bytes of shared memory per block";
    if (spill_stores_bytes.value_or(0) > 0 || spill_loads_bytes.value_or(0) > 0)
        out += ", register spills " + std::to_string(spill_stores_bytes.value_or(0)) + " bytes stored";
    out += "\n";
    if (!top_stalls.empty())
    {
        out += "- top warp stalls:";
        for (const warp_stall& w : top_stalls)
            out += " " + w.reason + " " + fmt(w.share * 100, 0) + "%";
        out += "\n";
    }
    for (const profile_hint& h : hints)
        out += "- ncu " + h.type + " " + h.rule + ": " + h.text + "\n";
    return out;
}

}  // namespace warpsmith
