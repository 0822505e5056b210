// warpsmith optimize end to end with cuBLAS and the roofline on a real GPU (ctest label gpu;
// skipped without one): a small GEMM workload that declares cuBLAS and a roofline, one scripted
// candidate. The summary must hold both cuBLAS baselines (FP32 within the tolerance, TF32 timed),
// the roofline against the ceilings measured at start, and the final table their columns;
// --no-measure falls back to datasheet ceilings.

#include "harness/core/json_file.hpp"
#include "tests/engine/cli/cli_test_support.hpp"

#include <boost/json.hpp>

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

const char* k_perf_case = "512x512x512";

// tests/cheats/workloads/sgemm-small with "baselines" and "roofline" added, in dir/workload.
fs::path write_workload(const fs::path& dir)
{
    const fs::path src = source_dir() / "tests/cheats/workloads/sgemm-small";
    const fs::path dst = dir / "workload";
    fs::create_directories(dst);
    json::object w = read_json_file(src / "workload.json").as_object();
    w["baselines"] = json::parse(
        R"j([{"name": "cublas", "kind": "cublas_sgemm", "m": "M", "n": "N", "k": "K", "a": "A", "b": "B", "c": "C"}])j");
    w["roofline"] = json::parse(R"j({"bytes": "4*(M*K + K*N + M*N)", "flops": "2*M*N*K"})j");
    std::ofstream(dst / "workload.json") << json::serialize(w);
    fs::copy_file(src / "reference.cu", dst / "reference.cu");
    fs::create_directories(dir / "candidates");
    fs::copy_file(src / "reference.cu", dir / "candidates" / "01-reference.cu");
    return dst;
}

json::object optimize(const fs::path& cwd,
                      const std::string& results,
                      std::vector<std::string> extra,
                      cli_result& r)
{
    std::vector<std::string> args{"optimize",
                                  "--workload",
                                  "workload",
                                  "--provider",
                                  "scripted",
                                  "--candidates",
                                  "candidates",
                                  "--gpus",
                                  "0",
                                  "--max-iterations",
                                  "1",
                                  "--iterations",
                                  "20",
                                  "--warmup",
                                  "3",
                                  "--confirm-top",
                                  "1",
                                  "--results",
                                  results};
    for (auto& e : extra)
        args.push_back(std::move(e));
    r = run_warpsmith(args, cwd);
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    return read_json_file(cwd / results / "run-001" / "summary.json").as_object();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(baseline_cli_gpu_suite)

BOOST_AUTO_TEST_CASE(optimize_reports_cublas_and_the_measured_roofline)
{
    temp_dir cwd("warpsmith-baseline-cli");
    write_workload(cwd.path());
    cli_result r;
    const json::object s = optimize(cwd.path(), "results", {}, r);

    const auto& b = s.at("baselines").as_object();
    BOOST_TEST_REQUIRE(b.contains("cublas"),
                       "no cuBLAS baseline (is cuBLAS installed?): " + json::serialize(s));
    BOOST_TEST_REQUIRE(b.contains("cublas_tf32"), json::serialize(b));
    BOOST_TEST(b.at("cublas").at("case_median_us").at(k_perf_case).to_number<double>() > 0);
    BOOST_TEST(b.at("cublas").at("within_tolerance").as_bool(), json::serialize(b.at("cublas")));
    BOOST_TEST(b.at("cublas_tf32").at("case_median_us").at(k_perf_case).to_number<double>() > 0);
    BOOST_TEST(b.at("cublas").at("cases").at(k_perf_case).at("samples").as_int64() == 20);
    BOOST_TEST(s.at("baselines_unavailable").as_object().empty(),
               json::serialize(s.at("baselines_unavailable")));

    const auto& roof = s.at("roofline").as_object();
    BOOST_TEST(roof.at("ceilings").at("source").as_string() == "measured", json::serialize(roof));
    BOOST_TEST(roof.at("ceilings").at("fp32_tflops").to_number<double>() > 0);
    const double fraction = roof.at("cases").at(k_perf_case).at("fraction").to_number<double>();
    BOOST_TEST(fraction > 0);
    BOOST_TEST(fraction < 1.5);  // a kernel cannot beat the physical limit by much (measurement noise aside)

    const auto run = read_json_file(cwd.path() / "results/run-001/run.json");
    BOOST_TEST(run.at("devices").at(0).at("measured").at("copy_bandwidth_gbps").to_number<double>() > 0);
    const auto journal = slurp(cwd.path() / "results/run-001/journal.jsonl");
    BOOST_TEST(journal.find("\"vendor_baseline\"") != std::string::npos);

    // The final table: cuBLAS columns and the roofline percentage against measured ceilings.
    BOOST_TEST(r.out.find("vs cublas_tf32") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("roofline ceilings (measured)") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("% compute") != std::string::npos, r.out);

    // --no-measure: the roofline uses the datasheet figures.
    const json::object d = optimize(cwd.path(), "results-datasheet", {"--no-measure"}, r);
    BOOST_TEST(d.at("roofline").at("ceilings").at("source").as_string() == "datasheet");
}

BOOST_AUTO_TEST_SUITE_END()
