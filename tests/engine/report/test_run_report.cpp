// Reports of a run (docs/reports.md): the run view folded from the journal, the heatmap (SVG text
// and PNG pixels, decoded with libpng), report.html, and write_run_report on finished, interrupted
// and dense runs.

#include "engine/profile/profiler.hpp"
#include "engine/report/color_scale.hpp"
#include "engine/report/heatmap.hpp"
#include "engine/report/html_report.hpp"
#include "engine/report/line_chart.hpp"
#include "engine/report/markup_escape.hpp"
#include "engine/report/png_codec.hpp"
#include "engine/report/run_report.hpp"
#include "engine/report/run_view.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/report/report_test_support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace warpsmith;
using namespace warpsmith::report;
using namespace warpsmith::test;
namespace fs = std::filesystem;

namespace
{

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::size_t count(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
        ++n;
    return n;
}

std::uint32_t be32(const std::string& s, std::size_t at)
{
    return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

const heatmap_row& row(const heatmap_model& m, const std::string& id)
{
    for (const auto& r : m.rows)
        if (r.id == id)
            return r;
    BOOST_FAIL("no heatmap row " + id);
    throw 0;
}

std::size_t row_index(const heatmap_model& m, const std::string& id)
{
    for (std::size_t i = 0; i < m.rows.size(); ++i)
        if (m.rows[i].id == id)
            return i;
    BOOST_FAIL("no heatmap row " + id);
    return 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(run_report_suite)

BOOST_AUTO_TEST_CASE(journal_timestamps_parse)
{
    const auto a = parse_utc_ms("2026-12-02T15:07:48.556Z");
    const auto b = parse_utc_ms("2026-12-02T15:08:00.056Z");
    BOOST_REQUIRE(a && b);
    BOOST_TEST(*b - *a == 11500.0);
    BOOST_TEST(!parse_utc_ms("yesterday"));
}

BOOST_AUTO_TEST_CASE(color_scale_diverges_around_the_reference)
{
    const color_scale s(3);
    const auto same = s.color_for_speedup(1.0);
    BOOST_TEST(same.r == same.g);
    BOOST_TEST(same.g == same.b);
    const auto faster = s.color_for_speedup(4.0), much_faster = s.color_for_speedup(8.0);
    const auto slower = s.color_for_speedup(0.25);
    BOOST_TEST(faster.b > faster.r);
    BOOST_TEST(slower.r > slower.b);
    BOOST_TEST(much_faster.luminance() < faster.luminance());
    // Saturates beyond the limit.
    BOOST_TEST(s.color_for_speedup(64.0).hex() == much_faster.hex());
    BOOST_TEST(color_scale::limit_for(0.2) == 1.0);
    BOOST_TEST(color_scale::limit_for(2.5) == 3.0);
    BOOST_TEST(color_scale::limit_for(40) == 6.0);
}

BOOST_AUTO_TEST_CASE(run_view_of_a_finished_run)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001");
    const auto v = load_run_view(run.dir());
    BOOST_TEST(v.name == "run-001");
    BOOST_TEST(v.workload_name == "vadd");
    BOOST_TEST(v.status == "finished");
    BOOST_TEST(v.stop_reason == "max_iterations");
    BOOST_TEST(v.finished);
    BOOST_REQUIRE(v.best_id);
    BOOST_TEST(*v.best_id == "c0003");
    BOOST_TEST(v.best_decided_by == "confirmation");
    BOOST_TEST(v.candidates.size() == 6u);
    BOOST_TEST(v.performance_cases() == (std::vector<std::string>{"1m", "4m"}));
    const auto* c3 = v.find("c0003");
    BOOST_REQUIRE(c3);
    BOOST_TEST(c3->valid());
    BOOST_TEST(c3->evaluation_index == 3);
    BOOST_REQUIRE(c3->evaluated_at_s);
    BOOST_TEST(*c3->evaluated_at_s > 0.0);
    BOOST_TEST(c3->reference_medians.at("1m") == 200.0);
    BOOST_TEST(v.find("c0006")->pending());
    BOOST_TEST(v.find("c0004")->rec.ec.failure_kind == "compile_error");
    BOOST_TEST(v.best_medians().at("1m") == 65.0);  // confirmation medians
    BOOST_REQUIRE(v.best_source);
    BOOST_TEST(*v.best_source == nasty_source());
    // The roofline is computed from workload/roofline.json and the device in run.json.
    BOOST_REQUIRE(v.roofline);
    const auto& cases = v.roofline->at("cases").as_object();
    BOOST_TEST(cases.at("1m").at("fraction").to_number<double>() > 0.0);
    BOOST_TEST(cases.at("1m").at("bound").as_string() == "memory");
    BOOST_REQUIRE(v.confirmation);
    BOOST_TEST(v.confirmation->at("winner").as_string() == "c0003");
}

BOOST_AUTO_TEST_CASE(run_view_of_an_interrupted_run_comes_from_the_journal)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-002", {.summary = false});
    // A torn last line (kill -9 during a write) is ignored.
    std::ofstream(run.dir() / "journal.jsonl", std::ios::app) << R"({"seq":99,"event":"evalu)";
    const auto v = load_run_view(run.dir());
    BOOST_TEST(v.status == "incomplete");
    BOOST_TEST(!v.finished);
    BOOST_TEST(v.journal_torn);
    BOOST_TEST(!v.summary);
    BOOST_REQUIRE(v.best_id);
    BOOST_TEST(*v.best_id == "c0003");  // the best so far by search timings
    BOOST_TEST(v.best_decided_by == "search");
    BOOST_TEST(!v.confirmation);
    BOOST_TEST(v.best_medians().at("4m") == 70.0);
    BOOST_TEST(v.elapsed_seconds > 0.0);
}

BOOST_AUTO_TEST_CASE(an_initial_kernel_that_did_not_compile_has_no_result_and_the_run_still_reports)
{
    // The search journals {"key": "initial", "valid": false, "result": null} when the initial
    // kernel does not compile; the report read that null as a malformed result and gave up.
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-003", {.summary = false});
    std::ofstream(run.dir() / "journal.jsonl", std::ios::app)
        << R"({"seq":98,"time":"2026-12-02T15:09:00.000Z","event":"baseline","key":"initial","gpu":-1,)"
        << R"("valid":false,"failure":{"kind":"compile_error","message":"kernel.cu(1): error"},)"
        << R"("score_us":null,"case_median_us":{},"result":null})"
        << "\n";
    const auto v = load_run_view(run.dir());
    BOOST_TEST(v.status == "incomplete");
}

BOOST_AUTO_TEST_CASE(not_a_run_directory_is_one_line)
{
    temp_dir tmp;
    try
    {
        load_run_view(tmp.path());
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("journal.jsonl is missing") != std::string::npos);
    }
    BOOST_CHECK_THROW(load_run_view(tmp.path() / "nope"), user_error);
}

BOOST_AUTO_TEST_CASE(heatmap_model_marks_invalid_pending_and_best)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001");
    const auto m = build_heatmap(load_run_view(run.dir()));
    BOOST_TEST(m.columns == (std::vector<std::string>{"1m", "4m"}));
    BOOST_TEST(m.rows.size() == 7u);  // initial + 6 candidates
    BOOST_TEST(m.rows.front().id == "initial");
    BOOST_TEST(m.count(heatmap_row_kind::invalid) == 2u);
    BOOST_TEST(m.count(heatmap_row_kind::pending) == 1u);
    BOOST_TEST(row(m, "c0002").failure_kind == "mismatch");
    BOOST_TEST(row(m, "c0004").failure_kind == "compile_error");
    BOOST_TEST(row(m, "c0003").best);
    BOOST_TEST(!row(m, "c0001").best);
    // Speedups per case against the reference on the same GPU; c0005 is slower than the reference.
    BOOST_TEST(*row(m, "c0003").cells[0].speedup() == 200.0 / 66.0);
    BOOST_TEST(*row(m, "c0005").cells[1].speedup() == 0.5);
    BOOST_TEST(m.limit_octaves == 2.0);  // 200/66 = 3.03x is between 2 and 4
}

BOOST_AUTO_TEST_CASE(heatmap_svg_marks_invalid_candidates_and_escapes_text)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001");
    const auto svg = render_heatmap_svg(build_heatmap(load_run_view(run.dir())));
    BOOST_TEST(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0u);
    BOOST_TEST(svg.find("class=\"row invalid\" data-id=\"c0002\" data-failure=\"mismatch\"") !=
               std::string::npos);
    BOOST_TEST(svg.find("class=\"row invalid\" data-id=\"c0004\" data-failure=\"compile_error\"") !=
               std::string::npos);
    BOOST_TEST(svg.find("class=\"row pending\" data-id=\"c0006\"") != std::string::npos);
    BOOST_TEST(svg.find("class=\"row valid best\" data-id=\"c0003\"") != std::string::npos);
    BOOST_TEST(svg.find("class=\"best-outline\"") != std::string::npos);
    BOOST_TEST(count(svg, "fill=\"url(#ws-hatch)\"") >= 4u);  // two rows x (cells + geomean), + legend
    BOOST_TEST(svg.find(">mismatch</text>") != std::string::npos);
    BOOST_TEST(svg.find(">compile_error</text>") != std::string::npos);
    // Hover text: rationale on the label, times on the cells.
    BOOST_TEST(svg.find("<title>c0003 (branch 2, iteration 1): grid-stride loop, half the blocks") !=
               std::string::npos);
    BOOST_TEST(svg.find("c0003 | 1m: 66.00 us vs reference 200.00 us (3.03x faster)") != std::string::npos);
    BOOST_TEST(svg.find("error: expected &#39;)&#39; &lt;here&gt;") != std::string::npos);
    BOOST_TEST(svg.find("<here>") == std::string::npos);
    // Legend with ticks, and balanced groups.
    BOOST_TEST(svg.find(">4x</text>") != std::string::npos);
    BOOST_TEST(svg.find(">1/4x</text>") != std::string::npos);
    BOOST_TEST(count(svg, "<g") == count(svg, "</g>"));
    BOOST_TEST(count(svg, "<text") == count(svg, "</text>"));
    BOOST_TEST(svg.find("</svg>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(heatmap_png_is_the_same_grid)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001");
    const auto m = build_heatmap(load_run_view(run.dir()));
    const auto l = layout_heatmap(m);
    const auto png = render_heatmap_png(m, 2);
    BOOST_TEST(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    BOOST_TEST(png.substr(12, 4) == "IHDR");
    BOOST_TEST(be32(png, 16) == static_cast<std::uint32_t>(l.width * 2));
    BOOST_TEST(be32(png, 20) == static_cast<std::uint32_t>(l.height * 2));
    BOOST_TEST(png.size() > 1000u);

    const auto img = decode_png(png, "heatmap.png");
    BOOST_TEST(img.width() == l.width * 2);
    BOOST_TEST(img.height() == l.height * 2);
    const color_scale scale(m.limit_octaves);
    // A cell's fill (near its top-left corner, away from the text) is its speedup's colour.
    const auto best = row_index(m, "c0003");
    BOOST_TEST(img.at((l.col_x(0) + 3) * 2, (l.row_y(best) + 4) * 2).hex() ==
               scale.color_for_speedup(200.0 / 66.0).hex());
    const auto slow = row_index(m, "c0005");
    BOOST_TEST(img.at((l.col_x(1) + 3) * 2, (l.row_y(slow) + 4) * 2).hex() ==
               scale.color_for_speedup(0.5).hex());
    // Invalid rows are hatched grey: only the two hatch colours (and the failure label box) appear.
    const auto inv = row_index(m, "c0002");
    int grey = 0, other = 0;
    for (int x = l.grid_x * 2; x < (l.grid_x + 20) * 2; ++x)
    {
        const auto c = img.at(x, (l.row_y(inv) + 1) * 2);
        (c.hex() == "#d9d9d9" || c.hex() == "#969696" ? grey : other)++;
    }
    BOOST_TEST(grey > 0);
    BOOST_TEST(other == 0);
    // The best row is outlined in black.
    BOOST_TEST(img.at((l.grid_x - 2) * 2, (l.row_y(best) + l.row_h / 2) * 2).hex() == "#000000");
    BOOST_CHECK_THROW(decode_png("not a png at all", "x.png"), user_error);
}

BOOST_AUTO_TEST_CASE(failure_labels_stay_inside_their_cells)
{
    // One performance case and a long failure kind: the label was drawn centred on the narrow
    // cells, over the row's candidate id.
    heatmap_model m;
    m.title = "sgemm-small";
    m.columns = {"256x256x256"};
    heatmap_row valid_row;
    valid_row.id = "c0001";
    valid_row.cells.push_back(heatmap_cell{});
    heatmap_row bad;
    bad.id = "c0002";
    bad.kind = heatmap_row_kind::invalid;
    bad.failure_kind = "timed_output_mismatch";
    bad.cells.push_back(heatmap_cell{});
    m.rows = {valid_row, bad};
    const auto l = layout_heatmap(m);
    const row_banner b = banner_for(l, bad.failure_kind);
    BOOST_TEST(b.text == "timed_output_mismatch");  // the columns grew to hold it
    BOOST_TEST(b.box_w > 0);
    BOOST_TEST(b.box_x >= l.grid_x);
    BOOST_TEST(b.box_x + b.box_w <= l.grid_x + l.cells_w());

    // Where even the widest column cannot hold it, the label is cut, still inside the cells.
    bad.failure_kind = std::string(80, 'x');
    m.rows = {valid_row, bad};
    const auto wide = layout_heatmap(m);
    const row_banner cut = banner_for(wide, bad.failure_kind);
    BOOST_TEST(cut.text.size() < bad.failure_kind.size());
    BOOST_TEST(cut.text.substr(cut.text.size() - 2) == "..");
    BOOST_TEST(cut.box_x >= wide.grid_x);
    BOOST_TEST(cut.box_x + cut.box_w <= wide.grid_x + wide.cells_w());

    // In the pixels: nothing of the label box lands left of the cells, on the id column.
    bad.failure_kind = "timed_output_mismatch";
    m.rows = {valid_row, bad};
    const auto img = decode_png(render_heatmap_png(m, 1), "narrow");
    const int y = l.row_y(1) + l.row_h / 2;
    int box_pixels_left_of_cells = 0;
    for (int x = l.grid_x - 40; x < l.grid_x - 1; ++x)
        box_pixels_left_of_cells += img.at(x, y).hex() == "#fafafa" ? 1 : 0;
    BOOST_TEST(box_pixels_left_of_cells == 0);
    // The SVG names the whole kind in the cells' label.
    BOOST_TEST(render_heatmap_svg(m).find(">timed_output_mismatch</text>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(dense_runs_shrink_rows_and_keep_the_best_labelled)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001", {.extra_valid = 240});
    const auto m = build_heatmap(load_run_view(run.dir()));
    const auto l = layout_heatmap(m);
    BOOST_TEST(m.rows.size() == 247u);
    BOOST_TEST(l.row_h == 6);
    BOOST_TEST(!l.cell_text);
    BOOST_TEST(l.label_every == 2);
    BOOST_TEST(l.labelled[row_index(m, "c0003")]);
    const auto img = decode_png(render_heatmap_png(m), "dense");
    BOOST_TEST(img.height() == l.height * 2);
}

BOOST_AUTO_TEST_CASE(report_html_has_every_section_and_escapes_the_source)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001", {.tune_curve = true});
    const auto v = load_run_view(run.dir());
    const auto svg = render_heatmap_svg(build_heatmap(v));
    const auto html = render_report_html(v, svg, "");
    for (const char* id : {"summary",
                           "best",
                           "confirmation",
                           "heatmap",
                           "tune-curve",
                           "baselines",
                           "roofline",
                           "candidates",
                           "source"})
        BOOST_TEST(html.find(std::string("<section id=\"") + id + "\">") != std::string::npos, id);
    BOOST_TEST(html.find("<!DOCTYPE html>") == 0u);
    // The kernel source is text, never markup.
    BOOST_TEST(
        html.find("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; "
                  "&lt;b&gt;bold&lt;/b&gt;") != std::string::npos);
    BOOST_TEST(html.find("i &lt; n &amp;&amp; i &gt;= 0") != std::string::npos);
    BOOST_TEST(html.find("<script") == std::string::npos);
    BOOST_TEST(html.find("alert(\"pwned\")") == std::string::npos);
    // Self-contained: no external resource of any kind.
    BOOST_TEST(html.find("<link") == std::string::npos);
    BOOST_TEST(html.find("src=") == std::string::npos);
    BOOST_TEST(html.find("@import") == std::string::npos);
    BOOST_TEST(html.find("url(http") == std::string::npos);
    // The heatmap is inline, the summary carries the run's facts.
    BOOST_TEST(html.find("class=\"warpsmith-heatmap\"") != std::string::npos);
    BOOST_TEST(html.find("class=\"warpsmith-chart\"") != std::string::npos);
    BOOST_TEST(html.find("Fake GPU") != std::string::npos);
    BOOST_TEST(html.find("SM 1980&ndash;1980 MHz") == std::string::npos);  // equal start/end shows one value
    BOOST_TEST(html.find("SM 1980 MHz, memory 2619 MHz") != std::string::npos);
    BOOST_TEST(html.find("42.0%") != std::string::npos);              // GPU busy
    BOOST_TEST(html.find("12.5 s") != std::string::npos);             // wall time
    BOOST_TEST(html.find("cublas") != std::string::npos);             // vendor baseline column
    BOOST_TEST(html.find("up to <b>1.3%</b>") != std::string::npos);  // confirmation vs search
    BOOST_TEST(html.find("c = a + b &lt;elementwise&gt;") != std::string::npos);
    BOOST_TEST(html.find("&#39;my dir&#39;") != std::string::npos);  // the command line, quoted
    BOOST_TEST(html.find(">mismatch</span>") != std::string::npos);
    BOOST_TEST(html.find(">compile_error</span>") != std::string::npos);
    BOOST_TEST(html.find("<tr class=\"best\"><td class=\"mono\">c0003 &#9733;") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(report_html_links_the_runs_profiles)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001");
    // What optimize --use-nsight leaves in profiles/: the best profiled on 4m (report and
    // document), c0001 refused on 1m (document only), and a file that is not a profile.
    const fs::path dir = run.dir() / "profiles";
    fs::create_directories(dir);
    profile_summary s;
    s.kernel = "vadd";
    s.grid = "(16384, 1, 1)";
    s.block = "(256, 1, 1)";
    s.ncu_version = "2025.3.1.0";
    s.duration_us = 61.5;
    s.sol_compute_pct = 21.0;
    s.sol_memory_pct = 88.5;
    s.dram_pct = 86.7;
    s.l2_hit_pct = 33.3;
    s.achieved_occupancy_pct = 81.2;
    s.theoretical_occupancy_pct = 100;
    s.registers_per_thread = 16;
    s.top_stalls = {warp_stall{"long_scoreboard", 0.62}};
    profile_outcome ok;
    ok.ok = true;
    ok.case_name = "4m";
    ok.summary = s;
    ok.report_path = dir / "c0003-4m.ncu-rep";
    ok.ncu_version = s.ncu_version;
    ok.wall_ms = 5100;
    write_json_file(dir / "c0003-4m.json", ok.to_json());
    std::ofstream(dir / "c0003-4m.ncu-rep") << "binary";
    profile_outcome refused;
    refused.case_name = "1m";
    refused.error_kind = "timeout";
    refused.message = "the profile took longer than 180000 ms <timeout>";
    write_json_file(dir / "c0001-1m.json", refused.to_json());
    std::ofstream(dir / "notes.json") << R"({"hello": 1})";

    const auto v = load_run_view(run.dir());
    BOOST_TEST_REQUIRE(v.profiles.size() == 2u);
    BOOST_TEST(v.profiles[0].candidate == "c0001");
    BOOST_TEST(!v.profiles[0].ok);
    BOOST_TEST(!v.profiles[0].report.has_value());
    BOOST_TEST(v.profiles[1].candidate == "c0003");
    BOOST_TEST(v.profiles[1].case_name == "4m");
    BOOST_TEST(v.profiles[1].report.value_or("") == "profiles/c0003-4m.ncu-rep");
    BOOST_TEST(find_profile(v.profiles, "c0003") == &v.profiles[1]);
    BOOST_TEST(find_profile(v.profiles, "c0001") == nullptr);  // failed profiles are not "its profile"

    const auto html = render_report_html(v, render_heatmap_svg(build_heatmap(v)), "");
    BOOST_TEST(html.find("<section id=\"profiles\">") != std::string::npos);
    BOOST_TEST(html.find("<a href=\"profiles/c0003-4m.ncu-rep\">ncu-rep</a>") != std::string::npos);
    BOOST_TEST(html.find("<a href=\"profiles/c0003-4m.json\">json</a>") != std::string::npos);
    BOOST_TEST(html.find("<a href=\"profiles/c0001-1m.json\">json</a>") != std::string::npos);
    BOOST_TEST(html.find("88.5%") != std::string::npos);                // SOL memory
    BOOST_TEST(html.find("long_scoreboard 62%") != std::string::npos);  // top stall
    BOOST_TEST(html.find("not profiled (timeout)") != std::string::npos);
    BOOST_TEST(html.find("&lt;timeout&gt;") != std::string::npos);
    // The candidates table links each profiled candidate to its row.
    BOOST_TEST(html.find("id=\"profile-c0003\"") != std::string::npos);
    BOOST_TEST(html.find("href=\"#profile-c0003\">profile</a>") != std::string::npos);
    BOOST_TEST(html.find("href=\"#profile-c0005\"") == std::string::npos);

    // A run without profiles has no such section.
    temp_dir other;
    synthetic_run plain(other.path() / "run-002");
    const auto pv = load_run_view(plain.dir());
    BOOST_TEST(render_report_html(pv, "", "").find("id=\"profiles\"") == std::string::npos);
    BOOST_TEST(url_path_escape("profiles/c 1+x.json") == "profiles/c%201%2Bx.json");
}

BOOST_AUTO_TEST_CASE(report_html_of_an_interrupted_run_says_so)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-002", {.summary = false});
    const auto v = load_run_view(run.dir());
    const auto html = render_report_html(v, render_heatmap_svg(build_heatmap(v)), "");
    BOOST_TEST(html.find("has no final summary") != std::string::npos);
    BOOST_TEST(html.find("<section id=\"progress\">") != std::string::npos);  // chart from the journal
    BOOST_TEST(html.find("No confirmation was recorded") != std::string::npos);
    BOOST_TEST(html.find("&lt;script&gt;") != std::string::npos);  // best so far's source, escaped
}

BOOST_AUTO_TEST_CASE(write_run_report_writes_three_files)
{
    temp_dir tmp;
    synthetic_run run(tmp.path() / "run-001");
    const auto f = write_run_report(run.dir());
    BOOST_TEST(f.status == "finished");
    BOOST_TEST(f.candidates == 6u);
    const auto svg = slurp(run.dir() / "heatmap.svg");
    BOOST_TEST(svg.rfind("<?xml", 0) == 0u);
    BOOST_TEST(slurp(run.dir() / "heatmap.png").substr(1, 3) == "PNG");
    BOOST_TEST(slurp(run.dir() / "report.html").find("<section id=\"candidates\">") != std::string::npos);
    // Into another directory, leaving the run alone.
    const auto out = tmp.path() / "elsewhere";
    write_run_report(run.dir(), out);
    BOOST_TEST(fs::exists(out / "report.html"));
    BOOST_TEST(write_run_report_noexcept(run.dir()));
    BOOST_TEST(!write_run_report_noexcept(tmp.path() / "missing"));
}

BOOST_AUTO_TEST_CASE(chart_ticks)
{
    BOOST_TEST(linear_ticks(0, 10, 5) == (std::vector<double>{0, 2, 4, 6, 8, 10}));
    BOOST_TEST(log_ticks(60, 600) == (std::vector<double>{100, 200, 500}));
    line_chart_spec spec;
    spec.points = {{1, 100}, {2, 80}};
    spec.line = {{1, 100}, {2, 80}};
    const auto svg = render_line_chart_svg(spec);
    BOOST_TEST(svg.find("class=\"best-line\"") != std::string::npos);
    BOOST_TEST(count(svg, "<circle") == 3u);  // two points and the legend's
    line_chart_spec empty;
    BOOST_TEST(render_line_chart_svg(empty).find("no valid evaluation yet") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(example_reports)
{
    // With WARPSMITH_KEEP_REPORTS=DIR the example runs stay in DIR for a look in a browser or an
    // image viewer (docs/reports.md shows them); otherwise they go to a temporary directory.
    temp_dir tmp;
    const char* keep = std::getenv("WARPSMITH_KEEP_REPORTS");
    const fs::path root = keep ? fs::path(keep) : tmp.path();
    fs::remove_all(root / "finished");
    fs::remove_all(root / "interrupted");
    fs::remove_all(root / "dense");
    synthetic_run finished(root / "finished", {.tune_curve = true});
    synthetic_run interrupted(root / "interrupted", {.summary = false});
    synthetic_run dense(root / "dense", {.extra_valid = 100});
    for (const auto* r : {&finished, &interrupted, &dense})
        BOOST_TEST(write_run_report(r->dir()).candidates > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
