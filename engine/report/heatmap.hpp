#pragma once

// heatmap.svg and heatmap.png (SPEC §4; docs/reports.md, "heatmap"): candidates (rows, proposal
// order, the initial kernel first) x performance cases (columns, plus the geometric mean), each
// cell coloured by the candidate's speedup over the reference timed on the same GPU, on a
// diverging log scale (color_scale.hpp). Invalid candidates are hatched grey with their failure
// kind, pending ones light grey, and the best (the run's winner) is outlined and starred.
//
// Both images are drawn from one heatmap_layout, so the PNG is the SVG's grid pixel for pixel (at
// `scale` pixels per SVG unit). The SVG carries hover text (<title>: id, branch, iteration,
// rationale; per cell: times and speedup) and classes a reader can select on
// (`row valid|invalid|pending|baseline`, `best`, data-id, data-failure).

#include "engine/report/markup_escape.hpp"
#include "engine/report/raster_image.hpp"
#include "engine/report/run_view.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpsmith::report
{

enum class heatmap_row_kind
{
    baseline,  ///< The initial kernel.
    valid,
    invalid,
    pending,
};

struct heatmap_cell
{
    std::optional<double> median_us;
    std::optional<double> reference_us;
    /// reference / median; absent when either is missing.
    std::optional<double> speedup() const;
};

struct heatmap_row
{
    std::string id;       ///< "c0003" or "initial".
    std::string tooltip;  ///< Hover text of the row label.
    heatmap_row_kind kind = heatmap_row_kind::valid;
    std::string failure_kind;  ///< Invalid rows.
    std::string failure_message;
    bool best = false;
    std::vector<heatmap_cell> cells;  ///< One per column.
    std::optional<double> overall;    ///< Geometric-mean speedup over the reference.
};

struct heatmap_model
{
    std::string title;
    std::vector<std::string> columns;  ///< Performance case names.
    std::vector<heatmap_row> rows;
    double limit_octaves = 1;  ///< The colour scale saturates at 2^limit faster / slower.

    std::size_t count(heatmap_row_kind k) const;
};

heatmap_model build_heatmap(const run_view& v);

/// Positions in SVG units (pixels of the SVG; the PNG multiplies them by its scale).
struct heatmap_layout
{
    static constexpr int margin = 12;
    static constexpr int char_w = 6;  ///< Monospace advance at font-size 10 (and the 5x7 font).
    static constexpr int text_h = 7;  ///< Cap height.
    int label_w = 0;                  ///< Row label column.
    int col_w = 0;                    ///< Each case column.
    int overall_w = 64;               ///< The geomean column.
    int row_h = 18;
    int title_y = margin;        ///< Top of the title line.
    int header_y = 0;            ///< Top of the column labels.
    int grid_x = 0, grid_y = 0;  ///< Top-left of the first cell.
    int overall_x = 0;           ///< Left of the geomean column.
    int legend_y = 0;            ///< Top of the colour bar.
    int legend_w = 264;
    int width = 0, height = 0;
    int label_every = 1;         ///< Row labels drawn every k rows (dense runs).
    bool cell_text = true;       ///< Speedups written in the cells.
    std::vector<bool> labelled;  ///< Per row: draw its label.

    int row_y(std::size_t i) const { return grid_y + static_cast<int>(i) * row_h; }
    int col_x(std::size_t j) const { return grid_x + static_cast<int>(j) * col_w; }
    int grid_right() const { return overall_x + overall_w; }
    int cells_w() const { return overall_x - 8 - grid_x; }
};

/// The label across an invalid or pending row's cells ("timed_output_mismatch", "pending"): its
/// text, cut with ".." when the cells are too narrow, and its box, always inside the cells (never
/// over the row's id on the left). No text when not even a few letters fit, or rows are too low.
struct row_banner
{
    std::string text;
    int box_x = 0, box_w = 0;  ///< The box; box_w 0: nothing drawn.
    int center_x = 0;          ///< Where the text is centred.
};

row_banner banner_for(const heatmap_layout& l, const std::string& label);

heatmap_layout layout_heatmap(const heatmap_model& m);

/// display_scale sets the SVG's width and height attributes (its viewBox stays in layout units).
std::string render_heatmap_svg(const heatmap_model& m, double display_scale = 1.0);
raster_image render_heatmap_raster(const heatmap_model& m, int scale = 2);
std::string render_heatmap_png(const heatmap_model& m, int scale = 2);

/// "2.13x", "12.4x", "0.48x".
std::string format_speedup(double s);

}  // namespace warpsmith::report
