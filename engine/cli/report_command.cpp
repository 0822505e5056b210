// warpsmith report RUN_DIR: re-renders a run's heatmap.svg, heatmap.png and report.html from its
// journal and summary (docs/reports.md). Works on finished, interrupted, killed and still-running
// runs: the journal is the source of truth. optimize and tune write the same files when they end.

#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/report/run_report.hpp"
#include "harness/core/error.hpp"
#include "harness/core/terminal_text.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace warpsmith
{

namespace
{

struct report_args
{
    std::vector<std::string> runs;
    std::string out;
    bool quiet = false;
};

constexpr const char* report_footer = R"(Example:
  warpsmith report results/run-003
  warpsmith report results/run-003 results/run-004 --quiet
  warpsmith report results/run-003 --out /tmp/run-003-report

Writes heatmap.svg, heatmap.png and report.html into the run directory (or --out DIR, with one
run). report.html is self-contained: inline CSS and SVG, no script, no external resources.
docs/reports.md describes every section.)";

}  // namespace

void add_report_command(CLI::App& app)
{
    auto a = std::make_shared<report_args>();
    CLI::App* cmd =
        app.add_subcommand("report", "Render a run's heatmap and report.html from its run directory");
    cmd->add_option("run", a->runs, "Run directory (results/run-NNN); several may be given")->required();
    cmd->add_option("--out", a->out, "Write the files here instead of into the run directory (one run only)");
    cmd->add_flag("--quiet", a->quiet, "Print nothing on success");
    cmd->footer(report_footer);
    auto run = [a]
    {
        if (!a->out.empty() && a->runs.size() > 1)
            throw user_error("--out takes one run directory; " + std::to_string(a->runs.size()) +
                             " were given");
        for (const auto& r : a->runs)
        {
            const auto f = report::write_run_report(r, a->out);
            // summary.json's status is the run's text, and the run may come from anyone.
            if (!a->quiet)
                std::fputs(terminal_text(r + ": " + f.status + ", " + std::to_string(f.candidates) +
                                         " candidates -> " + f.report_html.string() + " (" +
                                         f.heatmap_svg.filename().string() + ", " +
                                         f.heatmap_png.filename().string() + ")\n")
                               .c_str(),
                           stdout);
        }
        std::fflush(stdout);
    };
    cmd->callback(run);
}

}  // namespace warpsmith
