#include "engine/report/heatmap.hpp"

#include "engine/report/number_text.hpp"
#include "engine/report/png_codec.hpp"
#include "engine/search/scoring.hpp"
#include "harness/core/utf8_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpsmith::report
{

namespace
{

constexpr rgb white{255, 255, 255};
constexpr rgb ink{26, 26, 26};
constexpr rgb muted{110, 110, 110};
constexpr rgb missing_fill{238, 238, 238};
constexpr rgb pending_fill{243, 243, 243};
constexpr rgb invalid_fill{217, 217, 217};
constexpr rgb invalid_line{150, 150, 150};
constexpr rgb label_box{250, 250, 250};
constexpr int banner_padding = 10;  ///< Box padding (6) and a margin of 2 on either side.

std::string format_us(double us)
{
    return us >= 1000 ? fmt("%.1f us", us) : fmt("%.2f us", us);
}

/// Text cut to at most n characters ("..." marks a cut).
std::string fit(const std::string& s, std::size_t n)
{
    if (s.size() <= n)
        return s;
    if (n <= 2)
        return std::string(utf8_prefix(s, n));
    return std::string(utf8_prefix(s, n - 2)) + "..";
}

std::string row_label(const heatmap_row& r)
{
    return (r.best ? "* " : "") + r.id;
}

std::string tick_label(int k)
{
    if (k == 0)
        return "1x";
    const auto p = std::to_string(1 << std::abs(k));
    return k > 0 ? p + "x" : "1/" + p + "x";
}

std::string shorten(std::string s, std::size_t n)
{
    for (auto& ch : s)
        if (ch == '\n' || ch == '\r' || ch == '\t')
            ch = ' ';
    return fit(s, n);
}

}  // namespace

std::optional<double> heatmap_cell::speedup() const
{
    if (!median_us || !reference_us || !(*median_us > 0) || !(*reference_us > 0))
        return std::nullopt;
    return *reference_us / *median_us;
}

std::size_t heatmap_model::count(heatmap_row_kind k) const
{
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [k](const auto& r) { return r.kind == k; }));
}

std::string format_speedup(double s)
{
    return s >= 9.995 ? fmt("%.1fx", s) : fmt("%.2fx", s);
}

heatmap_model build_heatmap(const run_view& v)
{
    heatmap_model m;
    // The workload's name is cut: the image is as wide as its title (a 100 KB name, from a
    // workload anyone may have written, made an image the PNG encoder refused).
    m.title = fit(v.workload_name.empty() ? std::string("run") : v.workload_name, 80) + " " +
              fit(v.name, 40) + ": speedup over the reference per performance case";
    m.columns = v.performance_cases();
    const auto ref0 = v.reference_medians();

    auto cells_of =
        [&](const std::map<std::string, double>& medians, const std::map<std::string, double>& ref)
    {
        std::vector<heatmap_cell> cells;
        for (const auto& c : m.columns)
        {
            heatmap_cell cell;
            if (auto it = medians.find(c); it != medians.end())
                cell.median_us = it->second;
            if (auto it = ref.find(c); it != ref.end())
                cell.reference_us = it->second;
            cells.push_back(cell);
        }
        return cells;
    };

    const auto init = v.initial_medians();
    if (!init.empty())
    {
        heatmap_row r;
        r.id = "initial";
        r.kind = heatmap_row_kind::baseline;
        r.best = v.best_id && *v.best_id == "initial";
        r.cells = cells_of(init, ref0);
        r.overall = geomean_speedup(ref0, init);
        r.tooltip = "initial kernel (the workload's starting point)";
        if (r.overall)
            r.tooltip += ", " + format_speedup(*r.overall) + " vs reference";
        m.rows.push_back(std::move(r));
    }
    for (const auto& c : v.candidates)
    {
        const auto& ec = c.rec.ec;
        heatmap_row r;
        r.id = c.id();
        r.best = v.best_id && *v.best_id == c.id();
        r.tooltip = c.id() + " (branch " + std::to_string(ec.branch) + ", iteration " +
                    std::to_string(ec.iteration) + (ec.parent ? ", parent " + *ec.parent : std::string()) +
                    ")";
        if (!ec.rationale.empty())
            r.tooltip += ": " + shorten(ec.rationale, 300);
        if (c.pending())
        {
            r.kind = heatmap_row_kind::pending;
            r.tooltip += "\npending: proposed, never evaluated";
        }
        else if (!ec.valid)
        {
            r.kind = heatmap_row_kind::invalid;
            r.failure_kind = ec.failure_kind.empty() ? "invalid" : ec.failure_kind;
            r.failure_message = ec.failure_message;
            r.tooltip += "\ninvalid: " + r.failure_kind +
                         (ec.failure_message.empty() ? "" : ": " + shorten(ec.failure_message, 300));
        }
        else
        {
            r.kind = heatmap_row_kind::valid;
            const auto& ref = c.reference_medians.empty() ? ref0 : c.reference_medians;
            r.cells = cells_of(ec.case_median_us, ref);
            if (ec.speedup_vs_reference > 0)
                r.overall = ec.speedup_vs_reference;
            else
                r.overall = geomean_speedup(ref, ec.case_median_us);
            r.tooltip += "\nscore " + format_us(ec.score_us);
            if (r.overall)
                r.tooltip += ", " + format_speedup(*r.overall) + " vs reference";
        }
        m.rows.push_back(std::move(r));
    }

    double max_abs = 0;
    for (const auto& r : m.rows)
    {
        for (const auto& cell : r.cells)
            if (auto s = cell.speedup())
                max_abs = std::max(max_abs, std::abs(std::log2(*s)));
        if (r.overall && *r.overall > 0)
            max_abs = std::max(max_abs, std::abs(std::log2(*r.overall)));
    }
    m.limit_octaves = color_scale::limit_for(max_abs);
    return m;
}

row_banner banner_for(const heatmap_layout& l, const std::string& label)
{
    row_banner b;
    if (l.row_h < 12)
        return b;
    const int room = l.cells_w() - banner_padding;  // the box's inner width at most
    const int fits = room / heatmap_layout::char_w;
    if (fits < 4)
        return b;
    b.text = static_cast<int>(label.size()) <= fits
                 ? label
                 : std::string(utf8_prefix(label, static_cast<std::size_t>(fits - 2))) + "..";
    b.box_w = static_cast<int>(b.text.size()) * heatmap_layout::char_w + 6;
    b.center_x = l.grid_x + l.cells_w() / 2;
    b.box_x = b.center_x - b.box_w / 2;
    return b;
}

heatmap_layout layout_heatmap(const heatmap_model& m)
{
    heatmap_layout l;
    const int cw = heatmap_layout::char_w;
    std::size_t label_chars = 7;
    for (const auto& r : m.rows)
        label_chars = std::max(label_chars, row_label(r).size());
    l.label_w = static_cast<int>(label_chars) * cw + 10;
    std::size_t case_chars = 0;
    for (const auto& c : m.columns)
        case_chars = std::max(case_chars, c.size());
    l.col_w = std::clamp(static_cast<int>(case_chars) * cw + 10, 52, 130);
    // Wide enough that an invalid row's failure kind fits across its cells (few cases, long
    // kinds such as timed_output_mismatch), up to a limit; longer labels are cut (banner_for).
    std::size_t banner_chars = std::string("pending").size();
    for (const auto& r : m.rows)
        if (r.kind == heatmap_row_kind::invalid)
            banner_chars = std::max(banner_chars, r.failure_kind.size());
    const int ncols = std::max<int>(static_cast<int>(m.columns.size()), 1);
    const int banner_w = static_cast<int>(banner_chars) * cw + banner_padding;
    l.col_w = std::max(l.col_w, std::min((banner_w + ncols - 1) / ncols, 200));
    const std::size_t n = std::max<std::size_t>(m.rows.size(), 1);
    l.row_h = n <= 60 ? 18 : n <= 150 ? 12 : n <= 400 ? 6 : 3;
    l.cell_text = l.row_h >= 12;
    l.label_every = l.row_h >= 12 ? 1 : (12 + l.row_h - 1) / l.row_h;
    l.header_y = l.title_y + 14 + 6;
    l.grid_y = l.header_y + 16;
    l.grid_x = heatmap_layout::margin + l.label_w;
    l.overall_x = l.grid_x + static_cast<int>(m.columns.size()) * l.col_w + 8;
    l.legend_y = l.grid_y + static_cast<int>(n) * l.row_h + 18;
    l.height = l.legend_y + 44 + 12 + heatmap_layout::margin;
    const int title_w = static_cast<int>(m.title.size()) * cw;
    l.width = std::max({l.grid_right() + heatmap_layout::margin + 4,
                        2 * heatmap_layout::margin + 384,
                        2 * heatmap_layout::margin + title_w});

    // Dense runs label every k-th row, and always the best one (dropping regular labels too close).
    l.labelled.assign(m.rows.size(), false);
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < m.rows.size(); ++i)
    {
        l.labelled[i] = i % static_cast<std::size_t>(l.label_every) == 0;
        if (m.rows[i].best)
            best = i;
    }
    if (best && l.label_every > 1)
    {
        for (std::size_t i = 0; i < m.rows.size(); ++i)
        {
            const auto d = i > *best ? i - *best : *best - i;
            if (d > 0 && d < static_cast<std::size_t>(l.label_every))
                l.labelled[i] = false;
        }
        l.labelled[*best] = true;
    }
    return l;
}

// ---- SVG ----

namespace
{

class svg_writer
{
public:
    void raw(const std::string& s) { out_ += s; }
    void rect(int x, int y, int w, int h, const std::string& fill, const std::string& extra = "")
    {
        out_ += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
                std::to_string(w) + "\" height=\"" + std::to_string(h) + "\" fill=\"" + fill + "\"" + extra +
                "/>";
    }
    /// Text whose glyph tops sit at `top` (the PNG's convention): baseline = top + cap height.
    void text(int x,
              int top,
              const std::string& s,
              const std::string& fill,
              const std::string& anchor = "start",
              const std::string& extra = "")
    {
        out_ += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(top + heatmap_layout::text_h) +
                "\" fill=\"" + fill + "\"" + (anchor == "start" ? "" : " text-anchor=\"" + anchor + "\"") +
                extra + ">" + xml_escape(s) + "</text>";
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

int text_top(int y, int h)
{
    return y + (h - heatmap_layout::text_h) / 2;
}

std::string cell_title(const heatmap_row& r, const std::string& column, const heatmap_cell& c)
{
    std::string t = r.id + " | " + column + ": ";
    if (!c.median_us)
        return t + "not timed";
    t += format_us(*c.median_us);
    if (c.reference_us)
        t += " vs reference " + format_us(*c.reference_us);
    if (auto s = c.speedup())
        t += " (" + format_speedup(*s) + (*s >= 1 ? " faster)" : ", slower)");
    return t;
}

}  // namespace

std::string render_heatmap_svg(const heatmap_model& m, double display_scale)
{
    const auto l = layout_heatmap(m);
    const color_scale scale(m.limit_octaves);
    const int L = static_cast<int>(m.limit_octaves);
    svg_writer w;
    const auto px = [display_scale](int units) { return std::to_string(std::lround(units * display_scale)); };
    w.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"warpsmith-heatmap\" width=\"" + px(l.width) +
          "\" height=\"" + px(l.height) + "\" viewBox=\"0 0 " + std::to_string(l.width) + " " +
          std::to_string(l.height) +
          "\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"10\">\n");
    w.raw(
        "<defs><pattern id=\"ws-hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
        "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"" +
        invalid_fill.hex() + "\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"" + invalid_line.hex() +
        "\" stroke-width=\"2\"/></pattern>\n<linearGradient id=\"ws-scale\" x1=\"0\" x2=\"1\" y1=\"0\" "
        "y2=\"0\">");
    for (int k = 0; k <= 20; ++k)
    {
        const double t = -1 + k / 10.0;
        w.raw("<stop offset=\"" + fmt("%.2f", k / 20.0) + "\" stop-color=\"" +
              color_scale::color_at(t).hex() + "\"/>");
    }
    w.raw("</linearGradient></defs>\n");
    w.rect(0, 0, l.width, l.height, "#ffffff");
    w.raw("\n");
    w.text(heatmap_layout::margin, l.title_y, m.title, ink.hex(), "start", " font-weight=\"bold\"");
    w.raw("\n<g class=\"columns\">");
    const std::size_t col_chars = static_cast<std::size_t>((l.col_w - 4) / heatmap_layout::char_w);
    for (std::size_t j = 0; j < m.columns.size(); ++j)
    {
        w.raw("<g><title>" + xml_escape(m.columns[j]) + "</title>");
        w.text(l.col_x(j) + l.col_w / 2, l.header_y, fit(m.columns[j], col_chars), ink.hex(), "middle");
        w.raw("</g>");
    }
    w.text(l.overall_x + l.overall_w / 2, l.header_y, "geomean", ink.hex(), "middle");
    w.raw("</g>\n");

    if (m.rows.empty())
        w.text(l.grid_x, text_top(l.grid_y, l.row_h), "no candidates evaluated yet", muted.hex());
    const int gap = l.row_h >= 6 ? 1 : 0;
    std::optional<std::size_t> best_row;
    for (std::size_t i = 0; i < m.rows.size(); ++i)
    {
        const auto& r = m.rows[i];
        const int y = l.row_y(i);
        const char* kind = r.kind == heatmap_row_kind::baseline  ? "baseline"
                           : r.kind == heatmap_row_kind::valid   ? "valid"
                           : r.kind == heatmap_row_kind::invalid ? "invalid"
                                                                 : "pending";
        w.raw("<g class=\"row " + std::string(kind) + (r.best ? " best" : "") + "\" data-id=\"" +
              xml_escape(r.id) + "\"" +
              (r.kind == heatmap_row_kind::invalid ? " data-failure=\"" + xml_escape(r.failure_kind) + "\""
                                                   : "") +
              ">");
        w.raw("<g class=\"label\"><title>" + xml_escape(r.tooltip) + "</title>");
        if (l.labelled[i])
            w.text(l.grid_x - 6,
                   text_top(y, l.row_h),
                   row_label(r),
                   r.best ? ink.hex() : "#333333",
                   "end",
                   r.best ? " font-weight=\"bold\"" : "");
        else
            w.rect(heatmap_layout::margin, y, l.label_w - 6, l.row_h, "transparent");
        w.raw("</g>");
        const int cells_w = static_cast<int>(m.columns.size()) * l.col_w;
        if (r.kind == heatmap_row_kind::invalid || r.kind == heatmap_row_kind::pending)
        {
            const bool inv = r.kind == heatmap_row_kind::invalid;
            const std::string fill = inv ? "url(#ws-hatch)" : pending_fill.hex();
            w.rect(l.grid_x, y, cells_w - gap, l.row_h - gap, fill);
            w.rect(l.overall_x, y, l.overall_w - gap, l.row_h - gap, fill);
            const row_banner b = banner_for(l, inv ? r.failure_kind : std::string("pending"));
            if (b.box_w > 0)
            {
                w.rect(b.box_x, y + 2, b.box_w, l.row_h - 4 - gap, label_box.hex(), " rx=\"2\"");
                w.text(b.center_x, text_top(y, l.row_h), b.text, inv ? "#444444" : muted.hex(), "middle");
            }
        }
        else
        {
            auto cell = [&](int x, int cw, const std::optional<double>& s, const std::string& title)
            {
                const rgb fill = s ? scale.color_for_speedup(*s) : missing_fill;
                w.raw("<g><title>" + xml_escape(title) + "</title>");
                w.rect(x, y, cw - gap, l.row_h - gap, fill.hex());
                if (l.cell_text)
                    w.text(x + cw / 2,
                           text_top(y, l.row_h),
                           s ? format_speedup(*s) : "-",
                           fill.luminance() < 0.45 ? "#ffffff" : ink.hex(),
                           "middle");
                w.raw("</g>");
            };
            for (std::size_t j = 0; j < m.columns.size(); ++j)
                cell(l.col_x(j), l.col_w, r.cells[j].speedup(), cell_title(r, m.columns[j], r.cells[j]));
            cell(l.overall_x,
                 l.overall_w,
                 r.overall,
                 r.id + " | geometric mean over cases: " + (r.overall ? format_speedup(*r.overall) : "-") +
                     " vs reference");
        }
        w.raw("</g>\n");
        if (r.best)
            best_row = i;
    }
    if (best_row)
    {
        const int y = l.row_y(*best_row);
        w.raw("<rect class=\"best-outline\" x=\"" + std::to_string(l.grid_x - 2) + "\" y=\"" +
              std::to_string(y - 2) + "\" width=\"" + std::to_string(l.grid_right() - l.grid_x + 3) +
              "\" height=\"" + std::to_string(l.row_h + 3) +
              "\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2\"/>\n");
    }

    // Legend: the colour bar with speedup ticks, the caption, and the row markers.
    const int lx = heatmap_layout::margin + 12;
    const int ly = l.legend_y;
    w.raw("<g class=\"legend\">");
    w.rect(lx, ly, l.legend_w, 10, "url(#ws-scale)", " stroke=\"#999999\" stroke-width=\"0.5\"");
    const int step = L > 3 ? 2 : 1;
    for (int k = -L; k <= L; k += step)
    {
        const int x = lx + static_cast<int>(std::lround((k + L) / (2.0 * L) * l.legend_w));
        w.raw("<line x1=\"" + std::to_string(x) + "\" y1=\"" + std::to_string(ly + 10) + "\" x2=\"" +
              std::to_string(x) + "\" y2=\"" + std::to_string(ly + 13) + "\" stroke=\"#333333\"/>");
        w.text(x, ly + 15, tick_label(k), ink.hex(), "middle");
    }
    w.text(lx, ly + 28, "speedup vs reference (log scale): red slower, blue faster", ink.hex());
    const int sy = ly + 44;
    int x = lx;
    w.rect(x, sy, 12, 12, "url(#ws-hatch)");
    w.text(x + 16, text_top(sy, 12), "invalid: failure kind", ink.hex());
    x += 16 + 21 * heatmap_layout::char_w + 14;
    w.rect(x, sy, 12, 12, pending_fill.hex(), " stroke=\"#bbbbbb\" stroke-width=\"0.5\"");
    w.text(x + 16, text_top(sy, 12), "pending", ink.hex());
    x += 16 + 7 * heatmap_layout::char_w + 14;
    w.rect(x + 1, sy + 1, 10, 10, "#ffffff", " stroke=\"#000000\" stroke-width=\"2\"");
    w.text(x + 16, text_top(sy, 12), "* best (winner)", ink.hex());
    w.raw("</g>\n</svg>\n");
    return w.take();
}

// ---- PNG ----

raster_image render_heatmap_raster(const heatmap_model& m, int s)
{
    s = std::max(1, s);
    const auto l = layout_heatmap(m);
    const color_scale scale(m.limit_octaves);
    const int L = static_cast<int>(m.limit_octaves);
    raster_image img(l.width * s, l.height * s, white);
    auto text = [&](int x, int top, const std::string& t, rgb c, char anchor)
    {
        const int w = raster_image::text_width(t, 1) - 1;  // the last glyph's spacing column is blank
        const int x0 = anchor == 'm' ? x - w / 2 : anchor == 'e' ? x - w : x;
        img.text(x0 * s, top * s, t, s, c);
    };
    auto rect = [&](int x, int y, int w, int h, rgb c) { img.fill_rect(x * s, y * s, w * s, h * s, c); };
    auto hatch = [&](int x, int y, int w, int h)
    {
        rect(x, y, w, h, invalid_fill);
        img.hatch_rect(x * s, y * s, w * s, h * s, 6 * s, s + s / 2, invalid_line);
    };

    text(heatmap_layout::margin, l.title_y, m.title, ink, 's');
    const std::size_t col_chars = static_cast<std::size_t>((l.col_w - 4) / heatmap_layout::char_w);
    for (std::size_t j = 0; j < m.columns.size(); ++j)
        text(l.col_x(j) + l.col_w / 2, l.header_y, fit(m.columns[j], col_chars), ink, 'm');
    text(l.overall_x + l.overall_w / 2, l.header_y, "geomean", ink, 'm');
    if (m.rows.empty())
        text(l.grid_x, text_top(l.grid_y, l.row_h), "no candidates evaluated yet", muted, 's');

    const int gap = l.row_h >= 6 ? 1 : 0;
    const int cells_w = static_cast<int>(m.columns.size()) * l.col_w;
    std::optional<std::size_t> best_row;
    for (std::size_t i = 0; i < m.rows.size(); ++i)
    {
        const auto& r = m.rows[i];
        const int y = l.row_y(i);
        if (l.labelled[i])
            text(l.grid_x - 6, text_top(y, l.row_h), row_label(r), r.best ? ink : rgb{51, 51, 51}, 'e');
        if (r.kind == heatmap_row_kind::invalid || r.kind == heatmap_row_kind::pending)
        {
            const bool inv = r.kind == heatmap_row_kind::invalid;
            if (inv)
            {
                hatch(l.grid_x, y, cells_w - gap, l.row_h - gap);
                hatch(l.overall_x, y, l.overall_w - gap, l.row_h - gap);
            }
            else
            {
                rect(l.grid_x, y, cells_w - gap, l.row_h - gap, pending_fill);
                rect(l.overall_x, y, l.overall_w - gap, l.row_h - gap, pending_fill);
            }
            const row_banner b = banner_for(l, inv ? r.failure_kind : std::string("pending"));
            if (b.box_w > 0)
            {
                rect(b.box_x, y + 2, b.box_w, l.row_h - 4 - gap, label_box);
                text(b.center_x, text_top(y, l.row_h), b.text, inv ? rgb{68, 68, 68} : muted, 'm');
            }
        }
        else
        {
            auto cell = [&](int x, int cw, const std::optional<double>& sp)
            {
                const rgb fill = sp ? scale.color_for_speedup(*sp) : missing_fill;
                rect(x, y, cw - gap, l.row_h - gap, fill);
                if (l.cell_text)
                    text(x + cw / 2,
                         text_top(y, l.row_h),
                         sp ? format_speedup(*sp) : "-",
                         fill.luminance() < 0.45 ? white : ink,
                         'm');
            };
            for (std::size_t j = 0; j < m.columns.size(); ++j)
                cell(l.col_x(j), l.col_w, r.cells[j].speedup());
            cell(l.overall_x, l.overall_w, r.overall);
        }
        if (r.best)
            best_row = i;
    }
    if (best_row)
    {
        const int y = l.row_y(*best_row);
        img.stroke_rect((l.grid_x - 3) * s,
                        (y - 3) * s,
                        (l.grid_right() - l.grid_x + 5) * s,
                        (l.row_h + 5) * s,
                        2 * s,
                        rgb{0, 0, 0});
    }

    const int lx = heatmap_layout::margin + 12;
    const int ly = l.legend_y;
    for (int px = 0; px < l.legend_w * s; ++px)
    {
        const double t = -1 + 2.0 * px / (l.legend_w * s - 1);
        img.fill_rect(lx * s + px, ly * s, 1, 10 * s, color_scale::color_at(t));
    }
    img.stroke_rect(lx * s, ly * s, l.legend_w * s, 10 * s, 1, rgb{153, 153, 153});
    const int step = L > 3 ? 2 : 1;
    for (int k = -L; k <= L; k += step)
    {
        const int x = lx + static_cast<int>(std::lround((k + L) / (2.0 * L) * l.legend_w));
        img.fill_rect(x * s, (ly + 10) * s, std::max(1, s / 2), 3 * s, rgb{51, 51, 51});
        text(x, ly + 15, tick_label(k), ink, 'm');
    }
    text(lx, ly + 28, "speedup vs reference (log scale): red slower, blue faster", ink, 's');
    const int sy = ly + 44;
    int x = lx;
    hatch(x, sy, 12, 12);
    text(x + 16, text_top(sy, 12), "invalid: failure kind", ink, 's');
    x += 16 + 21 * heatmap_layout::char_w + 14;
    rect(x, sy, 12, 12, pending_fill);
    img.stroke_rect(x * s, sy * s, 12 * s, 12 * s, 1, rgb{187, 187, 187});
    text(x + 16, text_top(sy, 12), "pending", ink, 's');
    x += 16 + 7 * heatmap_layout::char_w + 14;
    img.stroke_rect(x * s, sy * s, 12 * s, 12 * s, 2 * s, rgb{0, 0, 0});
    text(x + 16, text_top(sy, 12), "* best (winner)", ink, 's');
    return img;
}

std::string render_heatmap_png(const heatmap_model& m, int scale)
{
    return encode_png(render_heatmap_raster(m, scale));
}

}  // namespace warpsmith::report
