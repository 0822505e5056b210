// Reading Nsight Compute's CSV pages (csv_table, ncu_report), the summary built from them
// (profile_summary), and ncu's command line (ncu_tool). The files under data/ are captures of
// ncu 2025.3 on the H200 (docs/nsight.md says how they were made).

#include "engine/profile/csv_table.hpp"
#include "engine/profile/ncu_report.hpp"
#include "engine/profile/ncu_tool.hpp"
#include "engine/profile/profile_summary.hpp"
#include "engine/profile/profiler.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace warpsmith;

namespace
{

std::string data(const std::string& name)
{
    return read_text_file(test::source_dir() / "tests/engine/profile/data" / name);
}

std::vector<ncu_kernel> load(const std::string& stem)
{
    std::vector<ncu_kernel> k = parse_raw_page(data(stem + "-raw.csv"));
    add_details_page(k, data(stem + "-details.csv"));
    return k;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(csv_table_suite)

BOOST_AUTO_TEST_CASE(quoted_fields_separators_and_ncu_messages)
{
    const std::string text =
        "==PROF== Connected to process 7\r\n"
        "\"ID\",\"Kernel Name\",\"a,b\"\r\n"
        "\"0\",\"say \"\"hi\"\"\",\"1,234.5\"\n"
        "\n"
        "1,plain,\n"
        "==WARNING== something\n";
    std::vector<csv_row> rows = parse_csv(text);
    BOOST_TEST_REQUIRE(rows.size() == 3u);
    BOOST_TEST(rows[0] == (csv_row{"ID", "Kernel Name", "a,b"}));
    BOOST_TEST(rows[1] == (csv_row{"0", "say \"hi\"", "1,234.5"}));
    BOOST_TEST(rows[2] == (csv_row{"1", "plain", ""}));
    BOOST_CHECK_THROW(parse_csv("\"ID\",\"open"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(numbers_as_ncu_prints_them)
{
    BOOST_TEST(*parse_ncu_number("1,234.5") == 1234.5);
    BOOST_TEST(*parse_ncu_number("42") == 42.0);
    BOOST_TEST(!parse_ncu_number("n/a"));
    BOOST_TEST(!parse_ncu_number(""));
    BOOST_TEST(!parse_ncu_number("(32, 32, 1)"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(ncu_report_suite)

BOOST_AUTO_TEST_CASE(a_page_without_the_table_is_a_format_error)
{
    BOOST_CHECK_THROW(parse_raw_page("==ERROR== The application returned an error code (1).\n"),
                      ncu_format_error);
    BOOST_CHECK_THROW(parse_raw_page("\"Kernel\",\"Value\"\n\"k\",\"1\"\n"), ncu_format_error);
    std::vector<ncu_kernel> none;
    BOOST_CHECK_THROW(add_details_page(none, "\"ID\",\"Kernel Name\"\n"), ncu_format_error);
}

BOOST_AUTO_TEST_CASE(raw_page_with_a_units_row)
{
    const std::string raw =
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"gpu__time_duration.sum\","
        "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"dram__bytes.sum.per_second\"\n"
        "\"\",\"\",\"\",\"\",\"\",\"msecond\",\"%\",\"Tbyte/second\"\n"
        "\"0\",\"12\",\"k\",\"(4, 1, 1)\",\"(256, 1, 1)\",\"1.50\",\"87.25\",\"4.10\"\n";
    std::vector<ncu_kernel> k = parse_raw_page(raw);
    BOOST_TEST_REQUIRE(k.size() == 1u);
    BOOST_TEST(k[0].name == "k");
    BOOST_TEST(k[0].grid == "(4, 1, 1)");
    BOOST_TEST(!k[0].find("Process ID"));
    profile_summary s = profile_summary::from_kernel(k[0], "2025.3.1.0");
    BOOST_TEST(*s.duration_us == 1500.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*s.sol_compute_pct == 87.25);
    BOOST_TEST(*s.dram_gbps == 4100.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(!s.l2_hit_pct);
}

BOOST_AUTO_TEST_CASE(sgemm_capture_names_the_kernel_and_its_limits)
{
    std::vector<ncu_kernel> k = load("sgemm");
    BOOST_TEST_REQUIRE(k.size() == 1u);  // the decoy launch outside cuProfilerStart/Stop is absent
    BOOST_TEST(k[0].name == "sgemm");
    BOOST_TEST(k[0].grid == "(128, 128, 1)");
    BOOST_TEST(k[0].block == "(32, 32, 1)");
    profile_summary s = profile_summary::from_kernel(k[0], parse_ncu_version(data("ncu-version.txt")));
    BOOST_TEST(s.ncu_version == "2025.3.1.0");
    BOOST_TEST(*s.duration_us == 19414.24, boost::test_tools::tolerance(1e-6));  // "19.414240" ms
    BOOST_TEST(*s.sol_compute_pct == 72.507123, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*s.sol_memory_pct == 86.360215, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*s.dram_gbps == 437.949203, boost::test_tools::tolerance(1e-9));  // "Gbyte/s"
    BOOST_TEST(*s.l2_hit_pct == 38.828731, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*s.registers_per_thread == 32.0);
    BOOST_TEST(*s.shared_bytes_per_block == 8320.0,
               boost::test_tools::tolerance(1e-9));  // "8.32 Kbyte/block"
    BOOST_TEST(s.occupancy_limiter == "registers");
    BOOST_TEST(*s.blocks_per_sm_limit == 2.0);
    BOOST_TEST_REQUIRE(s.top_stalls.size() == 5u);
    BOOST_TEST(s.top_stalls[0].reason == "mio_throttle");
    BOOST_TEST(s.top_stalls[1].reason == "not_selected");
    BOOST_TEST_REQUIRE(!s.hints.empty());
    BOOST_TEST(s.hints[0].rule == "HighPipeUtilization");
    BOOST_TEST(*s.hints[0].estimated_speedup == 85.16, boost::test_tools::tolerance(1e-9));
    for (const profile_hint& h : s.hints)
        BOOST_TEST(h.text.find("optional metric") == std::string::npos);
    const std::string table = s.render_table();
    BOOST_TEST(table.find("sgemm  grid (128, 128, 1)  block (32, 32, 1)") != std::string::npos);
    BOOST_TEST(table.find("compute 72.5 %   memory 86.4 %") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(elementwise_capture_reads_dram_throughput)
{
    std::vector<ncu_kernel> k = load("elementwise");
    BOOST_TEST_REQUIRE(k.size() == 1u);
    BOOST_TEST(k[0].name == "scale_bias_gelu");
    profile_summary s = profile_summary::from_kernel(k[0], "2025.3.1.0");
    BOOST_TEST(*s.dram_pct == 53.087911, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*s.dram_gbps == 1779.422, boost::test_tools::tolerance(1e-9));  // "1.779422 Tbyte/s"
    BOOST_TEST(*s.duration_us == 292.928, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.occupancy_limiter == "warps");
    BOOST_TEST(s.top_stalls.front().reason == "long_scoreboard");
    BOOST_TEST(*s.achieved_occupancy_pct == 78.346645, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(stalls_limiter_and_hints_from_synthetic_metrics)
{
    ncu_kernel k;
    k.name = "k";
    auto put = [&k](const std::string& name, double v) {
        k.metrics[name] = ncu_metric{"", std::to_string(v), v};
    };
    put("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 6);
    put("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 3);
    put("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", 1);
    put("smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", 1);
    put("launch__occupancy_limit_registers", 2);
    put("launch__occupancy_limit_shared_mem", 3);
    put("launch__occupancy_limit_warps", 2);
    put("launch__occupancy_limit_blocks", 32);
    k.rules.push_back({"Occupancy", "TheoreticalOccupancy", "INF", "Info text.", std::nullopt});
    k.rules.push_back(
        {"SpeedOfLight", "SOLBottleneck", "OPT", "First sentence. Second one. Third one.", 12.5});
    k.rules.push_back({"Occupancy", "AchievedOccupancy", "OPT", "Bigger gain.", 30.0});
    profile_summary s = profile_summary::from_kernel(k, "v");
    BOOST_TEST_REQUIRE(s.top_stalls.size() == 3u);  // "selected" is not a stall
    BOOST_TEST(s.top_stalls[0].reason == "long_scoreboard");
    BOOST_TEST(s.top_stalls[0].share == 0.6, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.occupancy_limiter == "registers");  // ties go to what the author can change
    BOOST_TEST(*s.blocks_per_sm_limit == 2.0);
    BOOST_TEST_REQUIRE(s.hints.size() == 3u);
    BOOST_TEST(s.hints[0].rule == "AchievedOccupancy");
    BOOST_TEST(s.hints[1].text == "First sentence. Second one.");
    BOOST_TEST(s.hints[2].type == "INF");

    profile_summary back = profile_summary::from_json(s.to_json());
    BOOST_TEST(back.to_json() == s.to_json());
    BOOST_CHECK_THROW(profile_summary::from_json(boost::json::object{{"grid", "x"}}), std::invalid_argument);
    // A malformed profile document names its field (profiles/cNNNN-CASE.json, read strictly).
    auto message = [](const boost::json::object& doc)
    {
        try
        {
            (void)profile_outcome::from_json(doc);
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    boost::json::object summary = s.to_json();
    summary["dram_pct"] = "high";
    BOOST_TEST(message(boost::json::object{{"ok", true}, {"summary", summary}}) ==
               "profile summary: dram_pct: must be a number, got \"high\"");
    BOOST_TEST(message(boost::json::object{{"ok", "yes"}}) ==
               "profile: ok: must be true or false, got \"yes\"");
    BOOST_TEST(message(boost::json::object{{"ok", false}, {"wall_ms", "slow"}}) ==
               "profile: wall_ms: must be a number, got \"slow\"");
    BOOST_TEST(message(boost::json::object{{"ok", false}, {"message", nullptr}, {"case", "big"}}) ==
               "accepted");
    BOOST_TEST(s.render_for_model().find("long_scoreboard 60%") != std::string::npos);
    BOOST_TEST(s.render_table().find("limited by registers (2 blocks/SM)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(hint_text_is_cut_at_a_word)
{
    std::string long_text(400, 'a');
    for (std::size_t i = 7; i < long_text.size(); i += 8)
        long_text[i] = ' ';
    std::string s = shorten_hint(long_text, 100);
    BOOST_TEST(s.size() <= 100u);
    BOOST_TEST(s.substr(s.size() - 3) == "...");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(ncu_tool_suite)

BOOST_AUTO_TEST_CASE(version_permission_and_errors_from_ncu_text)
{
    BOOST_TEST(parse_ncu_version(
                   "NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA "
                   "Corporation\nVersion 2025.3.1.0 (build 36398880) (public-release)\n") == "2025.3.1.0");
    BOOST_TEST(parse_ncu_version("something else").empty());
    const std::string log =
        "==PROF== Connected to process 1\n"
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
        "Performance Counters on the target device 0.\n";
    BOOST_TEST_REQUIRE(ncu_permission_problem(log).has_value());
    BOOST_TEST(ncu_permission_problem(log)->find("NVreg_RestrictProfilingToAdminUsers=0") !=
               std::string::npos);
    BOOST_TEST(!ncu_permission_problem("==PROF== fine\n"));
    BOOST_TEST(ncu_last_error("==ERROR== first\n==PROF== x\n==ERROR== second one\r\n") == "second one");
    BOOST_TEST(ncu_last_error("==PROF== x\n").empty());
}

BOOST_AUTO_TEST_CASE(profile_argv_selects_the_bracketed_launch_and_keeps_clocks)
{
    std::vector<std::string> argv =
        ncu_profile_argv("/x/ncu", {"SpeedOfLight"}, "/r/p.log", "/r/c0001-big", {"/bin/w", "--device", "0"});
    const std::vector<std::string> expected{"/x/ncu",
                                            "--profile-from-start",
                                            "off",
                                            "--clock-control",
                                            "none",
                                            "--section",
                                            "SpeedOfLight",
                                            "--log-file",
                                            "/r/p.log",
                                            "--export",
                                            "/r/c0001-big",
                                            "--force-overwrite",
                                            "/bin/w",
                                            "--device",
                                            "0"};
    BOOST_TEST(argv == expected);
    BOOST_TEST(ncu_import_argv("/x/ncu", "/r/a.ncu-rep", "raw") ==
               (std::vector<std::string>{"/x/ncu", "--import", "/r/a.ncu-rep", "--csv", "--page", "raw"}));
}

BOOST_AUTO_TEST_CASE(finding_ncu)
{
    test::temp_dir dir;
    std::vector<std::string> looked;
    BOOST_TEST(!find_ncu((dir.path() / "nope").string(), &looked));
    BOOST_TEST_REQUIRE(looked.size() == 1u);
    const std::string message = ncu_missing_message(looked);
    BOOST_TEST(message.find("(--ncu)") != std::string::npos);
    BOOST_TEST(message.find("--ncu PATH sets it") != std::string::npos);
    BOOST_TEST(message.find('\n') == std::string::npos);

    const fs::path fake = dir.path() / "ncu";
    std::ofstream(fake) << "#!/bin/sh\n";
    fs::permissions(fake, fs::perms::owner_all);
    BOOST_TEST(find_ncu(fake.string(), nullptr).value() == fs::absolute(fake));
}

BOOST_AUTO_TEST_SUITE_END()
