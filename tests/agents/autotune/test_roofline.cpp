// The roofline helper: roofline.json parsing, ceilings from measured and datasheet figures, floors
// and fractions; and the roofline.json files shipped with the benchmark workloads.

#include "agents/autotune/roofline.hpp"
#include "harness/core/error.hpp"
#include "tests/agents/autotune/autotune_test_support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>

using namespace warpsmith;
using namespace warpsmith::autotune;
namespace tt = boost::test_tools;

namespace
{

/// The floor of a 4096^3 GEMM (compute-bound for large square shapes), as one case of w.
roofline_case gemm_4096_floor(const workload& w, const roofline_ceilings& c)
{
    const auto gemm = roofline_spec::from_json(
        boost::json::parse(R"j({"bytes": "4*(M*K+K*N+M*N)", "flops": "2*M*N*K"})j"), "gemm");
    workload g = w;
    g.cases.resize(1);
    g.cases[0].values = {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"n", 1}};
    return roofline_floors(gemm, g, c).at(g.cases[0].name);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(roofline_suite)

BOOST_AUTO_TEST_CASE(spec_parsing)
{
    const auto s = roofline_spec::from_json(
        boost::json::parse(R"j({"bytes": "4*(M*K+K*N+M*N)", "flops": "2*M*N*K"})j"), "r.json");
    BOOST_TEST(s.bytes.evaluate({{"M", 2}, {"N", 3}, {"K", 4}}) == 4 * (8 + 12 + 6));
    BOOST_TEST(s.flops.evaluate({{"M", 2}, {"N", 3}, {"K", 4}}) == 48);
    const auto only_bytes = roofline_spec::from_json(boost::json::parse(R"j({"bytes": 1024})j"), "r.json");
    BOOST_TEST(only_bytes.flops.evaluate({}) == 0);
    BOOST_CHECK_THROW(roofline_spec::from_json(boost::json::parse(R"j({})j"), "r.json"), user_error);
    BOOST_CHECK_THROW(roofline_spec::from_json(boost::json::parse(R"j({"bytes": "M*"})j"), "r.json"),
                      user_error);
    BOOST_CHECK_THROW(roofline_spec::from_json(boost::json::parse(R"j({"byte": "M"})j"), "r.json"),
                      user_error);
    BOOST_CHECK_THROW(roofline_spec::from_json(boost::json::parse(R"j({"bytes": 1.5})j"), "r.json"),
                      user_error);
    // The file's problems name the field (the strict reader, document style).
    auto message = [](const char* text)
    {
        try
        {
            (void)roofline_spec::from_json(boost::json::parse(text), "r.json");
        }
        catch (const user_error& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    BOOST_TEST(message(R"j({"bytes": "M", "flops": 1.5})j") ==
               "r.json: flops: must be an integer or an expression string, got 1.5");
    BOOST_TEST(message(R"j({"bytes": "M", "note": 3})j") == "r.json: note: must be a string, got 3");
    BOOST_TEST(message(R"j({"byte": "M"})j").find("r.json: unknown key 'byte' (did you mean 'bytes'?)") ==
               0u);
}

BOOST_AUTO_TEST_CASE(ceilings_prefer_measurements)
{
    auto dev = test::h200_device();
    auto c = roofline_ceilings::from_device(dev);
    BOOST_TEST(c.source == "datasheet");
    // 2 x 3201 MHz x 6144 bits / 8 = 4917 GB/s; 132 SMs x 128 lanes x 2 x 1980 MHz = 66.9 TFLOP/s.
    BOOST_TEST(c.bandwidth_gbps == 4917.0, tt::tolerance(1e-3));
    BOOST_TEST(c.fp32_tflops == 66.908, tt::tolerance(1e-3));
    dev["measured"] = boost::json::object{{"copy_bandwidth_gbps", 4100.0}, {"fp32_tflops", 60.0}};
    c = roofline_ceilings::from_device(dev);
    BOOST_TEST(c.source == "measured");
    BOOST_TEST(c.bandwidth_gbps == 4100.0);
    dev["measured"] = boost::json::object{{"copy_bandwidth_gbps", 4100.0}};
    BOOST_TEST(roofline_ceilings::from_device(dev).source == "measured+datasheet");
    BOOST_TEST(!roofline_ceilings::from_device({}).usable());
    // Volta-to-Ampere datacenter parts have 64 FP32 lanes per SM.
    auto a100 = test::h200_device();
    a100["arch"] = "sm_80";
    a100["sm_count"] = 108;
    a100["clock_mhz"] = 1410;
    BOOST_TEST(roofline_ceilings::from_device(a100).fp32_tflops == 19.49, tt::tolerance(1e-3));
}

BOOST_AUTO_TEST_CASE(floors_and_fractions)
{
    const auto w = test::vscale_workload();
    const auto spec = roofline_spec::load_for(w);
    BOOST_TEST_REQUIRE(spec.has_value());
    roofline_ceilings c;
    c.bandwidth_gbps = 4000;
    c.fp32_tflops = 50;
    const auto floors = roofline_floors(*spec, w, c);
    const auto& big = floors.at("big");
    BOOST_TEST(big.bytes == 8.0 * 4194304);
    // 33554432 bytes at 4000 GB/s: 8.388608 µs; memory-bound.
    BOOST_TEST(big.floor_us == 8.388608, tt::tolerance(1e-9));
    BOOST_TEST(big.bound == "memory");
    BOOST_TEST(big.fraction(16.777216) == 0.5, tt::tolerance(1e-9));
    const auto j = big.to_json(16.777216);
    BOOST_TEST(j.at("achieved_gbps").as_double() == 2000.0, tt::tolerance(1e-9));

    // A compute-bound case: 2*M*N*K dominates for large square GEMMs.
    const auto gf = gemm_4096_floor(w, c);
    BOOST_TEST(gf.bound == "compute");
    BOOST_TEST(gf.floor_us == 2.0 * 4096 * 4096 * 4096 / (50 * 1e6), tt::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(cold_copy_curve)
{
    // The worker's measured curve: 2 MiB to 64 MiB moved, slower for short copies (out of order and
    // with unusable points, which are dropped).
    auto dev = test::h200_device();
    const double mib = 1 << 20;
    dev["measured"] =
        boost::json::object{{"copy_bandwidth_gbps", 4000.0},
                            {"fp32_tflops", 60.0},
                            {"cold_copy",
                             boost::json::array{boost::json::object{{"bytes", 32 * mib}, {"gbps", 3000.0}},
                                                boost::json::object{{"bytes", 8 * mib}, {"gbps", 2000.0}},
                                                boost::json::object{{"bytes", 16 * mib}, {"gbps", 2500.0}},
                                                boost::json::object{{"bytes", 64 * mib}, {"gbps", 3200.0}},
                                                boost::json::object{{"bytes", 2 * mib}, {"gbps", 0.0}},
                                                boost::json::object{{"bytes", "x"}, {"gbps", 5.0}},
                                                7}}};
    const auto c = roofline_ceilings::from_device(dev);
    BOOST_TEST_REQUIRE(c.cold_copy.size() == 4u);
    BOOST_TEST(c.cold_copy.front().bytes == 8 * mib);
    BOOST_TEST(c.cold_copy.back().bytes == 64 * mib);
    // At a point: bytes / rate. 16 MiB at 2500 GB/s.
    BOOST_TEST(*c.cold_copy_us(16 * mib) == 16 * mib / 2.5e6, tt::tolerance(1e-12));
    // Halfway in log2 between 16 and 32 MiB: 2750 GB/s.
    const double between = std::exp2(24.5);
    BOOST_TEST(*c.cold_copy_us(between) == between / 2.75e6, tt::tolerance(1e-12));
    // Outside the curve: the end points' rates.
    BOOST_TEST(*c.cold_copy_us(mib) == mib / 2.0e6, tt::tolerance(1e-12));
    BOOST_TEST(*c.cold_copy_us(1024 * mib) == 1024 * mib / 3.2e6, tt::tolerance(1e-12));
    BOOST_TEST(!c.cold_copy_us(0).has_value());
    BOOST_TEST(!roofline_ceilings{}.cold_copy_us(mib).has_value());
    const auto j = c.to_json();
    BOOST_TEST(j.at("cold_copy").as_array().size() == 4u);
    BOOST_TEST(!roofline_ceilings::from_device(test::h200_device()).to_json().contains("cold_copy"));

    // Memory-bound cases get the cold copy of their bytes; compute-bound ones do not.
    const auto w = test::vscale_workload();
    const auto spec = roofline_spec::load_for(w);
    BOOST_TEST_REQUIRE(spec.has_value());
    const auto big = roofline_floors(*spec, w, c).at("big");  // 32 MiB moved
    BOOST_TEST_REQUIRE(big.cold_copy_us.has_value());
    BOOST_TEST(*big.cold_copy_us == 32 * mib / 3.0e6, tt::tolerance(1e-12));
    BOOST_TEST(*big.vs_cold_copy(*big.cold_copy_us / 0.8) == 0.8, tt::tolerance(1e-12));
    const auto bj = big.to_json(*big.cold_copy_us * 2);
    BOOST_TEST(bj.at("cold_copy_us").as_double() == *big.cold_copy_us, tt::tolerance(1e-12));
    BOOST_TEST(bj.at("vs_cold_copy").as_double() == 0.5, tt::tolerance(1e-12));
    const auto gf = gemm_4096_floor(w, c);
    BOOST_TEST(gf.bound == "compute");
    BOOST_TEST(!gf.cold_copy_us.has_value());
    BOOST_TEST(!gf.to_json(100.0).contains("vs_cold_copy"));

    // The summary keeps the curve only for cold timings.
    const std::map<std::string, double> times{{"big", 20.0}};
    const auto cold = roofline_summary(*spec, w, dev, times);
    BOOST_TEST(cold.at("cases").at("big").as_object().contains("vs_cold_copy"));
    BOOST_TEST(cold.at("ceilings").as_object().contains("cold_copy"));
    const auto hot = roofline_summary(*spec, w, dev, times, false);
    BOOST_TEST(!hot.at("cases").at("big").as_object().contains("cold_copy_us"));
    BOOST_TEST(!hot.at("ceilings").as_object().contains("cold_copy"));
}

BOOST_AUTO_TEST_CASE(benchmark_workloads_have_valid_roofline_files)
{
    // The sidecars evaluate for every case of their workload, once the workload is there.
    for (const char* name : {"sgemm", "softmax", "transpose", "elementwise"})
    {
        const auto dir = test::source_dir() / "bench/workloads" / name;
        BOOST_TEST_REQUIRE(std::filesystem::exists(dir / "roofline.json"), name);
        const auto spec = roofline_spec::load(dir / "roofline.json");
        if (!std::filesystem::exists(dir / "workload.json"))
        {
            BOOST_TEST_MESSAGE(name << ": no workload.json yet; only the roofline file was parsed");
            continue;
        }
        const auto w = workload::load(dir);
        const auto floors = roofline_floors(spec, w, roofline_ceilings::from_device(test::h200_device()));
        for (const auto& c : w.cases)
        {
            BOOST_TEST(floors.at(c.name).bytes > 0, name << "/" << c.name);
            BOOST_TEST(floors.at(c.name).floor_us > 0, name << "/" << c.name);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
