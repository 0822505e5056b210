#include "engine/report/run_report.hpp"

#include "engine/report/heatmap.hpp"
#include "engine/report/html_report.hpp"
#include "engine/run/journal.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"

namespace warpsmith::report
{

namespace fs = std::filesystem;

report_files write_run_report(const fs::path& dir, const fs::path& out_dir)
{
    const auto view = load_run_view(dir);
    const auto model = build_heatmap(view);
    const auto svg = render_heatmap_svg(model);
    const auto png = render_heatmap_png(model);
    const auto inline_svg = render_heatmap_svg(model, heatmap_display_scale(layout_heatmap(model).width));
    const auto html = render_report_html(view, inline_svg, utc_timestamp());

    const fs::path out = out_dir.empty() ? view.dir : out_dir;
    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec)
        throw user_error("cannot create directory " + out.string() + ": " + ec.message());
    report_files f;
    f.heatmap_svg = out / "heatmap.svg";
    f.heatmap_png = out / "heatmap.png";
    f.report_html = out / "report.html";
    write_file_atomic(f.heatmap_svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg);
    write_file_atomic(f.heatmap_png, png);
    write_file_atomic(f.report_html, html);
    f.candidates = view.candidates.size();
    f.status = view.status;
    return f;
}

bool write_run_report_noexcept(const fs::path& dir) noexcept
{
    try
    {
        write_run_report(dir);
        return true;
    }
    catch (const std::exception& e)
    {
        try
        {
            log_warn(std::string("cannot write the run report: ") + e.what());
        }
        catch (...)
        {
        }
    }
    catch (...)
    {
    }
    return false;
}

}  // namespace warpsmith::report
