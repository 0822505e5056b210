// What optimize adds to its summary and final table for vendor baselines and the roofline
// (engine/report/baseline_report.hpp), from summaries written by hand: the per-case block with the
// cuBLAS columns and the roofline percentage, the best's medians (confirmation first), and the
// roofline read from the workload's own "roofline" before a roofline.json next to it.

#include "engine/report/baseline_report.hpp"
#include "engine/report/number_text.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;

namespace
{

json::object gemm_json()
{
    return json::parse(R"j({
      "name": "gemm",
      "signature": {"entry": "sgemm", "params": [
        {"name": "M", "kind": "scalar", "type": "int32"},
        {"name": "N", "kind": "scalar", "type": "int32"},
        {"name": "K", "kind": "scalar", "type": "int32"},
        {"name": "A", "kind": "buffer", "type": "float32", "dir": "in", "count": "M*K"},
        {"name": "B", "kind": "buffer", "type": "float32", "dir": "in", "count": "K*N"},
        {"name": "C", "kind": "buffer", "type": "float32", "dir": "out", "count": "M*N"}]},
      "cases": [{"name": "odd", "values": {"M": 3, "N": 5, "K": 7}},
                {"name": "big", "role": "performance", "values": {"M": 1000, "N": 1000, "K": 1000}}],
      "reference_source": "extern \"C\" __global__ void sgemm() {}",
      "launch": {"grid": [1], "block": [1]}
    })j")
        .as_object();
}

// A device whose measured ceilings make the arithmetic easy: 1000 GB/s and 10 TFLOP/s.
json::object device()
{
    return json::object{{"name", "Test GPU"},
                        {"arch", "sm_90"},
                        {"measured", json::object{{"copy_bandwidth_gbps", 1000.0}, {"fp32_tflops", 10.0}}}};
}

json::object summary_with(double best_us)
{
    return json::object{
        {"best",
         json::object{{"id", "c0001"},
                      {"case_median_us", json::object{{"big", best_us * 2}}},
                      {"confirmation", json::object{{"case_median_us", json::object{{"big", best_us}}}}}}},
        {"baselines",
         json::object{
             {"cublas",
              json::object{{"case_median_us", json::object{{"big", 200.0}}}, {"within_tolerance", true}}},
             {"cublas_tf32",
              json::object{{"case_median_us", json::object{{"big", 100.0}}},
                           {"within_tolerance", false},
                           {"max_abs_error", 0.004}}}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(baseline_report_suite)

BOOST_AUTO_TEST_CASE(best_medians_prefer_the_confirmation)
{
    const auto m = best_case_medians(summary_with(400));
    BOOST_TEST(m.at("big") == 400.0);
    json::object s = summary_with(400);
    s["best"].as_object().erase("confirmation");
    BOOST_TEST(best_case_medians(s).at("big") == 800.0);
    BOOST_TEST(best_case_medians(json::object{}).empty());
}

BOOST_AUTO_TEST_CASE(workload_roofline_comes_first_and_uses_measured_ceilings)
{
    warpsmith::test::temp_dir dir("warpsmith-baseline-report");
    // A sidecar that would give other numbers: the workload's own "roofline" wins.
    write_json_file(dir.path() / "roofline.json", json::parse(R"j({"flops": "M"})j"));
    json::object o = gemm_json();
    o["roofline"] = json::parse(R"j({"flops": "2*M*N*K", "bytes": "4*(M*K + K*N + M*N)"})j");
    const workload w = workload::from_json(o, dir.path(), "gemm");
    json::object s = summary_with(400);
    const json::value roof = best_roofline(w, device(), s);
    BOOST_TEST_REQUIRE(roof.is_object(), json::serialize(roof));
    BOOST_TEST(roof.at("ceilings").at("source").as_string() == "measured");
    // 2e9 flops at 10 TFLOP/s: a 200 us floor; 400 us reaches half of it.
    const auto& big = roof.at("cases").at("big").as_object();
    BOOST_TEST(big.at("floor_us").to_number<double>() == 200.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(big.at("bound").as_string() == "compute");
    BOOST_TEST(big.at("fraction").to_number<double>() == 0.5, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(!roof.at("cases").as_object().contains("odd"));

    // Without the key, the sidecar is read, and keep_roofline_sidecar copies it into the run.
    const workload plain = workload::from_json(gemm_json(), dir.path(), "gemm");
    const json::value side = best_roofline(plain, device(), s);
    BOOST_TEST(side.at("spec").at("flops").as_string() == "M");
    auto run = run_directory::create(dir.path() / "results");
    run.write_workload(plain, std::nullopt);
    keep_roofline_sidecar(plain, run);
    BOOST_TEST(read_json_file(run.workload_dir() / "roofline.json").at("flops").as_string() == "M");

    // No roofline at all: null, and nothing written.
    warpsmith::test::temp_dir empty("warpsmith-baseline-report-none");
    const workload none = workload::from_json(gemm_json(), empty.path(), "gemm");
    BOOST_TEST(best_roofline(none, device(), s).is_null());
}

BOOST_AUTO_TEST_CASE(case_table_has_vendor_columns_and_the_roofline)
{
    json::object o = gemm_json();
    o["roofline"] = json::parse(R"j({"flops": "2*M*N*K"})j");
    const workload w = workload::from_json(o, fs::current_path(), "gemm");
    json::object s = summary_with(400);
    s["roofline"] = best_roofline(w, device(), s);
    const std::string table = baseline_case_table(s, w);
    BOOST_TEST(table.find("cublas") != std::string::npos, table);
    BOOST_TEST(table.find("vs cublas_tf32") != std::string::npos, table);
    // The best (400 us) against cuBLAS FP32 (200 us) and TF32 (100 us), and 50% of the limit.
    BOOST_TEST(table.find("400.00") != std::string::npos, table);
    BOOST_TEST(table.find("0.50x") != std::string::npos, table);
    BOOST_TEST(table.find("0.25x") != std::string::npos, table);
    BOOST_TEST(table.find("50% compute") != std::string::npos, table);
    BOOST_TEST(table.find("roofline ceilings (measured): 1000 GB/s, 10.0 FP32 TFLOP/s") != std::string::npos,
               table);
    BOOST_TEST(table.find("cublas_tf32: outside the workload's tolerance (max abs error 0.004)") !=
                   std::string::npos,
               table);
    BOOST_TEST(table.find("\n  odd") == std::string::npos, table);  // correctness cases are not listed

    BOOST_TEST(table.find("cold copy") == std::string::npos, table);  // no curve measured

    // Nothing to say: no best, or neither baselines nor roofline.
    BOOST_TEST(baseline_case_table(json::object{}, w).empty());
    json::object bare = summary_with(400);
    bare.erase("baselines");
    BOOST_TEST(baseline_case_table(bare, w).empty());
}

BOOST_AUTO_TEST_CASE(memory_bound_cases_meet_a_cold_copy_of_their_bytes)
{
    // 1000x1000 floats read and written: 8 MB. The device measured cold copies of 4 and 16 MB at
    // 500 and 800 GB/s; 8 MB is halfway in log2, 650 GB/s: a cold copy takes 8e6 / 650e3 us.
    json::object o = gemm_json();
    o["roofline"] = json::parse(R"j({"bytes": "8*M*N"})j");
    const workload w = workload::from_json(o, fs::current_path(), "gemm");
    json::object dev = device();
    dev["measured"].as_object()["cold_copy"] = json::array{json::object{{"bytes", 4e6}, {"gbps", 500.0}},
                                                           json::object{{"bytes", 16e6}, {"gbps", 800.0}}};
    const double copy_us = 8e6 / 650e3;
    json::object s = summary_with(copy_us * 1.25);
    s["roofline"] = best_roofline(w, dev, s);
    const auto& big = s["roofline"].at("cases").at("big").as_object();
    BOOST_TEST(big.at("cold_copy_us").to_number<double>() == copy_us, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(big.at("vs_cold_copy").to_number<double>() == 0.8, boost::test_tools::tolerance(1e-9));
    const std::string table = baseline_case_table(s, w);
    BOOST_TEST(table.find("cold copy") != std::string::npos, table);
    BOOST_TEST(table.find("vs copy") != std::string::npos, table);
    BOOST_TEST(table.find(report::fmt("%.2f", copy_us)) != std::string::npos, table);
    BOOST_TEST(table.find("0.80x") != std::string::npos, table);
    BOOST_TEST(table.find("cold copy: the same bytes copied under the same cold timing") != std::string::npos,
               table);

    // A hot run: no cold copy to compare with.
    json::object hot = summary_with(copy_us * 1.25);
    hot["roofline"] = best_roofline(w, dev, hot, false);
    BOOST_TEST(!hot["roofline"].at("cases").at("big").as_object().contains("cold_copy_us"));
    BOOST_TEST(baseline_case_table(hot, w).find("cold copy") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
