#include "engine/cli/eval_report.hpp"

#include <cmath>
#include <cstdio>
#include <map>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

const json::object* as_object(const json::value* v)
{
    return v && v->is_object() ? &v->get_object() : nullptr;
}

std::optional<double> number_at(const json::object* o, std::string_view key)
{
    if (!o)
        return std::nullopt;
    const json::value* v = o->if_contains(key);
    if (!v || !v->is_number())
        return std::nullopt;
    return v->to_number<double>();
}

std::string string_at(const json::object* o, std::string_view key)
{
    if (!o)
        return {};
    const json::value* v = o->if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

/// case name -> median_us of a result's timed cases.
std::map<std::string, double> medians(const json::value* result)
{
    std::map<std::string, double> out;
    const json::object* r = as_object(result);
    if (!r)
        return out;
    const json::value* cases = r->if_contains("cases");
    if (!cases || !cases->is_array())
        return out;
    for (const auto& c : cases->get_array())
    {
        const json::object* co = as_object(&c);
        auto median = number_at(as_object(co ? co->if_contains("timing") : nullptr), "median_us");
        if (median && *median > 0)
            out[string_at(co, "name")] = *median;
    }
    return out;
}

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
                             const json::value& result,
                             const json::value* reference,
                             const json::value* initial)
{
    eval_report rep;
    rep.name = name;
    rep.has_initial = initial != nullptr;
    const json::object* r = as_object(&result);
    rep.status = string_at(r, "status");
    if (rep.status.empty())
        rep.status = "invalid";
    if (const json::object* f = as_object(r ? r->if_contains("failure") : nullptr))
    {
        rep.failure_kind = string_at(f, "kind");
        rep.failure_case = string_at(f, "case");
        rep.failure_message = string_at(f, "message");
    }
    auto ref = medians(reference);
    auto init = medians(initial);

    std::vector<double> ref_ratios, init_ratios;
    if (const json::value* cases = r ? r->if_contains("cases") : nullptr; cases && cases->is_array())
    {
        for (const auto& c : cases->get_array())
        {
            const json::object* co = as_object(&c);
            case_row row;
            row.name = string_at(co, "name");
            row.role = string_at(co, "role");
            const json::object* v = as_object(co ? co->if_contains("validation") : nullptr);
            const json::value* passed = v ? v->if_contains("passed") : nullptr;
            row.status = passed && passed->is_bool() ? (passed->get_bool() ? "ok" : "FAIL") : "-";
            const json::object* t = as_object(co ? co->if_contains("timing") : nullptr);
            row.median_us = number_at(t, "median_us");
            row.p10_us = number_at(t, "p10_us");
            row.p90_us = number_at(t, "p90_us");
            row.samples = number_at(t, "samples");
            row.stopped = string_at(t, "stopped");
            row.rel_noise = number_at(t, "rel_noise");
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
    }
    rep.score_us = number_at(r, "score_us");
    if (rep.status == "valid")
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
