#pragma once

// Writes a run's report files (SPEC §4; docs/reports.md): heatmap.svg, heatmap.png and report.html,
// each atomically, all rebuilt from the run directory (run_view.hpp). Called at the end of every
// `warpsmith optimize` and `warpsmith tune`, and by `warpsmith report RUN_DIR`, which works on
// interrupted and still-running runs too.

#include "engine/report/run_view.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace warpsmith::report
{

struct report_files
{
    std::filesystem::path heatmap_svg;
    std::filesystem::path heatmap_png;
    std::filesystem::path report_html;
    std::size_t candidates = 0;
    std::string status;
};

/// Renders and writes the three files into the run directory (or into out_dir when given).
/// Throws user_error when dir is not a run directory or a file cannot be written.
report_files write_run_report(const std::filesystem::path& dir, const std::filesystem::path& out_dir = {});

/// The end-of-run hook: write_run_report, with any failure logged as a warning instead of thrown
/// (a report must never turn a finished search into a failed command). Returns true on success.
bool write_run_report_noexcept(const std::filesystem::path& dir) noexcept;

}  // namespace warpsmith::report
