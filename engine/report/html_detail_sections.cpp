// report.html's detail sections: progress / tune curve, baselines, roofline, candidates, the best kernel's
// source (docs/reports.md).

#include "engine/report/heatmap.hpp"
#include "engine/report/html_parts.hpp"
#include "engine/report/line_chart.hpp"
#include "engine/report/profiles_html.hpp"
#include "engine/search/scoring.hpp"
#include "harness/core/utf8_text.hpp"
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
            const auto m = numbers_at(bo, "case_median_us");
            std::vector<double> vals;
            vals.reserve(m.size());
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
                msg = std::string(utf8_prefix(msg, 237)) + "...";
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
            const boost::json::value cj = c->rec.ec.cand.to_json();
            std::string launch;
            if (const auto* l = lenient::value_at(cj, "launch"))
                launch = json::serialize(*l);
            p.raw("<p>entry <code>" + html_escape(c->rec.ec.cand.entry) + "</code>, launch <code>" +
                  html_escape(launch) + "</code>");
            if (const auto* d = object_at(cj, "defines"); d && !d->empty())
                p.raw(", defines <code>" + html_escape(json::serialize(*d)) + "</code>");
            if (const auto* o = array_at(cj, "options"); o && !o->empty())
                p.raw(", options <code>" + html_escape(json::serialize(*o)) + "</code>");
            p.raw("</p>\n");
        }
    p.raw("<pre><code>" + html_escape(*v.best_source) + "</code></pre></section>\n");
}

}  // namespace warpsmith::report::html
