#pragma once

// report.html (SPEC §4; docs/reports.md): one self-contained page per run. Inline CSS and SVG, no
// script, no external resource, so it opens from a copied run directory, an e-mail or a CI
// artifact. Sections (each a <section id="...">, in this order):
//
//   summary        workload, strategy, status, command line, devices, clocks, versions, budgets,
//                  candidates, tokens and cost, wall time, GPU busy fraction
//   best           the winner with its per-case table (times, spread, speedups, vendor baselines,
//                  roofline) and how it was decided
//   confirmation   confirmation versus search timings (when the run confirmed)
//   heatmap        heatmap.svg inline
//   tune-curve     tune_curve.json as a chart (tunes), or `progress`: every score and the best so
//                  far from the journal (other runs)
//   baselines      reference and initial kernel per GPU, vendor libraries (summary "baselines")
//   roofline       ceilings and each case's floor and fraction reached (when known)
//   candidates     every candidate: id, branch, iteration, parent, status / failure kind, score,
//                  speedup, registers, spills, shared memory, rationale
//   source         the best kernel's source and launch plan (HTML-escaped)

#include "engine/report/markup_escape.hpp"
#include "engine/report/run_view.hpp"

#include <string>
#include <string_view>

namespace warpsmith::report
{

/// The page. heatmap_svg is inlined as is (render_heatmap_svg's output, best drawn with
/// heatmap_display_scale). generated_at is shown in the footer (a timestamp; empty leaves it out,
/// which keeps test output stable).
std::string render_report_html(const run_view& v,
                               const std::string& heatmap_svg,
                               const std::string& generated_at);

/// The scale at which the page shows a heatmap of this width (in layout units): enlarged up to
/// 1.6x, never wider than the page's 1100 pixels.
double heatmap_display_scale(int layout_width);

}  // namespace warpsmith::report
