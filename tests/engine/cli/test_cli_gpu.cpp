// The warpsmith program with the real warpsmith-worker on a GPU (ctest label "gpu"; skipped
// without one): device-info, eval of a valid and a faulting kernel, run of a written request, and
// eval of a workload's initial kernel with its own launch plan, and that eval compiles a kernel under
// the compile-cache key a search uses for it.

#include "harness/compile/compile_request.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/candidate.hpp"
#include "tests/engine/cli/cli_test_support.hpp"

#include <boost/json.hpp>

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;
using namespace warpsmith::test;

BOOST_AUTO_TEST_SUITE(cli_gpu_suite)

BOOST_AUTO_TEST_CASE(device_info_eval_and_run)
{
    temp_dir cwd;
    auto info = run_warpsmith({"device-info", "--json"}, cwd.path());
    BOOST_TEST_REQUIRE(info.rc == 0, info.err);
    json::value dev = json::parse(info.out);
    BOOST_TEST(dev.at("sm_count").as_int64() > 0);
    BOOST_TEST(std::string(dev.at("arch").as_string()).rfind("sm_", 0) == 0u);

    std::ofstream(cwd.path() / "launch.json") << R"J({"grid": ["ceil_div(n,1024)"], "block": [256]})J";
    const std::string w = vadd_dir().string();
    auto ev = run_warpsmith({"eval",
                             w,
                             "--kernel",
                             (vadd_dir() / "vec4.cu").string(),
                             "--launch",
                             "launch.json",
                             "--iterations",
                             "20",
                             "--out",
                             "ev"},
                            cwd.path());
    BOOST_TEST(ev.rc == 0, ev.out + ev.err);
    json::value doc = read_json_file(cwd.path() / "ev" / "result.json");
    BOOST_TEST(doc.at("status").as_string() == "valid");
    BOOST_TEST(doc.at("speedup").at("vs_reference").to_number<double>() > 0);
    BOOST_TEST(doc.at("environment").at("gpu").as_string().size() > 0u);
    // The key eval compiled the candidate under is the one a search computes for the same
    // candidate (compile_request_for, as search_engine does): the two share compile-cache entries.
    const candidate cand = candidate::from_json(doc.at("candidate"), "result.json");
    const std::string arch(doc.at("compile").at("arch").as_string());
    BOOST_TEST(doc.at("compile").at("key").as_string() ==
               nvrtc_compiler::cache_key(compile_request_for(cand, arch)));

    auto rerun = run_warpsmith({"run", "ev/requests/1m.json", "--out", "rerun"}, cwd.path());
    BOOST_TEST(rerun.rc == 0, rerun.out + rerun.err);
    json::value again = read_json_file(cwd.path() / "rerun" / "result.json");
    BOOST_TEST(again.at("result").at("cases").at(0).at("timing").at("median_us").to_number<double>() > 0);

    auto odd = run_warpsmith({"run", "ev/requests/odd.json", "--out", "odd"}, cwd.path());
    BOOST_TEST(odd.rc == 0, odd.out + odd.err);

    auto fault = run_warpsmith({"eval", w, "--kernel", (vadd_dir() / "fault.cu").string(), "--out", "fault"},
                               cwd.path());
    BOOST_TEST(fault.rc == 1, fault.out + fault.err);
    json::value fdoc = read_json_file(cwd.path() / "fault" / "result.json");
    BOOST_TEST(fdoc.at("result").at("failure").at("kind").as_string() == "fault");
    BOOST_TEST(fdoc.at("worker").at("restarted").as_bool());
}

// The workload's initial kernel is launched with its own plan ("initial_launch": 32x32 blocks for
// sgemm, where the workload's launch is 16x16) when eval is given its file without --launch.
BOOST_AUTO_TEST_CASE(eval_of_the_initial_kernel_uses_its_own_launch)
{
    temp_dir cwd;
    const fs::path sgemm = source_dir() / "bench/workloads/sgemm";
    auto ev = run_warpsmith({"eval",
                             sgemm.string(),
                             "--kernel",
                             (sgemm / "initial.cu").string(),
                             "--warmup",
                             "1",
                             "--iterations",
                             "3",
                             "--out",
                             "ev"},
                            cwd.path());
    BOOST_TEST(ev.rc == 0, ev.out + ev.err);
    json::value doc = read_json_file(cwd.path() / "ev" / "result.json");
    BOOST_TEST(doc.at("status").as_string() == "valid", json::serialize(doc.at("result")).substr(0, 2000));
    BOOST_TEST(doc.at("result").at("cases").at(0).at("launch").at("block").at(0).as_int64() == 32);
}

BOOST_AUTO_TEST_SUITE_END()

// warpsmith profile under the real Nsight Compute (skipped where ncu is not installed): the
// candidate's own kernel, on the case asked for, with a summary that parses and a report on disk.
BOOST_AUTO_TEST_CASE(profile_reports_the_candidates_kernel_under_nsight_compute)
{
    if (!fs::exists("/usr/local/cuda/bin/ncu"))
    {
        BOOST_TEST_MESSAGE("skipped: /usr/local/cuda/bin/ncu is not installed");
        return;
    }
    temp_dir cwd;
    auto p = run_warpsmith({"profile",
                            vadd_dir().string(),
                            "--kernel",
                            (vadd_dir() / "vec4.cu").string(),
                            "--case",
                            "1m",
                            "--ncu",
                            "/usr/local/cuda/bin/ncu",
                            "--out",
                            "prof",
                            "--json"},
                           cwd.path());
    BOOST_TEST_REQUIRE(p.rc == 0, p.out + p.err);
    json::value doc = json::parse(p.out);
    BOOST_TEST(doc.at("ok").as_bool());
    BOOST_TEST(doc.at("case").as_string() == "1m");
    BOOST_TEST(std::string(doc.at("summary").at("kernel").as_string()).find("vadd") != std::string::npos);
    BOOST_TEST(doc.at("summary").at("dram_pct").to_number<double>() > 0);
    BOOST_TEST(doc.at("profiled_launches").to_number<int>() == 1);
    BOOST_TEST(fs::exists(cwd.path() / "prof" / "vec4-1m.ncu-rep"));
    // An invalid kernel is reported as such and not profiled.
    std::ofstream(cwd.path() / "wrong.cu")
        << "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
           "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] - b[i]; }\n";
    auto bad =
        run_warpsmith({"profile", vadd_dir().string(), "--kernel", "wrong.cu", "--out", "bad"}, cwd.path());
    BOOST_TEST(bad.rc == 1, bad.out + bad.err);
    BOOST_TEST(bad.out.find("not profiled") != std::string::npos);
}
