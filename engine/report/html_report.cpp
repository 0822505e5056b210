#include "engine/report/html_report.hpp"

#include "engine/report/heatmap.hpp"
#include "engine/report/json_fields.hpp"
#include "engine/report/line_chart.hpp"
#include "engine/report/profiles_html.hpp"
#include "engine/search/scoring.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpsmith::report
{

namespace json = boost::json;

namespace
{

constexpr const char* css = R"CSS(
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

class page
{
public:
    void raw(std::string_view s) { out_ += s; }
    void text(std::string_view s) { out_ += html_escape(s); }
    void kv(const std::string& key, const std::string& html_value)
    {
        out_ += "<tr><th>" + html_escape(key) + "</th><td>" + html_value + "</td></tr>\n";
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

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

void summary_section(page& p, const run_view& v)
{
    const json::object* s = v.summary ? &*v.summary : nullptr;
    const auto* config = object_at(&v.run_json, "config");
    p.raw("<section id=\"summary\"><h2>Run summary</h2>\n");
    if (!v.summary || v.status == "incomplete")
        p.raw(
            "<p class=\"warn\">This run has no final summary (it was interrupted, killed, or is still "
            "running). "
            "Everything below is rebuilt from <code>journal.jsonl</code>; the best is the best so far by "
            "search "
            "timings.</p>\n");
    if (v.journal_torn)
        p.raw("<p class=\"note\">The journal ends in a torn line (a write cut short); it was ignored.</p>\n");
    p.raw("<table class=\"kv\">\n");
    std::string status =
        "<span class=\"badge " + html_escape(v.status) + "\">" + html_escape(v.status) + "</span>";
    if (!v.stop_reason.empty())
        status += " " + html_escape(v.stop_reason);
    if (const auto e = string_at(s, "error"))
        status += " &mdash; " + html_escape(*e);
    p.kv("Status", status);
    std::string wl = "<b>" + html_escape(v.workload_name) + "</b>";
    if (!v.workload_description.empty())
        wl += "<br><span class=\"note\">" + html_escape(v.workload_description) + "</span>";
    p.kv("Workload", wl);
    {
        std::string strat = html_escape(v.strategy_label());
        const auto* prov = object_at(config, "provider");
        if (const auto seed = number_at(prov, "seed"))
            strat += ", seed " + integer(seed);
        if (const auto d = string_at(prov, "candidates"))
            strat += ", candidates <code>" + html_escape(*d) + "</code>";
        if (const auto m = string_at(prov, "model"))
            strat += ", model <code>" + html_escape(*m) + "</code>";
        if (const auto* search = object_at(config, "search"))
        {
            const bool async = bool_at(search, "async").value_or(false);
            strat += "; " + integer(number_at(search, "branches")) + (async ? " async slots" : " branches");
            if (const auto* t = object_at(search, "timing"))
                strat += "; timing " + html_escape(string_at(t, "mode").value_or("?")) + ", " +
                         integer(number_at(t, "warmup")) + " warm-up + " +
                         integer(number_at(t, "iterations")) + " measured launches";
        }
        p.kv("Strategy", strat.empty() ? "-" : strat);
    }
    if (const auto* cl = array_at(&v.run_json, "command_line"))
    {
        std::string line;
        for (const auto& a : *cl)
            if (a.is_string())
            {
                std::string arg(a.get_string());
                const bool quote = arg.empty() || arg.find_first_of(" \t'\"$") != std::string::npos;
                line += (line.empty() ? "" : " ") + (quote ? "'" + arg + "'" : arg);
            }
        p.kv("Command", "<code>" + html_escape(line) + "</code>");
    }
    if (const auto* sessions = array_at(&v.run_json, "sessions"))
    {
        std::string t;
        for (const auto& x : *sessions)
        {
            const auto* so = object_at(&x);
            t += (t.empty() ? "" : "<br>") + html_escape(string_at(so, "started").value_or("?")) +
                 " &rarr; " + html_escape(string_at(so, "ended").value_or("(no end)")) +
                 " <span class=\"note\">" + html_escape(string_at(so, "status").value_or("")) +
                 (bool_at(so, "resumed").value_or(false) ? ", resumed" : "") + "</span>";
        }
        if (!t.empty())
            p.kv(sessions->size() > 1 ? "Sessions" : "Started / ended", t);
    }
    std::string devs;
    std::string versions;
    for (const auto* d : devices_of(v))
    {
        std::vector<std::string> parts;
        if (const auto a = string_at(d, "arch"))
            parts.push_back(html_escape(*a));
        if (const auto n = number_at(d, "sm_count"))
            parts.push_back(integer(n) + " SMs");
        if (const auto m = number_at(d, "total_memory_bytes"))
            parts.push_back(bytes(m));
        if (const auto l2 = number_at(d, "l2_bytes"))
            parts.push_back("L2 " + bytes(l2));
        if (const auto c = number_at(d, "clock_mhz"))
            parts.push_back("max SM clock " + integer(c) + " MHz");
        if (const auto c = number_at(d, "memory_clock_mhz"))
            parts.push_back("memory clock " + integer(c) + " MHz");
        std::string joined;
        for (const auto& x : parts)
            joined += (joined.empty() ? "" : ", ") + x;
        devs += (devs.empty() ? "" : "<br>") + std::string("GPU ") + integer(number_at(d, "index")) +
                ": <b>" + html_escape(string_at(d, "name").value_or("?")) + "</b> (" + joined;
        if (const auto* c = object_at(d, "clocks"))
            if (number_at(c, "sm_mhz"))
                devs += "; at start SM " + integer(number_at(c, "sm_mhz")) + " MHz, memory " +
                        integer(number_at(c, "mem_mhz")) + " MHz";
        if (const auto* m = object_at(d, "measured"))
            devs += "; measured " + fmt("%.0f GB/s", number_at(m, "copy_bandwidth_gbps").value_or(0)) + ", " +
                    fmt("%.1f FP32 TFLOP/s", number_at(m, "fp32_tflops").value_or(0));
        devs += ")";
        if (versions.empty())
            versions = "driver " + html_escape(string_at(d, "driver_version").value_or("?")) + ", NVRTC " +
                       html_escape(string_at(d, "nvrtc_version").value_or("?")) + ", worker " +
                       html_escape(string_at(d, "worker_version").value_or("?"));
    }
    if (!devs.empty())
        p.kv("Devices", devs);
    if (const auto* r = best_result(v))
        if (auto c = clocks_text(*r); !c.empty())
            p.kv("Clocks (best's evaluation)", c);
    std::string ver = "warpsmith " + html_escape(string_at(&v.run_json, "version").value_or("?"));
    if (!versions.empty())
        ver += ", " + versions;
    p.kv("Versions", ver);

    // Candidates, from the journal (the summary's counts are the same for a finished run).
    int valid = 0, invalid = 0, pending = 0;
    std::map<std::string, int> failures;
    for (const auto& c : v.candidates)
    {
        if (c.pending())
            ++pending;
        else if (c.valid())
            ++valid;
        else
        {
            ++invalid;
            ++failures[c.rec.ec.failure_kind.empty() ? "invalid" : c.rec.ec.failure_kind];
        }
    }
    std::string cand = std::to_string(v.candidates.size()) + " proposed, " + std::to_string(valid + invalid) +
                       " evaluated: <span class=\"valid\">" + std::to_string(valid) +
                       " valid</span>, <span class=\"invalid\">" + std::to_string(invalid) +
                       " invalid</span>";
    if (pending)
        cand += ", <span class=\"pending\">" + std::to_string(pending) + " pending</span>";
    if (!failures.empty())
    {
        std::string f;
        for (const auto& [k, n] : failures)
            f += (f.empty() ? "" : ", ") + html_escape(k) + " " + std::to_string(n);
        cand += " <span class=\"note\">(" + f + ")</span>";
    }
    p.kv("Candidates", cand);

    if (const auto* b = object_at(s, "budgets"))
    {
        const auto* lim = object_at(b, "limits");
        const auto* used = object_at(b, "used");
        std::string t;
        auto item = [&](const char* name, const char* used_key, const char* limit_key, auto show)
        {
            const auto u = number_at(used, used_key);
            const auto l = number_at(lim, limit_key);
            if (!u && !l)
                return;
            t += (t.empty() ? "" : "; ") + std::string(name) + " " + show(u) + (l ? " of " + show(l) : "");
        };
        item("iterations", "iterations", "max_iterations", integer);
        item("candidates", "candidates", "max_candidates", integer);
        item("wall time", "wall_seconds", "max_wall_seconds", seconds);
        item("tokens", "tokens", "max_tokens", integer);
        item("cost",
             "cost_usd",
             "max_cost_usd",
             [](std::optional<double> x) { return x ? fmt("$%.4f", *x) : "-"; });
        p.kv("Budgets used", t.empty() ? "-" : t);
    }
    const auto& u = v.usage;
    p.kv("Tokens / cost",
         std::to_string(u.input) + " input (" + std::to_string(u.cached_input) + " cached), " +
             std::to_string(u.output) + " output (" + std::to_string(u.reasoning) + " reasoning); " +
             fmt("$%.4f", u.cost_usd));
    std::string wall = seconds(v.wall_seconds ? v.wall_seconds : std::optional<double>(v.elapsed_seconds));
    if (v.sessions > 1)
        wall += " <span class=\"note\">(last session; " + seconds(v.elapsed_seconds) +
                " from first start to last event)</span>";
    p.kv("Wall time", wall);
    std::string busy = pct(v.gpu_busy_fraction);
    if (const auto* gpus = array_at(s, "gpus"); gpus && gpus->size() > 1)
    {
        busy += " <span class=\"note\">(";
        bool first = true;
        for (const auto& g : *gpus)
        {
            const auto* go = object_at(&g);
            busy += (first ? "" : ", ") + std::string("GPU ") + integer(number_at(go, "index")) + " " +
                    pct(number_at(go, "busy_fraction"));
            first = false;
        }
        busy += ")</span>";
    }
    p.kv("GPU busy", busy);
    p.raw("</table></section>\n");
}

void best_section(page& p, const run_view& v)
{
    p.raw("<section id=\"best\"><h2>Best candidate</h2>\n");
    if (!v.best_id)
    {
        p.raw("<p>No valid kernel.</p></section>\n");
        return;
    }
    const json::object* sb = v.summary ? object_at(&*v.summary, "best") : nullptr;
    const auto* cand = v.find(*v.best_id);
    const auto ref = v.reference_medians();
    const auto init = v.initial_medians();
    const auto mine = v.best_medians();
    std::optional<double> vs_ref = number_at(object_at(sb, "confirmation"), "speedup_vs_reference");
    if (!vs_ref)
        vs_ref = number_at(sb, "speedup_vs_reference");
    if (!vs_ref && cand)
        vs_ref = cand->rec.ec.speedup_vs_reference;
    if (!vs_ref)
        vs_ref = geomean_speedup(ref, mine);
    std::optional<double> vs_init = number_at(object_at(sb, "confirmation"), "speedup_vs_initial");
    if (!vs_init)
        vs_init = geomean_speedup(init, mine);

    p.raw("<p><span class=\"big mono\">" + html_escape(*v.best_id) + "</span> &nbsp; <span class=\"big\">" +
          speedup(vs_ref) + "</span> vs reference");
    if (vs_init)
        p.raw(", " + speedup(vs_init) + " vs initial");
    p.raw(" &nbsp;<span class=\"note\">decided by " +
          html_escape(v.best_decided_by.empty() ? std::string("search") : v.best_decided_by) +
          "</span></p>\n");
    if (cand)
    {
        const auto& ec = cand->rec.ec;
        p.raw("<p class=\"note\">branch " + std::to_string(ec.branch) + ", iteration " +
              std::to_string(ec.iteration) +
              (ec.parent ? ", parent <code>" + html_escape(*ec.parent) + "</code>" : std::string()) +
              ", GPU " + std::to_string(cand->rec.gpu) +
              (cand->evaluated_at_s ? ", found after " + seconds(cand->evaluated_at_s) : "") +
              ", evaluation " + std::to_string(cand->evaluation_index) + " of " +
              std::to_string(std::count_if(
                  v.candidates.begin(), v.candidates.end(), [](auto& c) { return !c.pending(); })) +
              "</p>\n");
        if (!ec.rationale.empty())
            p.raw("<p>" + html_escape(ec.rationale) + "</p>\n");
    }

    // Vendor baselines and the roofline, per case.
    std::vector<std::pair<std::string, std::map<std::string, double>>> vendors;
    if (v.baselines)
        for (const auto& kv : *v.baselines)
            vendors.emplace_back(std::string(kv.key()), medians_at(object_at(&kv.value()), "case_median_us"));
    const auto* roof_cases = v.roofline ? object_at(&*v.roofline, "cases") : nullptr;
    const auto* result = best_result(v);
    const bool confirmed = !medians_at(object_at(sb, "confirmation"), "case_median_us").empty();

    p.raw(
        "<div class=\"scroll\"><table><tr><th>case</th><th class=\"num\">best (us)</th>"
        "<th class=\"num\">p10&ndash;p90 (us)</th><th class=\"num\">rel. IQR</th><th class=\"num\">reference "
        "(us)</th>"
        "<th class=\"num\">vs ref</th>");
    if (!init.empty())
        p.raw("<th class=\"num\">initial (us)</th><th class=\"num\">vs initial</th>");
    for (const auto& [name, m] : vendors)
        p.raw("<th class=\"num\">" + html_escape(name) + " (us)</th><th class=\"num\">vs " +
              html_escape(name) + "</th>");
    if (roof_cases)
        p.raw("<th class=\"num\">roofline</th>");
    p.raw("</tr>\n");
    auto get = [](const std::map<std::string, double>& m, const std::string& k) -> std::optional<double>
    {
        auto it = m.find(k);
        return it == m.end() ? std::nullopt : std::optional<double>(it->second);
    };
    for (const auto& c : v.performance_cases())
    {
        const auto b = get(mine, c), r = get(ref, c), i = get(init, c);
        const auto* t = case_timing(result, c);
        std::string spread = "-";
        if (t)
            spread = us(t->p10_us) + "&ndash;" + us(t->p90_us);
        const std::optional<double> rel_iqr = t ? std::optional<double>(t->rel_iqr) : std::nullopt;
        p.raw("<tr><td class=\"mono\">" + html_escape(c) + "</td><td class=\"num\">" + us(b) +
              "</td><td class=\"num\">" + spread + "</td><td class=\"num\">" + pct(rel_iqr) +
              "</td><td class=\"num\">" + us(r) + "</td><td class=\"num\">" +
              speedup(b && r ? std::optional<double>(*r / *b) : std::nullopt) + "</td>");
        if (!init.empty())
            p.raw("<td class=\"num\">" + us(i) + "</td><td class=\"num\">" +
                  speedup(b && i ? std::optional<double>(*i / *b) : std::nullopt) + "</td>");
        for (const auto& [name, m] : vendors)
        {
            const auto x = get(m, c);
            p.raw("<td class=\"num\">" + us(x) + "</td><td class=\"num\">" +
                  speedup(b && x ? std::optional<double>(*x / *b) : std::nullopt) + "</td>");
        }
        if (roof_cases)
        {
            const auto* rc = object_at(roof_cases, c);
            std::string rt = "-";
            if (const auto f = number_at(rc, "fraction"))
                rt = pct(f) + " " + html_escape(string_at(rc, "bound").value_or(""));
            p.raw("<td class=\"num\">" + rt + "</td>");
        }
        p.raw("</tr>\n");
    }
    p.raw("</table></div>\n<p class=\"note\">Times are medians per case");
    p.raw(confirmed ? ", from the final interleaved confirmation" : ", from the search");
    p.raw(
        "; p10&ndash;p90 and relative IQR are the search measurement's spread. Speedups compare with the "
        "reference "
        "timed on the same GPU.</p>\n</section>\n");
}

void confirmation_section(page& p, const run_view& v)
{
    p.raw("<section id=\"confirmation\"><h2>Confirmation vs search timings</h2>\n");
    const json::object* c = v.confirmation ? &*v.confirmation : nullptr;
    if (!c)
    {
        p.raw("<p>No confirmation was recorded (the run did not finish).</p></section>\n");
        return;
    }
    if (const auto skipped = string_at(c, "skipped"))
    {
        p.raw("<p>Skipped: " + html_escape(*skipped) +
              ". The winner was decided on search timings.</p></section>\n");
        return;
    }
    p.raw(
        "<p>The best candidates, the initial kernel and the reference were re-timed interleaved (A B C A B C "
        "&hellip;, " +
        integer(number_at(c, "rounds")) + " rounds on GPU " + integer(number_at(c, "gpu")) +
        "). Confirmed and search scores differ by up to <b>" +
        pct(number_at(c, "max_abs_rel_diff_vs_search")) + "</b> (mean " +
        pct(number_at(c, "mean_abs_rel_diff_vs_search")) + ").</p>\n");
    p.raw(
        "<table><tr><th>entry</th><th class=\"num\">search score (us)</th><th class=\"num\">confirmed score "
        "(us)</th>"
        "<th class=\"num\">difference</th><th class=\"num\">vs ref</th><th class=\"num\">vs "
        "initial</th><th></th></tr>\n");
    const auto winner = string_at(c, "winner");
    if (const auto* entries = array_at(c, "entries"))
        for (const auto& e : *entries)
        {
            const auto* eo = object_at(&e);
            const auto key = string_at(eo, "key").value_or("?");
            const bool win = winner && *winner == key;
            p.raw(std::string("<tr") + (win ? " class=\"best\"" : "") + "><td class=\"mono\">" +
                  html_escape(key) + "</td><td class=\"num\">" + us(number_at(eo, "search_score_us")) +
                  "</td><td class=\"num\">" + us(number_at(eo, "score_us")) + "</td><td class=\"num\">" +
                  (number_at(eo, "rel_diff_vs_search")
                       ? fmt("%+.1f%%", 100 * *number_at(eo, "rel_diff_vs_search"))
                       : "-") +
                  "</td><td class=\"num\">" + speedup(number_at(eo, "speedup_vs_reference")) +
                  "</td><td class=\"num\">" + speedup(number_at(eo, "speedup_vs_initial")) + "</td><td>" +
                  (win                                      ? "winner"
                   : bool_at(eo, "eligible").value_or(true) ? ""
                                                            : "cannot win") +
                  "</td></tr>\n");
        }
    p.raw("</table></section>\n");
}

void chart_section(page& p, const run_view& v)
{
    line_chart_spec spec;
    spec.y_label = "score (us, geomean of case medians)";
    spec.x_label = "evaluation";
    std::string id = "progress";
    std::string heading = "Search progress";
    std::string note;
    if (v.tune_curve)
    {
        id = "tune-curve";
        heading = "Tune curve";
        const auto* tc = &*v.tune_curve;
        spec.title = "best score after each evaluation (" + string_at(tc, "strategy").value_or("?") +
                     ", seed " + integer(number_at(tc, "seed")) + ")";
        if (const auto* curve = array_at(tc, "curve"))
            for (const auto& s : *curve)
            {
                const auto* so = object_at(&s);
                const double n = number_at(so, "n").value_or(0);
                if (const auto sc = number_at(so, "score_us"))
                    spec.points.push_back({n, *sc});
                if (const auto b = number_at(so, "best_us"))
                    spec.line.push_back({n, *b});
            }
        note = "Time to best: evaluation " + integer(number_at(tc, "time_to_best")) + " of " +
               integer(number_at(tc, "evaluations")) + ".";
        if (v.summary)
            if (const auto* tune = object_at(&*v.summary, "tune"))
            {
                if (const auto* space = object_at(tune, "space"))
                    note += " Space: " + integer(number_at(space, "total")) + " points, " +
                            integer(number_at(space, "satisfy_restrictions")) +
                            " satisfy the restrictions, " + integer(number_at(space, "feasible")) +
                            " fit the device limits" +
                            (bool_at(space, "exact").value_or(true) ? "" : " (estimated)") + ".";
                if (const auto pr = number_at(tune, "pruned"))
                    note += " " + integer(pr) + " points pruned after compile.";
                if (const auto* bp = object_at(tune, "best_point"))
                {
                    std::string pt;
                    for (const auto& kv : *bp)
                        pt += (pt.empty() ? "" : " ") + std::string(kv.key()) + "=" + json_text(kv.value());
                    note += " Best point: " + pt + ".";
                }
            }
    }
    else
    {
        spec.title = "every evaluation's score and the best so far (from the journal)";
        std::vector<const report_candidate*> order;
        for (const auto& c : v.candidates)
            if (!c.pending())
                order.push_back(&c);
        std::sort(order.begin(),
                  order.end(),
                  [](auto* a, auto* b) { return a->evaluation_index < b->evaluation_index; });
        std::optional<double> best;
        for (const auto* c : order)
        {
            const double n = c->evaluation_index;
            if (c->valid() && c->rec.ec.score_us > 0)
            {
                spec.points.push_back({n, c->rec.ec.score_us});
                best = best ? std::min(*best, c->rec.ec.score_us) : c->rec.ec.score_us;
            }
            if (best)
                spec.line.push_back({n, *best});
        }
    }
    for (const auto& [gpu, b] : v.reference)
        if (gpu >= 0 && b.valid && b.score_us)
        {
            spec.markers.push_back({*b.score_us, "reference", "#b2182b"});
            break;
        }
    for (const auto& [gpu, b] : v.initial)
        if (gpu >= 0 && b.valid && b.score_us)
        {
            spec.markers.push_back({*b.score_us, "initial", "#7f7f7f"});
            break;
        }
    p.raw("<section id=\"" + id + "\"><h2>" + heading + "</h2>\n<div class=\"scroll\">" +
          render_line_chart_svg(spec) + "</div>\n");
    if (!note.empty())
        p.raw("<p class=\"note\">" + html_escape(note) + "</p>\n");
    p.raw("</section>\n");
}

void baselines_section(page& p, const run_view& v)
{
    p.raw("<section id=\"baselines\"><h2>Baselines</h2>\n");
    const auto cases = v.performance_cases();
    p.raw("<div class=\"scroll\"><table><tr><th>kernel</th><th>GPU</th><th class=\"num\">score (us)</th>");
    for (const auto& c : cases)
        p.raw("<th class=\"num\">" + html_escape(c) + " (us)</th>");
    p.raw("</tr>\n");
    auto rows = [&](const char* name, const std::map<int, baseline_timing>& per_gpu)
    {
        for (const auto& [gpu, b] : per_gpu)
        {
            p.raw(std::string("<tr><td>") + name + "</td><td>" + (gpu < 0 ? "-" : std::to_string(gpu)) +
                  "</td><td class=\"num\">" +
                  (b.valid ? us(b.score_us) : "<span class=\"invalid\">invalid</span>") + "</td>");
            for (const auto& c : cases)
            {
                auto it = b.medians.find(c);
                p.raw("<td class=\"num\">" +
                      us(it == b.medians.end() ? std::nullopt : std::optional<double>(it->second)) + "</td>");
            }
            p.raw("</tr>\n");
        }
    };
    rows("reference", v.reference);
    rows("initial", v.initial);
    if (v.baselines)
        for (const auto& kv : *v.baselines)
        {
            const auto* bo = object_at(&kv.value());
            const auto m = medians_at(bo, "case_median_us");
            std::vector<double> vals;
            for (const auto& [k, x] : m)
                vals.push_back(x);
            std::optional<double> score;
            if (!vals.empty())
            {
                double lg = 0;
                for (double x : vals)
                    lg += std::log(x);
                score = std::exp(lg / vals.size());
            }
            p.raw("<tr><td>" + html_escape(std::string(kv.key())) +
                  " <span class=\"note\">(vendor)</span></td><td>" + integer(number_at(bo, "gpu")) +
                  "</td><td class=\"num\">" + us(score) + "</td>");
            for (const auto& c : cases)
            {
                auto it = m.find(c);
                p.raw("<td class=\"num\">" +
                      us(it == m.end() ? std::nullopt : std::optional<double>(it->second)) + "</td>");
            }
            p.raw("</tr>\n");
        }
    p.raw("</table></div>\n");
    if (!v.baselines)
        p.raw("<p class=\"note\">No vendor baseline in this run's summary.</p>\n");
    p.raw("</section>\n");
}

void roofline_section(page& p, const run_view& v)
{
    p.raw("<section id=\"roofline\"><h2>Roofline</h2>\n");
    const json::object* r = v.roofline ? &*v.roofline : nullptr;
    if (!r)
    {
        p.raw(
            "<p class=\"note\">No roofline: the workload has no <code>roofline.json</code> or the device "
            "reports no "
            "ceilings (docs/autotune.md, \"Roofline\").</p></section>\n");
        return;
    }
    if (const auto sk = string_at(r, "skipped"))
    {
        p.raw("<p class=\"note\">Skipped: " + html_escape(*sk) + "</p></section>\n");
        return;
    }
    const auto* ce = object_at(r, "ceilings");
    p.raw("<p>Ceilings (" + html_escape(string_at(ce, "source").value_or("?")) +
          "): " + fmt("%.0f GB/s", number_at(ce, "bandwidth_gbps").value_or(0)) + ", " +
          fmt("%.1f FP32 TFLOP/s", number_at(ce, "fp32_tflops").value_or(0)));
    if (const auto* spec = object_at(r, "spec"))
        p.raw(". Work per case: bytes <code>" + html_escape(string_at(spec, "bytes").value_or("0")) +
              "</code>, flops <code>" + html_escape(string_at(spec, "flops").value_or("0")) + "</code>");
    p.raw(
        ".</p>\n<table><tr><th>case</th><th>bound</th><th class=\"num\">floor (us)</th><th "
        "class=\"num\">best (us)</th>"
        "<th class=\"num\">of the limit</th><th class=\"num\">achieved GB/s</th><th class=\"num\">achieved "
        "TFLOP/s</th></tr>\n");
    if (const auto* cases = object_at(r, "cases"))
        for (const auto& kv : *cases)
        {
            const auto* co = object_at(&kv.value());
            p.raw("<tr><td class=\"mono\">" + html_escape(std::string(kv.key())) + "</td><td>" +
                  html_escape(string_at(co, "bound").value_or("-")) + "</td><td class=\"num\">" +
                  us(number_at(co, "floor_us")) + "</td><td class=\"num\">" + us(number_at(co, "time_us")) +
                  "</td><td class=\"num\">" + pct(number_at(co, "fraction")) + "</td><td class=\"num\">" +
                  (number_at(co, "achieved_gbps") ? fmt("%.0f", *number_at(co, "achieved_gbps")) : "-") +
                  "</td><td class=\"num\">" +
                  (number_at(co, "achieved_tflops") ? fmt("%.2f", *number_at(co, "achieved_tflops")) : "-") +
                  "</td></tr>\n");
        }
    p.raw("</table></section>\n");
}

/// " (profile)" linking the candidate's row in the profiles section, when it was profiled.
std::string profile_link(const run_view& v, const std::string& id)
{
    for (const auto& pr : v.profiles)
        if (pr.candidate == id)
            return " <a class=\"note\" href=\"#" + html_escape(profile_anchor(id)) + "\">profile</a>";
    return {};
}

void candidates_section(page& p, const run_view& v)
{
    p.raw(
        "<section id=\"candidates\"><h2>Candidates</h2>\n<div class=\"scroll\"><table><tr><th>id</th>"
        "<th class=\"num\">branch</th><th class=\"num\">iter.</th><th>parent</th><th>status</th>"
        "<th class=\"num\">score (us)</th><th class=\"num\">vs ref</th><th class=\"num\">regs</th>"
        "<th class=\"num\">spills (B)</th><th class=\"num\">smem (B)</th><th "
        "class=\"num\">GPU</th><th>rationale</th></tr>\n");
    for (const auto& c : v.candidates)
    {
        const auto& ec = c.rec.ec;
        const bool best = v.best_id && *v.best_id == c.id();
        std::string status;
        if (c.pending())
            status = "<span class=\"pending\">pending</span>";
        else if (ec.valid)
            status = "<span class=\"valid\">valid</span>";
        else
            status = "<span class=\"invalid\" title=\"" + html_escape(ec.failure_message) + "\">" +
                     html_escape(ec.failure_kind.empty() ? "invalid" : ec.failure_kind) + "</span>";
        const auto& res = ec.compile.resources;
        const bool compiled = c.rec.compiled && ec.compile.compiled;
        std::string rationale = html_escape(ec.rationale);
        if (!c.pending() && !ec.valid && !ec.failure_message.empty())
        {
            std::string msg = ec.failure_message;
            if (msg.size() > 240)
                msg = msg.substr(0, 237) + "...";
            rationale += "<br><span class=\"note\">" + html_escape(msg) + "</span>";
        }
        p.raw(std::string("<tr") + (best ? " class=\"best\"" : "") + "><td class=\"mono\">" +
              html_escape(c.id()) + (best ? " &#9733;" : "") + profile_link(v, c.id()) +
              "</td><td class=\"num\">" + std::to_string(ec.branch) + "</td><td class=\"num\">" +
              std::to_string(ec.iteration) + "</td><td class=\"mono\">" +
              html_escape(ec.parent.value_or("")) + "</td><td>" + status + "</td><td class=\"num\">" +
              (c.valid() ? us(ec.score_us) : "-") + "</td><td class=\"num\">" +
              (c.valid() ? speedup(ec.speedup_vs_reference) : "-") + "</td><td class=\"num\">" +
              (compiled ? std::to_string(res.registers) : "-") + "</td><td class=\"num\">" +
              (compiled ? std::to_string(res.spill_stores_bytes + res.spill_loads_bytes) : "-") +
              "</td><td class=\"num\">" + (compiled ? std::to_string(res.static_shared_bytes) : "-") +
              "</td><td class=\"num\">" + (c.rec.gpu >= 0 ? std::to_string(c.rec.gpu) : "-") + "</td><td>" +
              rationale + "</td></tr>\n");
    }
    if (v.candidates.empty())
        p.raw("<tr><td colspan=\"12\">No candidate was proposed.</td></tr>\n");
    p.raw(
        "</table></div>\n<p class=\"note\">Spills are spill stores + loads (bytes per thread); smem is "
        "static shared "
        "memory (dynamic shared memory is part of the launch plan).</p></section>\n");
}

void source_section(page& p, const run_view& v)
{
    p.raw("<section id=\"source\"><h2>Best kernel source</h2>\n");
    if (!v.best_source)
    {
        p.raw("<p>No best kernel.</p></section>\n");
        return;
    }
    if (v.best_id)
        if (const auto* c = v.find(*v.best_id))
        {
            const auto cj = c->rec.ec.cand.to_json();
            const auto& co = cj.as_object();
            std::string launch;
            if (const auto* l = co.if_contains("launch"))
                launch = json::serialize(*l);
            p.raw("<p>entry <code>" + html_escape(c->rec.ec.cand.entry) + "</code>, launch <code>" +
                  html_escape(launch) + "</code>");
            if (const auto* d = co.if_contains("defines"); d && d->is_object() && !d->get_object().empty())
                p.raw(", defines <code>" + html_escape(json::serialize(*d)) + "</code>");
            if (const auto* o = co.if_contains("options"); o && o->is_array() && !o->get_array().empty())
                p.raw(", options <code>" + html_escape(json::serialize(*o)) + "</code>");
            p.raw("</p>\n");
        }
    p.raw("<pre><code>" + html_escape(*v.best_source) + "</code></pre></section>\n");
}

}  // namespace

double heatmap_display_scale(int layout_width)
{
    return std::clamp(1100.0 / std::max(1, layout_width), 0.5, 1.6);
}

std::string render_report_html(const run_view& v,
                               const std::string& heatmap_svg,
                               const std::string& generated_at)
{
    page p;
    const std::string title =
        "warpsmith report: " + (v.workload_name.empty() ? std::string("run") : v.workload_name) + " " +
        v.name;
    p.raw(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
        "content=\"width=device-width, initial-scale=1\">\n<title>");
    p.text(title);
    p.raw("</title>\n<style>");
    p.raw(css);
    p.raw("</style>\n</head>\n<body>\n<main>\n<h1>");
    p.text(title);
    p.raw(" <span class=\"badge " + html_escape(v.status) + "\">" + html_escape(v.status) + "</span></h1>\n");
    const auto label = v.strategy_label();
    p.raw("<p class=\"sub\"><code>" + html_escape(v.dir.string()) + "</code>" +
          (label.empty() ? std::string() : " &middot; " + html_escape(label)) + "</p>\n");
    summary_section(p, v);
    best_section(p, v);
    confirmation_section(p, v);
    p.raw(
        "<section id=\"heatmap\"><h2>Heatmap</h2>\n<p class=\"note\">Each cell: a candidate's median on a "
        "performance case relative to the reference timed on the same GPU (hover for times). Also "
        "<a href=\"heatmap.svg\">heatmap.svg</a> and <a href=\"heatmap.png\">heatmap.png</a>.</p>\n<div "
        "class=\"scroll\">");
    std::string svg = heatmap_svg;
    if (svg.rfind("<?xml", 0) == 0)
        svg = svg.substr(svg.find("?>") + 2);
    p.raw(svg);
    p.raw("</div></section>\n");
    chart_section(p, v);
    baselines_section(p, v);
    roofline_section(p, v);
    p.raw(render_profiles_section(v.profiles, v.best_id));
    candidates_section(p, v);
    source_section(p, v);
    p.raw("<footer>Generated by warpsmith " WARPSMITH_VERSION);
    if (!generated_at.empty())
        p.raw(" at " + html_escape(generated_at));
    p.raw(" from <code>journal.jsonl</code>" + std::string(v.summary ? ", <code>summary.json</code>" : "") +
          (v.tune_curve ? ", <code>tune_curve.json</code>" : "") +
          ". Regenerate with <code>warpsmith report " + html_escape(v.dir.string()) + "</code>.</footer>\n");
    p.raw("</main>\n</body>\n</html>\n");
    return p.take();
}

}  // namespace warpsmith::report
