#include "engine/cli/eval_report.hpp"

#include <cmath>
#include <cstdio>
#include <map>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

std::optional<double> geomean(const std::vector<double>& xs)
{
    if (xs.empty())
        return std::nullopt;
    double s = 0;
    for (double x : xs)
        s += std::log(x);
    return std::exp(s / static_cast<double>(xs.size()));
}

std::string fmt(const char* format, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, x);
    return buf;
}

std::string opt(const std::optional<double>& x, const char* format)
{
    return x ? fmt(format, *x) : "-";
}

std::string pad(std::string s, std::size_t width, bool right = false)
{
    if (s.size() >= width)
        return s;
    std::string fill(width - s.size(), ' ');
    return right ? fill + s : s + fill;
}

}  // namespace

eval_report make_eval_report(const std::string& name,
                             const protocol::evaluation_result& result,
                             const protocol::evaluation_result* reference,
                             const protocol::evaluation_result* initial)
{
    eval_report rep;
    rep.name = name;
    rep.has_initial = initial != nullptr;
    rep.status = result.valid() ? "valid" : "invalid";
    if (result.failure)
    {
        rep.failure_kind = result.failure->kind;
        rep.failure_case = result.failure->case_name;
        rep.failure_message = result.failure->message;
    }
    const auto ref = reference ? reference->performance_medians() : std::map<std::string, double>{};
    const auto init = initial ? initial->performance_medians() : std::map<std::string, double>{};

    std::vector<double> ref_ratios, init_ratios;
    for (const protocol::case_result& c : result.cases)
    {
        case_row row;
        row.name = c.name;
        row.role = c.role;
        row.status = c.validation.passed ? "ok" : "FAIL";
        if (c.timing)
        {
            const protocol::timing_report& t = *c.timing;
            if (t.stats)
            {
                row.median_us = t.stats->median_us;
                row.p10_us = t.stats->p10_us;
                row.p90_us = t.stats->p90_us;
                row.samples = t.stats->samples;
            }
            if (t.stopped)
                row.stopped = std::string(protocol::to_string(*t.stopped));
            row.rel_noise = t.rel_noise;
        }
        if (row.median_us && *row.median_us > 0)
        {
            if (auto it = ref.find(row.name); it != ref.end())
            {
                row.vs_reference = it->second / *row.median_us;
                ref_ratios.push_back(*row.vs_reference);
            }
            if (auto it = init.find(row.name); it != init.end())
            {
                row.vs_initial = it->second / *row.median_us;
                init_ratios.push_back(*row.vs_initial);
            }
        }
        rep.rows.push_back(std::move(row));
    }
    rep.score_us = result.score_us;
    if (result.valid())
    {
        rep.vs_reference = geomean(ref_ratios);
        rep.vs_initial = geomean(init_ratios);
    }
    return rep;
}

json::object eval_report::speedup_json() const
{
    json::object cases;
    for (const auto& row : rows)
    {
        if (!row.vs_reference && !row.vs_initial)
            continue;
        json::object c;
        c["vs_reference"] = row.vs_reference ? json::value(*row.vs_reference) : json::value(nullptr);
        c["vs_initial"] = row.vs_initial ? json::value(*row.vs_initial) : json::value(nullptr);
        cases[row.name] = std::move(c);
    }
    json::object o;
    o["vs_reference"] = vs_reference ? json::value(*vs_reference) : json::value(nullptr);
    o["vs_initial"] = vs_initial ? json::value(*vs_initial) : json::value(nullptr);
    o["cases"] = std::move(cases);
    return o;
}

std::string render_eval_report(const eval_report& r)
{
    std::size_t wcase = 4, wrole = 4;
    for (const auto& row : r.rows)
    {
        wcase = std::max(wcase, row.name.size());
        wrole = std::max(wrole, row.role.size());
    }
    std::string out;
    out += pad("case", wcase + 2) + pad("role", wrole + 2) + pad("status", 8) + pad("median us", 12, true) +
           pad("p10 us", 12, true) + pad("p90 us", 12, true) + pad("vs ref", 9, true);
    if (r.has_initial)
        out += pad("vs init", 9, true);
    out += pad("launches", 10, true) + pad("noise", 8, true) + "  stopped";
    out += "\n";
    for (const auto& row : r.rows)
    {
        out += pad(row.name, wcase + 2) + pad(row.role, wrole + 2) + pad(row.status, 8) +
               pad(opt(row.median_us, "%.3f"), 12, true) + pad(opt(row.p10_us, "%.3f"), 12, true) +
               pad(opt(row.p90_us, "%.3f"), 12, true) + pad(opt(row.vs_reference, "%.2fx"), 9, true);
        if (r.has_initial)
            out += pad(opt(row.vs_initial, "%.2fx"), 9, true);
        out += pad(opt(row.samples, "%.0f"), 10, true) +
               pad(row.rel_noise ? fmt("%.2f%%", 100 * *row.rel_noise) : "-", 8, true) + "  " +
               (row.stopped.empty()        ? "-"
                : row.stopped == "ceiling" ? "ceiling (never quiet)"
                                           : row.stopped);
        out += "\n";
    }
    if (r.status == "valid")
    {
        out += r.name + ": valid";
        if (r.score_us)
            out += ", score " + fmt("%.3f", *r.score_us) + " us (geometric mean of performance medians)";
        if (r.vs_reference)
            out += ", " + fmt("%.2fx", *r.vs_reference) + " vs reference";
        if (r.vs_initial)
            out += ", " + fmt("%.2fx", *r.vs_initial) + " vs initial";
        out += "\n";
    }
    else
    {
        out += r.name + ": INVALID (" + (r.failure_kind.empty() ? "unknown" : r.failure_kind);
        if (!r.failure_case.empty())
            out += " on case " + r.failure_case;
        out += ")";
        if (!r.failure_message.empty())
            out += ": " + r.failure_message;
        out += "\n";
    }
    return out;
}

}  // namespace warpsmith
