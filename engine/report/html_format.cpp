// The formats and lookups every section of report.html shares (html_parts.hpp).

#include "engine/report/heatmap.hpp"
#include "engine/report/html_parts.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpsmith::report::html
{

using lenient::array_at;
using lenient::object_at;

const char* const css = R"CSS(
:root { color-scheme: light; }
body { font: 14px/1.45 -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1a1a1a;
       margin: 0; background: #f6f7f9; }
main { max-width: 1180px; margin: 0 auto; padding: 20px 28px 40px; }
h1 { font-size: 22px; margin: 8px 0 2px; }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.sub { color: #555; margin: 0 0 16px; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 16px 18px; margin: 14px 0; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 4px 10px; border-bottom: 1px solid #eceef1; text-align: left; vertical-align: top; }
th { background: #f2f4f7; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { background: none; color: #555; font-weight: 500; width: 190px; }
tr.best td { background: #fff6d6; }
code, pre, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; border-radius: 4px; padding: 10px 12px; overflow: auto;
      max-height: 640px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
         vertical-align: middle; }
.finished { background: #d9f2dd; color: #1e6b2d; }
.interrupted, .incomplete { background: #fff0c2; color: #7a5600; }
.failed { background: #fbd9d9; color: #8a1c1c; }
.valid { color: #1e6b2d; }
.invalid { color: #a12a2a; }
.pending { color: #7a5600; }
.note { color: #666; font-size: 12px; }
.scroll { overflow-x: auto; }
.big { font-size: 20px; font-weight: 600; }
.warn { background: #fff6d6; border: 1px solid #f0d98c; padding: 8px 12px; border-radius: 4px; }
footer { color: #777; font-size: 12px; margin-top: 24px; }
)CSS";

std::string fmt(const char* f, double x)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

std::string us(std::optional<double> x)
{
    if (!x || !std::isfinite(*x))
        return "-";
    return *x >= 1000 ? fmt("%.1f", *x) : fmt("%.2f", *x);
}

std::string speedup(std::optional<double> x)
{
    if (!x || !(*x > 0))
        return "-";
    return format_speedup(*x);
}

std::string pct(std::optional<double> x)
{
    if (!x)
        return "-";
    return fmt("%.1f%%", 100 * *x);
}

std::string seconds(std::optional<double> s)
{
    if (!s)
        return "-";
    if (*s < 120)
        return fmt("%.1f s", *s);
    if (*s < 7200)
        return fmt("%.1f min", *s / 60);
    return fmt("%.2f h", *s / 3600);
}

std::string bytes(std::optional<double> b)
{
    if (!b)
        return "-";
    if (*b >= 1024.0 * 1024 * 1024)
        return fmt("%.1f GiB", *b / (1024.0 * 1024 * 1024));
    if (*b >= 1024.0 * 1024)
        return fmt("%.1f MiB", *b / (1024.0 * 1024));
    if (*b >= 1024)
        return fmt("%.0f KiB", *b / 1024);
    return fmt("%.0f B", *b);
}

std::string integer(std::optional<double> x)
{
    return x ? fmt("%.0f", *x) : "-";
}

std::string json_text(const json::value& v)
{
    if (v.is_string())
        return std::string(v.get_string());
    return json::serialize(v);
}

/// The device objects of run.json (each device_info plus versions).
std::vector<const json::object*> devices_of(const run_view& v)
{
    std::vector<const json::object*> out;
    if (const auto* d = array_at(&v.run_json, "devices"))
        for (const auto& x : *d)
            if (const auto* o = object_at(&x))
                out.push_back(o);
    return out;
}

/// environment.clocks of an evaluation result.
std::string clocks_text(const protocol::evaluation_result& result)
{
    if (!result.environment || !result.environment->clocks)
        return {};
    const protocol::clock_readings& clocks = *result.environment->clocks;
    auto pair = [&](const std::optional<int>& x, const std::optional<int>& y)
    {
        if (!x && !y)
            return std::string("n/a");
        if (x && y && *x != *y)
            return fmt("%.0f", *x) + "&ndash;" + fmt("%.0f MHz", *y);
        return fmt("%.0f MHz", x ? *x : *y);
    };
    return "SM " + pair(clocks.sm_mhz_start, clocks.sm_mhz_end) + ", memory " +
           pair(clocks.mem_mhz_start, clocks.mem_mhz_end);
}

const protocol::evaluation_result* best_result(const run_view& v)
{
    if (!v.best_id)
        return nullptr;
    if (*v.best_id == "initial")
    {
        for (const auto& [gpu, b] : v.initial)
            if (b.valid)
                return &b.result;
        return nullptr;
    }
    if (const auto* c = v.find(*v.best_id))
        return &c->rec.ec.result;
    return nullptr;
}

/// Per-case timing statistics of an evaluation result.
const timing_stats* case_timing(const protocol::evaluation_result* result, const std::string& name)
{
    if (!result)
        return nullptr;
    const protocol::case_result* c = result->find_case(name);
    return c && c->timing && c->timing->stats ? &*c->timing->stats : nullptr;
}

}  // namespace warpsmith::report::html
