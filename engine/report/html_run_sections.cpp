// report.html's run sections: summary, best candidate, confirmation (docs/reports.md).

#include "engine/report/heatmap.hpp"
#include "engine/report/html_parts.hpp"
#include "engine/report/line_chart.hpp"
#include "engine/report/profiles_html.hpp"
#include "engine/search/scoring.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpsmith::report::html
{

using lenient::array_at;
using lenient::bool_at;
using lenient::number_at;
using lenient::numbers_at;
using lenient::object_at;
using lenient::string_at;

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
            vendors.emplace_back(std::string(kv.key()), numbers_at(object_at(&kv.value()), "case_median_us"));
    const auto* roof_cases = v.roofline ? object_at(&*v.roofline, "cases") : nullptr;
    const auto* result = best_result(v);
    const bool confirmed = !numbers_at(object_at(sb, "confirmation"), "case_median_us").empty();

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

}  // namespace warpsmith::report::html
