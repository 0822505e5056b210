#pragma once

// A small SVG chart for report.html: a step line (best score so far) over scattered points (every
// evaluation's score), optional horizontal marker lines (reference, initial kernel), axes with
// ticks, a logarithmic y axis when the values span more than a factor of three. No script, no
// external resources: the SVG is inlined in the page.

#include <optional>
#include <string>
#include <vector>

namespace warpsmith::report
{

struct chart_point
{
    double x = 0;
    double y = 0;
};

struct chart_marker
{
    double y = 0;
    std::string label;
    std::string color = "#888888";
};

struct line_chart_spec
{
    std::string title;
    std::string x_label;
    std::string y_label;
    std::vector<chart_point> points;  ///< Scattered (each evaluation).
    std::vector<chart_point> line;    ///< Drawn as a step line (best so far).
    std::string line_label = "best so far";
    std::vector<chart_marker> markers;
    int width = 760;
    int height = 320;
};

std::string render_line_chart_svg(const line_chart_spec& spec);

/// "Nice" tick values covering [lo, hi] on a linear axis (about `target` of them).
std::vector<double> linear_ticks(double lo, double hi, int target);
/// 1-2-5 ticks per decade covering [lo, hi] (lo > 0).
std::vector<double> log_ticks(double lo, double hi);

}  // namespace warpsmith::report
