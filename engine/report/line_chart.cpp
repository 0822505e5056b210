#include "engine/report/line_chart.hpp"

#include "engine/report/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpsmith::report
{

namespace
{

std::string num(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

std::string tick_text(double v)
{
    char buf[32];
    if (v >= 1e4 || (v > 0 && v < 1e-2))
        std::snprintf(buf, sizeof buf, "%.0e", v);
    else if (v == std::floor(v))
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

std::vector<double> linear_ticks(double lo, double hi, int target)
{
    std::vector<double> out;
    if (!(hi > lo))
    {
        out.push_back(lo);
        return out;
    }
    const double raw = (hi - lo) / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double f : {1.0, 2.0, 5.0, 10.0})
        if (f * mag >= raw)
        {
            step = f * mag;
            break;
        }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        out.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
    return out;
}

std::vector<double> log_ticks(double lo, double hi)
{
    std::vector<double> out;
    if (!(lo > 0) || !(hi >= lo))
        return out;
    for (int e = static_cast<int>(std::floor(std::log10(lo)));
         e <= static_cast<int>(std::ceil(std::log10(hi)));
         ++e)
        for (double f : {1.0, 2.0, 5.0})
        {
            const double v = f * std::pow(10.0, e);
            if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
                out.push_back(v);
        }
    return out;
}

std::string render_line_chart_svg(const line_chart_spec& c)
{
    const int left = 64, right = 150, top = 28, bottom = 40;
    const int pw = c.width - left - right, ph = c.height - top - bottom;

    double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
    auto take = [&](const chart_point& p)
    {
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || p.y <= 0)
            return;
        xmin = std::min(xmin, p.x);
        xmax = std::max(xmax, p.x);
        ymin = std::min(ymin, p.y);
        ymax = std::max(ymax, p.y);
    };
    for (const auto& p : c.points)
        take(p);
    for (const auto& p : c.line)
        take(p);
    for (const auto& m : c.markers)
        if (m.y > 0 && std::isfinite(m.y))
        {
            ymin = std::min(ymin, m.y);
            ymax = std::max(ymax, m.y);
        }
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"warpsmith-chart\" width=\"" +
                      std::to_string(c.width) + "\" height=\"" + std::to_string(c.height) +
                      "\" viewBox=\"0 0 " + std::to_string(c.width) + " " + std::to_string(c.height) +
                      "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    out += "<text x=\"" + std::to_string(left) + "\" y=\"16\" font-weight=\"bold\">" + xml_escape(c.title) +
           "</text>\n";
    if (xmin > xmax)
    {
        out += "<text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top + ph / 2) +
               "\" fill=\"#666666\">no valid evaluation yet</text>\n</svg>\n";
        return out;
    }
    if (xmax == xmin)
        xmax = xmin + 1;
    const bool log_y = ymax / ymin > 3;
    double y0 = ymin, y1 = ymax;
    if (log_y)
    {
        y0 = ymin / 1.1;
        y1 = ymax * 1.1;
    }
    else
    {
        const double pad = std::max((ymax - ymin) * 0.08, ymax * 0.02);
        y0 = std::max(0.0, ymin - pad);
        y1 = ymax + pad;
    }
    auto sx = [&](double x) { return left + (x - xmin) / (xmax - xmin) * pw; };
    auto sy = [&](double y)
    {
        const double t =
            log_y ? (std::log(y) - std::log(y0)) / (std::log(y1) - std::log(y0)) : (y - y0) / (y1 - y0);
        return top + ph - t * ph;
    };

    // Axes and grid.
    out += "<g class=\"axes\" stroke=\"#cccccc\">";
    auto yt = log_y ? log_ticks(y0, y1) : linear_ticks(y0, y1, 5);
    if (yt.size() < 2)
        yt = {ymin, ymax};
    for (double v : yt)
        out += "<line x1=\"" + std::to_string(left) + "\" x2=\"" + std::to_string(left + pw) + "\" y1=\"" +
               num(sy(v)) + "\" y2=\"" + num(sy(v)) + "\" stroke-dasharray=\"2,3\"/>";
    out += "<line x1=\"" + std::to_string(left) + "\" x2=\"" + std::to_string(left) + "\" y1=\"" +
           std::to_string(top) + "\" y2=\"" + std::to_string(top + ph) + "\" stroke=\"#444444\"/>";
    out += "<line x1=\"" + std::to_string(left) + "\" x2=\"" + std::to_string(left + pw) + "\" y1=\"" +
           std::to_string(top + ph) + "\" y2=\"" + std::to_string(top + ph) + "\" stroke=\"#444444\"/>";
    out += "</g>\n<g class=\"ticks\" fill=\"#333333\">";
    for (double v : yt)
        out += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + num(sy(v) + 4) +
               "\" text-anchor=\"end\">" + tick_text(v) + "</text>";
    for (double v : linear_ticks(xmin, xmax, 8))
        out += "<text x=\"" + num(sx(v)) + "\" y=\"" + std::to_string(top + ph + 16) +
               "\" text-anchor=\"middle\">" + tick_text(v) + "</text>";
    out += "<text x=\"" + std::to_string(left + pw / 2) + "\" y=\"" + std::to_string(c.height - 6) +
           "\" text-anchor=\"middle\">" + xml_escape(c.x_label) + "</text>";
    out += "<text transform=\"translate(14," + std::to_string(top + ph / 2) +
           ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(c.y_label + (log_y ? " (log scale)" : "")) +
           "</text>";
    out += "</g>\n";

    // Markers, points, the step line, and a legend on the right.
    int legend_y = top + 10;
    const int lx = left + pw + 14;
    for (const auto& m : c.markers)
    {
        if (!(m.y > 0))
            continue;
        out += "<line class=\"marker\" x1=\"" + std::to_string(left) + "\" x2=\"" +
               std::to_string(left + pw) + "\" y1=\"" + num(sy(m.y)) + "\" y2=\"" + num(sy(m.y)) +
               "\" stroke=\"" + m.color + "\" stroke-dasharray=\"6,4\" stroke-width=\"1.5\"/>";
        out += "<line x1=\"" + std::to_string(lx) + "\" x2=\"" + std::to_string(lx + 18) + "\" y1=\"" +
               std::to_string(legend_y - 4) + "\" y2=\"" + std::to_string(legend_y - 4) + "\" stroke=\"" +
               m.color + "\" stroke-dasharray=\"6,4\" stroke-width=\"1.5\"/><text x=\"" +
               std::to_string(lx + 24) + "\" y=\"" + std::to_string(legend_y) + "\">" + xml_escape(m.label) +
               "</text>\n";
        legend_y += 18;
    }
    out += "<g class=\"points\" fill=\"#9ecae1\" stroke=\"#4292c6\" stroke-width=\"0.5\">";
    for (const auto& p : c.points)
        if (std::isfinite(p.y) && p.y > 0)
            out += "<circle cx=\"" + num(sx(p.x)) + "\" cy=\"" + num(sy(p.y)) + "\" r=\"2.5\"/>";
    out += "</g>\n";
    if (!c.points.empty())
    {
        out += "<circle cx=\"" + std::to_string(lx + 9) + "\" cy=\"" + std::to_string(legend_y - 4) +
               "\" r=\"2.5\" fill=\"#9ecae1\" stroke=\"#4292c6\"/><text x=\"" + std::to_string(lx + 24) +
               "\" y=\"" + std::to_string(legend_y) + "\">evaluation</text>\n";
        legend_y += 18;
    }
    std::string path;
    std::optional<double> prev_y;
    for (const auto& p : c.line)
    {
        if (!std::isfinite(p.y) || p.y <= 0)
            continue;
        // Appended piecewise: g++ 12 warns (-Wrestrict, a false positive) on "M" + std::string.
        path += prev_y ? " H" : "M";
        path += num(sx(p.x));
        path += prev_y ? " V" : ",";
        path += num(sy(p.y));
        prev_y = p.y;
    }
    if (!path.empty())
    {
        out += "<path class=\"best-line\" d=\"" + path +
               "\" fill=\"none\" stroke=\"#08519c\" stroke-width=\"2\"/>\n";
        out += "<line x1=\"" + std::to_string(lx) + "\" x2=\"" + std::to_string(lx + 18) + "\" y1=\"" +
               std::to_string(legend_y - 4) + "\" y2=\"" + std::to_string(legend_y - 4) +
               "\" stroke=\"#08519c\" stroke-width=\"2\"/><text x=\"" + std::to_string(lx + 24) + "\" y=\"" +
               std::to_string(legend_y) + "\">" + xml_escape(c.line_label) + "</text>\n";
    }
    out += "</svg>\n";
    return out;
}

}  // namespace warpsmith::report
