// `warpsmith eval --sanitize` without a GPU (engine/executors/sanitizer.hpp): the report parser on
// logs written from the documented formats of compute-sanitizer (current "at kernel+0x.. in f:l",
// older "at 0x.. in f:l:kernel", racecheck analysis and hazard reports, host API errors, tool errors),
// attribution to the candidate, finding the tool, the worker command, and the CLI's one-line error
// when the tool is missing.

#include "engine/executors/sanitizer.hpp"
#include "engine/executors/worker_launch.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;

namespace
{

const std::string k_memcheck_log =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at sgemm+0x2d0 in sgemm-09-oob-write.cu:21\n"
    "=========     by thread (0,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f4d2e00245c is out of bounds\n"
    "=========     and is 29 bytes after the nearest allocation at 0x7f4d2e000000 of size 9028 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: cuLaunchKernel [0x2fb7a5] in libcuda.so.1\n"
    "=========         Host Frame: warpsmith::worker::launch_kernel() [0x5a1b3] in warpsmith-worker\n"
    "=========                in /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    "========= \n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at sgemm+0x2e0 in sgemm-09-oob-write.cu:22\n"
    "=========     by thread (0,0,0) in block (0,0,0)\n"
    "=========     Access at 0x7f4d2e002460 is out of bounds\n"
    "=========     and is 33 bytes after the nearest allocation at 0x7f4d2e000000 of size 9028 bytes\n"
    "=========\n"
    "========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on "
    "CUDA API "
    "call to cuStreamQuery.\n"
    "=========     Saved host backtrace up to driver entry point at error\n"
    "=========         Host Frame: cuStreamQuery [0x2a3f11] in libcuda.so.1\n"
    "=========\n"
    "========= Target application returned an error\n"
    "========= ERROR SUMMARY: 3 errors\n";

const std::string k_old_memcheck_log =
    "========= CUDA-MEMCHECK\n"
    "========= Invalid __global__ read of size 8\n"
    "=========     at 0x000000c8 in /home/u/src/helper.cuh:75:void vector_projection<double>(double*, int)\n"
    "=========     by thread (9,0,0) in block (0,0,0)\n"
    "=========     Address 0x000370e8 is out of bounds\n"
    "=========\n"
    "========= Invalid __global__ write of size 8\n"
    "=========     at 0x000001e0 in get_selected_points\n"
    "=========     by thread (7,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f19edffa038 is out of bounds\n"
    "=========     Device Frame:get_selected_points (get_selected_points : 0x1e0)\n"
    "=========\n"
    "========= ERROR SUMMARY: 2 errors\n";

const std::string k_racecheck_log =
    "========= COMPUTE-SANITIZER\n"
    "========= Error: Race reported between Write access at sgemm+0x310 in sgemm-11-smem-race.cu:27\n"
    "=========     and Read access at sgemm+0x1f0 in sgemm-11-smem-race.cu:22 [1024 hazards]\n"
    "=========\n"
    "========= Warning: Race reported between Read access at ws_scrub_shared+0x10 in warpsmith_helpers.cu:3\n"
    "=========     and Write access at ws_scrub_shared+0x20 in warpsmith_helpers.cu:4 [2 hazards]\n"
    "=========\n"
    "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n";

const std::string k_hazard_log =
    "========= ERROR: Potential WAW hazard detected at __shared__ 0x0 in block (0, 0, 0) :\n"
    "=========     Write Thread (0, 0, 1) at 0x00000310 in /tmp/smem.cu:27:sgemm\n"
    "=========     Write Thread (0, 0, 0) at 0x00000310 in /tmp/smem.cu:27:sgemm\n"
    "=========     Current Value : 0, Incoming Value : 0\n"
    "=========\n";

const std::string k_initcheck_log =
    "======== COMPUTE-SANITIZER\n"
    "======== Uninitialized __global__ memory read of size 4 bytes\n"
    "=========     at axpb+0x70 in k.cu:5\n"
    "=========     by thread (3,0,0) in block (0,0,0)\n"
    "=========     Address 0x7fc406200400\n"
    "=========\n"
    "========= Host API memory access error at host access to 0x7f7fcdc01200 of size 400 bytes\n"
    "=========     Uninitialized access at 0x7f7fcdc01300 on access by cudaMemcpy source\n"
    "=========     Saved host backtrace up to driver entry point at error\n"
    "=========     Host Frame: [0x1fe264]\n"
    "=========\n"
    "========= ERROR SUMMARY: 2 errors\n";

const std::string k_tool_error_log =
    "========= Error: Device not supported\n"
    "========= Error: Target application terminated before first instrumented API call\n";

void make_executable(const fs::path& p)
{
    std::ofstream(p) << "#!/bin/sh\nexit 0\n";
    ::chmod(p.c_str(), 0755);
}

bool sanitizer_outside_path()
{
    return find_compute_sanitizer(sanitizer_search_dirs("/nonexistent", "/nonexistent")).has_value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sanitizer_parser)

BOOST_AUTO_TEST_CASE(memcheck_reports_in_the_current_format)
{
    const sanitizer_log log = parse_sanitizer_log(k_memcheck_log);
    BOOST_REQUIRE_EQUAL(log.findings.size(), 3u);
    const sanitizer_finding& f = log.findings[0];
    BOOST_TEST(f.severity == "error");
    BOOST_TEST(f.kind == "Invalid __global__ write of size 4 bytes");
    BOOST_TEST(f.kernel == "sgemm");
    BOOST_TEST(f.location == "sgemm-09-oob-write.cu:21");
    BOOST_TEST(f.thread == "(0,0,0)");
    BOOST_TEST(f.block == "(0,0,0)");
    BOOST_TEST(f.detail.find("29 bytes after the nearest allocation") != std::string::npos, f.detail);
    BOOST_TEST(f.detail.find("Host Frame") == std::string::npos, "backtraces stay out: " << f.detail);
    for (const std::string& l : f.lines)
        BOOST_TEST(l.find("Host Frame") == std::string::npos);
    BOOST_TEST(log.findings[1].location == "sgemm-09-oob-write.cu:22");
    BOOST_TEST(log.findings[1].detail.find("Access at") != std::string::npos);
    BOOST_TEST(log.findings[2].kernel.empty());  // a host API error names no kernel
    BOOST_TEST(log.findings[2].kind.find("CUDA_ERROR_LAUNCH_FAILED") != std::string::npos);
    BOOST_REQUIRE(log.error_summary.has_value());
    BOOST_TEST(*log.error_summary == 3u);
    BOOST_TEST(log.notes.size() == 1u);  // "Target application returned an error"
    BOOST_TEST(log.findings[0].offset == std::string("========= COMPUTE-SANITIZER\n").size());
}

BOOST_AUTO_TEST_CASE(memcheck_reports_in_the_older_formats)
{
    const sanitizer_log log = parse_sanitizer_log(k_old_memcheck_log);
    BOOST_REQUIRE_EQUAL(log.findings.size(), 2u);
    BOOST_TEST(log.findings[0].kernel == "vector_projection<double>");
    BOOST_TEST(log.findings[0].location == "/home/u/src/helper.cuh:75");
    BOOST_TEST(log.findings[0].thread == "(9,0,0)");
    BOOST_TEST(log.findings[1].kernel == "get_selected_points");
    BOOST_TEST(log.findings[1].location.empty());
    BOOST_TEST(log.findings[1].detail.find("Device Frame") == std::string::npos);
    BOOST_TEST(*log.error_summary == 2u);
}

BOOST_AUTO_TEST_CASE(racecheck_analysis_and_hazard_reports)
{
    const sanitizer_log log = parse_sanitizer_log(k_racecheck_log);
    BOOST_REQUIRE_EQUAL(log.findings.size(), 2u);
    BOOST_TEST(log.findings[0].severity == "error");
    BOOST_TEST(log.findings[0].kind == "Race reported between Write access and Read access");
    BOOST_TEST(log.findings[0].kernel == "sgemm");
    BOOST_TEST(log.findings[0].location == "sgemm-11-smem-race.cu:27");
    BOOST_TEST(log.findings[1].severity == "warning");
    BOOST_TEST(log.findings[1].kernel == "ws_scrub_shared");
    BOOST_TEST(log.notes.size() == 1u);

    const sanitizer_log hazard = parse_sanitizer_log(k_hazard_log);
    BOOST_REQUIRE_EQUAL(hazard.findings.size(), 1u);
    BOOST_TEST(hazard.findings[0].kind == "Potential WAW hazard detected");
    BOOST_TEST(hazard.findings[0].kernel == "sgemm");
    BOOST_TEST(hazard.findings[0].location == "/tmp/smem.cu:27");
}

BOOST_AUTO_TEST_CASE(initcheck_reports_and_tool_errors)
{
    const sanitizer_log log = parse_sanitizer_log(k_initcheck_log);
    BOOST_REQUIRE_EQUAL(log.findings.size(), 2u);
    BOOST_TEST(log.findings[0].kind == "Uninitialized __global__ memory read of size 4 bytes");
    BOOST_TEST(log.findings[0].kernel == "axpb");
    BOOST_TEST(log.findings[1].kernel.empty());
    BOOST_TEST(log.findings[1].kind.find("Host API memory access error") == 0u);

    const sanitizer_log tool = parse_sanitizer_log(k_tool_error_log);
    BOOST_TEST(tool.findings.empty());
    BOOST_TEST(tool.notes.size() == 2u);
    BOOST_TEST(!tool.error_summary.has_value());
    BOOST_TEST(parse_sanitizer_log("").findings.empty());
    BOOST_TEST(parse_sanitizer_log("plain application output\nno tool lines\n").findings.empty());
}

BOOST_AUTO_TEST_CASE(kernel_names)
{
    BOOST_TEST(kernel_base_name("void sgemm<4>(float*, int)") == "sgemm<4>");
    BOOST_TEST(kernel_base_name("sgemm") == "sgemm");
    BOOST_TEST(kernel_base_name("ns::k(const float *, int)") == "ns::k");
    BOOST_TEST(kernel_matches("sgemm", "sgemm"));
    BOOST_TEST(kernel_matches("sgemm<128, 4>", "sgemm"));
    BOOST_TEST(!kernel_matches("sgemm_reference", "sgemm"));
    BOOST_TEST(!kernel_matches("ws_compare_f32", "sgemm"));
    BOOST_TEST(!kernel_matches("", "sgemm"));
}

BOOST_AUTO_TEST_CASE(reports_are_attributed_to_the_candidate_by_kernel_and_position)
{
    // One log: a report during load (the reference, same entry name), then the candidate's.
    const std::string at_load =
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ read of size 4 bytes\n"
        "=========     at sgemm+0x10 in reference.cu:9\n"
        "=========\n";
    const std::string later = k_memcheck_log.substr(std::string("========= COMPUTE-SANITIZER\n").size());
    std::vector<sanitizer_log_file> logs{{"/l/memcheck-100.log", at_load + later, at_load.size()},
                                         {"/l/memcheck-200.log", k_memcheck_log, std::nullopt}};
    const sanitizer_summary s = summarize_sanitizer(sanitizer_tool::memcheck, logs, "sgemm", 1);
    BOOST_TEST(s.errors == 2u);  // the two writes in sgemm after the evaluation started
    BOOST_TEST(s.other == 1u);   // the host API error
    BOOST_REQUIRE_EQUAL(s.other_reports.size(), 1u);
    BOOST_TEST(s.other_reports[0].kind.find("CUDA_ERROR_LAUNCH_FAILED") != std::string::npos);
    BOOST_TEST(s.at_load == 1u + 3u);    // the reference's read, and a restarted worker's whole log
    BOOST_TEST(s.reports.size() == 1u);  // limit
    BOOST_TEST(s.reports[0].location == "sgemm-09-oob-write.cu:21");
    BOOST_TEST(*s.reported_total == 6u);
    BOOST_TEST(s.logs.size() == 2u);

    // No log existed when the evaluation started: everything counts as the evaluation's.
    std::vector<sanitizer_log_file> lazy{{"/l/memcheck-1.log", k_memcheck_log, std::nullopt}};
    BOOST_TEST(summarize_sanitizer(sanitizer_tool::memcheck, lazy, "sgemm").errors == 2u);

    sanitizer_summary clean = summarize_sanitizer(sanitizer_tool::racecheck, {}, "sgemm");
    clean.ran = true;
    const boost::json::object j = clean.to_json();
    BOOST_TEST(j.at("errors").as_uint64() == 0u);
    BOOST_TEST(j.at("reported_total").is_null());
    const std::string table = render_sanitizer_report({s, clean});
    BOOST_TEST(table.find("memcheck") != std::string::npos);
    BOOST_TEST(table.find("Invalid __global__ write of size 4 bytes in sgemm at sgemm-09-oob-write.cu:21") !=
                   std::string::npos,
               table);
    sanitizer_summary failed;
    failed.tool = sanitizer_tool::initcheck;
    failed.error = "gpu0: worker refused to start";
    BOOST_TEST(render_sanitizer_report({failed}).find("initcheck  not run: gpu0: worker refused to start") !=
               std::string::npos);
    BOOST_TEST(failed.to_json().at("error").as_string() == "gpu0: worker refused to start");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sanitizer_command)

BOOST_AUTO_TEST_CASE(tools_parse_with_clear_errors)
{
    BOOST_TEST(parse_sanitizer_tools("").size() == 3u);
    const auto two = parse_sanitizer_tools("racecheck, memcheck");
    BOOST_REQUIRE_EQUAL(two.size(), 2u);
    BOOST_TEST((two[0] == sanitizer_tool::racecheck && two[1] == sanitizer_tool::memcheck));
    BOOST_CHECK_THROW(parse_sanitizer_tools("memcheck,synccheck2"), user_error);
    BOOST_CHECK_THROW(parse_sanitizer_tools("memcheck,memcheck"), user_error);
}

BOOST_AUTO_TEST_CASE(the_tool_is_found_in_the_documented_places)
{
    const auto dirs = sanitizer_search_dirs("/a:/b::/c", "/cuda");
    const std::vector<fs::path> expected{"/a",
                                         "/b",
                                         "/c",
                                         "/cuda/bin",
                                         "/cuda/compute-sanitizer",
                                         "/usr/local/cuda/bin",
                                         "/usr/local/cuda/compute-sanitizer"};
    BOOST_TEST((dirs == expected));
    BOOST_TEST(sanitizer_search_dirs(nullptr, nullptr).size() == 2u);

    temp_dir tmp;
    fs::create_directories(tmp.path() / "first");
    fs::create_directories(tmp.path() / "second");
    std::ofstream(tmp.path() / "first" / "compute-sanitizer") << "not executable";
    BOOST_TEST(!find_compute_sanitizer({tmp.path() / "first"}).has_value());
    make_executable(tmp.path() / "second" / "compute-sanitizer");
    const auto found =
        find_compute_sanitizer({tmp.path() / "missing", tmp.path() / "first", tmp.path() / "second"});
    BOOST_REQUIRE(found.has_value());
    BOOST_TEST(*found == tmp.path() / "second" / "compute-sanitizer");
}

BOOST_AUTO_TEST_CASE(the_worker_runs_under_the_tool_with_its_own_log)
{
    sanitizer_command_options o;
    o.sanitizer = "/opt/cuda/bin/compute-sanitizer";
    o.tool = sanitizer_tool::racecheck;
    o.log_dir = "/tmp/run 1/sanitizer";
    o.worker_binary = "/w/warpsmith-worker";
    o.worker_args = {"--cache-dir", "/c"};
    const std::vector<std::string> expected{"/opt/cuda/bin/compute-sanitizer",
                                            "--tool",
                                            "racecheck",
                                            "--log-file",
                                            "/tmp/run 1/sanitizer/racecheck-%p.log",
                                            "--print-limit",
                                            "20",
                                            "/w/warpsmith-worker",
                                            "--device",
                                            "{device}",
                                            "--exact-buffers",
                                            "--cache-dir",
                                            "/c"};
    BOOST_TEST((sanitizer_arguments(o) == expected));
    const std::string cmd = sanitizer_worker_command(o);
    BOOST_TEST(
        cmd ==
        "exec /opt/cuda/bin/compute-sanitizer --tool racecheck --log-file "
        "'/tmp/run 1/sanitizer/racecheck-%p.log' --print-limit 20 /w/warpsmith-worker --device {device} "
        "--exact-buffers --cache-dir /c");

    // Through worker_launch the placeholder becomes the device, and sh sees one command.
    worker_launch l;
    l.command = cmd;
    const std::vector<std::string> argv = l.gpu_argv(3);
    BOOST_REQUIRE_EQUAL(argv.size(), 3u);
    BOOST_TEST(argv[0] == "/bin/sh");
    BOOST_TEST(argv[2].find("--device 3 --exact-buffers") != std::string::npos, argv[2]);

    // memcheck also pads every allocation, so packed neighbours cannot hide a write past the end.
    o.tool = sanitizer_tool::memcheck;
    const std::vector<std::string> mem = sanitizer_arguments(o);
    BOOST_REQUIRE_EQUAL(mem.size(), expected.size() + 2);
    BOOST_TEST(mem[7] == "--padding");
    BOOST_TEST(mem[8] == "4096");
    BOOST_TEST(mem[9] == "/w/warpsmith-worker");
    o.tool = sanitizer_tool::racecheck;

    // A '%' in the directory is doubled (the tool expands %p, %q{ENV} and %%).
    o.log_dir = "/tmp/100%";
    BOOST_TEST(sanitizer_arguments(o)[4] == "/tmp/100%%/racecheck-%p.log");
    BOOST_TEST(is_sanitizer_log(sanitizer_tool::racecheck, "racecheck-4242.log"));
    BOOST_TEST(!is_sanitizer_log(sanitizer_tool::racecheck, "memcheck-4242.log"));
    BOOST_TEST(!is_sanitizer_log(sanitizer_tool::racecheck, "racecheck-.log"));
}

BOOST_AUTO_TEST_CASE(logs_are_read_with_their_sizes_at_the_start)
{
    temp_dir tmp;
    write_file_atomic(tmp.path() / "memcheck-1.log", k_memcheck_log);
    write_file_atomic(tmp.path() / "racecheck-1.log", k_racecheck_log);
    const auto sizes = snapshot_sanitizer_logs(sanitizer_tool::memcheck, tmp.path());
    BOOST_REQUIRE_EQUAL(sizes.size(), 1u);
    BOOST_TEST(sizes[0].second == k_memcheck_log.size());
    write_file_atomic(tmp.path() / "memcheck-2.log", k_memcheck_log);
    const auto logs = read_sanitizer_logs(sanitizer_tool::memcheck, tmp.path(), sizes);
    BOOST_REQUIRE_EQUAL(logs.size(), 2u);
    BOOST_TEST(*logs[0].size_at_start == k_memcheck_log.size());
    BOOST_TEST(!logs[1].size_at_start.has_value());
    const sanitizer_summary s = summarize_sanitizer(sanitizer_tool::memcheck, logs, "sgemm");
    BOOST_TEST(s.errors == 0u);
    BOOST_TEST(s.at_load == 6u);
}

BOOST_AUTO_TEST_CASE(eval_without_the_tool_says_so_in_one_line_and_exits_2,
                     *boost::unit_test::precondition([](boost::unit_test::test_unit_id)
                                                     { return !sanitizer_outside_path(); }))
{
    temp_dir tmp;
    const fs::path out = tmp.path() / "stderr.txt";
    const std::string cmd = "env PATH=/nonexistent CUDA_HOME=/nonexistent '" +
                            (bin_dir() / "warpsmith").string() + "' eval '" +
                            (source_dir() / "tests/cheats/workloads/sgemm-small").string() + "' --kernel '" +
                            (source_dir() / "tests/cheats/valid-sgemm-tiled.cu").string() +
                            "' --sanitize=memcheck 2>'" + out.string() + "' >/dev/null";
    const int status = std::system(cmd.c_str());
    BOOST_REQUIRE(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 2);
    const std::string text = read_text_file(out);
    BOOST_TEST(text.rfind("warpsmith: compute-sanitizer not found", 0) == 0u, text);
    BOOST_TEST(std::count(text.begin(), text.end(), '\n') == 1, text);
}

BOOST_AUTO_TEST_SUITE_END()
