// The worker's `baseline` op on a real GPU (ctest label gpu; skipped without one): cuBLAS SGEMM on
// the small cheat-test GEMM (tests/cheats/workloads/sgemm-small, with a "baselines" declaration
// added here), validated against the reference and timed by the candidates' timer. FP32 must pass
// the workload's tolerance on every case (odd sizes included: this checks the row-major mapping);
// TF32 is timed and its larger error reported, never turned into a failure; unknown kinds and
// workloads without a declaration answer no_baseline; and candidates are still evaluated and timed
// as before on the same worker (the timer is shared).

#include "harness/core/json_file.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/worker/worker_test_support.hpp"
#include "tests/support/worker_pipe.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <memory>

namespace json = boost::json;
using namespace std::chrono_literals;
using warpsmith::test::worker_path;
using warpsmith::test::worker_pipe;

namespace
{

const std::filesystem::path& cache_dir()
{
    static warpsmith::test::temp_dir dir("warpsmith-baseline-gpu-cache");
    return dir.path();
}

const char* k_perf_case = "512x512x512";

// sgemm-small, self-contained, with cuBLAS declared.
json::object sgemm_small(bool with_baseline = true)
{
    const auto w =
        warpsmith::workload::load(warpsmith::test::source_dir() / "tests/cheats/workloads/sgemm-small");
    json::object o = w.to_json().as_object();
    if (with_baseline)
        o["baselines"] = json::parse(
            R"j([{"name": "cublas", "kind": "cublas_sgemm", "m": "M", "n": "N", "k": "K", "a": "A", "b": "B", "c": "C"}])j");
    return o;
}

struct gpu_worker
{
    std::unique_ptr<worker_pipe> pipe;

    gpu_worker()
    {
        pipe = std::make_unique<worker_pipe>(
            std::vector<std::string>{worker_path(), "--device", "0", "--cache-dir", cache_dir().string()});
        const json::object hello = pipe->request({{"op", "hello"}}, 120s);
        BOOST_TEST_REQUIRE(hello.at("ok").as_bool(), json::serialize(hello));
    }

    void load(const json::object& workload)
    {
        const json::object r =
            pipe->request({{"op", "load_workload"}, {"workload", workload}, {"hidden_seed", 77}}, 300s);
        BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
    }

    json::object baseline_raw(json::object fields)
    {
        fields["op"] = "baseline";
        return pipe->request(std::move(fields), 300s);
    }

    /// The "baseline" object of a successful response; fails the test with the worker's words.
    json::object baseline(const std::string& math, json::object timing)
    {
        json::object r =
            baseline_raw({{"kind", "cublas_sgemm"}, {"math", math}, {"timing", std::move(timing)}});
        BOOST_TEST_REQUIRE(
            r.at("ok").as_bool(),
            "baseline " + math + " refused (is cuBLAS installed on this GPU host?): " + json::serialize(r));
        return r.at("baseline").as_object();
    }
};

const json::object& case_named(const json::object& baseline, const std::string& name)
{
    for (const auto& c : baseline.at("cases").as_array())
        if (c.at("name").as_string() == name)
            return c.as_object();
    BOOST_FAIL("the baseline has no case " + name + ": " + json::serialize(baseline));
    throw std::logic_error("unreachable");
}

double number(const json::value& v)
{
    return v.to_number<double>();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(baseline_gpu)

BOOST_AUTO_TEST_CASE(cublas_fp32_is_valid_and_timed_tf32_is_timed_with_its_error)
{
    gpu_worker w;
    w.load(sgemm_small());

    const json::object fp32 = w.baseline("fp32", {{"warmup", 3}, {"iterations", 25}, {"mode", "cold"}});
    BOOST_TEST(fp32.at("name").as_string() == "cublas");
    BOOST_TEST(fp32.at("kind").as_string() == "cublas_sgemm");
    BOOST_TEST(fp32.at("math").as_string() == "fp32");
    BOOST_TEST(!fp32.at("library").at("version").as_string().empty());
    BOOST_TEST(fp32.at("cases").as_array().size() == 6u);
    for (const auto& c : fp32.at("cases").as_array())
    {
        const auto& v = c.at("validation").as_object();
        BOOST_TEST_CONTEXT("fp32 case " << c.at("name").as_string())
        {
            // Every element compared, none poison: the row-major mapping (C^T = B^T A^T) is right.
            BOOST_TEST(v.at("passed").as_bool(), json::serialize(v));
            BOOST_TEST(v.at("unwritten").as_int64() == 0);
            BOOST_TEST(v.at("message").is_null());
            BOOST_TEST(number(v.at("max_abs_error")) < 1e-3);
            const auto& g = c.at("gemm").as_object();
            BOOST_TEST(v.at("elements").as_int64() == g.at("m").as_int64() * g.at("n").as_int64());
        }
    }
    BOOST_TEST(fp32.at("within_tolerance").as_bool());
    const auto& perf = case_named(fp32, k_perf_case);
    const auto& t = perf.at("timing").as_object();
    BOOST_TEST(t.at("samples").as_int64() == 25);
    BOOST_TEST(t.at("warmup").as_int64() == 3);
    BOOST_TEST(t.at("mode").as_string() == "cold");
    BOOST_TEST(number(t.at("median_us")) > 0);
    BOOST_TEST(number(t.at("min_us")) <= number(t.at("median_us")));
    BOOST_TEST(number(t.at("median_us")) <= number(t.at("max_us")));
    BOOST_TEST(t.at("timed_output_valid").as_bool());
    BOOST_TEST(!t.at("suspect").as_bool(), json::serialize(t));
    BOOST_TEST(number(t.at("wall_us_per_launch")) > 0);
    BOOST_TEST(perf.at("timing_failure").is_null(), json::serialize(perf));
    BOOST_TEST(case_named(fp32, "37x61x19").at("timing").is_null());  // correctness cases are not timed
    BOOST_TEST(number(fp32.at("case_median_us").at(k_perf_case)) == number(t.at("median_us")));
    BOOST_TEST(fp32.at("case_median_us").as_object().size() == 1u);
    BOOST_TEST(number(fp32.at("score_us")) == number(t.at("median_us")));
    BOOST_TEST(!fp32.at("environment").at("gpu").as_string().empty());

    // TF32: the inputs are rounded to a 10-bit mantissa, so the error is orders of magnitude above
    // FP32's; it is reported and the baseline is still timed (hot mode here, to cover that path).
    const json::object tf32 = w.baseline("tf32", {{"warmup", 2}, {"iterations", 15}, {"mode", "hot"}});
    BOOST_TEST(tf32.at("math").as_string() == "tf32");
    BOOST_TEST(
        number(tf32.at("max_abs_error")) > number(fp32.at("max_abs_error")),
        "tf32 " << number(tf32.at("max_abs_error")) << " vs fp32 " << number(fp32.at("max_abs_error")));
    BOOST_TEST(tf32.at("within_tolerance").is_bool());
    const auto& tperf = case_named(tf32, k_perf_case).at("timing").as_object();
    BOOST_TEST(tperf.at("samples").as_int64() == 15);
    BOOST_TEST(tperf.at("mode").as_string() == "hot");
    BOOST_TEST(number(tf32.at("case_median_us").at(k_perf_case)) > 0);
    // A case that misses the tolerance says so in one paragraph naming the case and output C.
    for (const auto& c : tf32.at("cases").as_array())
        if (!c.at("validation").at("passed").as_bool())
        {
            const std::string message(c.at("validation").at("message").as_string());
            BOOST_TEST(message.find("case " + std::string(c.at("name").as_string())) != std::string::npos,
                       message);
            BOOST_TEST(message.find("output C") != std::string::npos, message);
            BOOST_TEST(!tf32.at("within_tolerance").as_bool());
        }
}

BOOST_AUTO_TEST_CASE(subsets_refusals_and_candidates_afterwards)
{
    gpu_worker w;
    // Before any workload: no_workload.
    json::object r = w.baseline_raw({{"kind", "cublas_sgemm"}});
    BOOST_TEST(!r.at("ok").as_bool());
    BOOST_TEST(r.at("error").at("kind").as_string() == "no_workload", json::serialize(r));

    const json::object workload = sgemm_small();
    w.load(workload);
    // A subset of cases: one correctness case, validated, not timed.
    r = w.baseline_raw({{"kind", "cublas_sgemm"}, {"cases", json::array{"37x61x19"}}});
    BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
    const auto& b = r.at("baseline").as_object();
    BOOST_TEST(b.at("cases").as_array().size() == 1u);
    BOOST_TEST(b.at("cases").at(0).at("validation").at("passed").as_bool());
    BOOST_TEST(b.at("case_median_us").as_object().empty());
    BOOST_TEST(b.at("score_us").is_null());

    r = w.baseline_raw({{"kind", "cublas_sgemm"}, {"cases", json::array{"nope"}}});
    BOOST_TEST(r.at("error").at("kind").as_string() == "bad_request", json::serialize(r));
    r = w.baseline_raw({{"kind", "cudnn_conv"}});
    BOOST_TEST(!r.at("ok").as_bool());
    BOOST_TEST(r.at("error").at("kind").as_string() == "no_baseline", json::serialize(r));
    BOOST_TEST(std::string(r.at("error").at("message").as_string()).find("cudnn_conv") != std::string::npos);
    r = w.baseline_raw({{"kind", "cublas_sgemm"}, {"name", "nvblas"}});
    BOOST_TEST(r.at("error").at("kind").as_string() == "no_baseline", json::serialize(r));

    // The reference as a candidate: still validated and timed by the shared timer.
    json::object cand{{"source", workload.at("reference_source")},
                      {"entry", workload.at("reference_entry")},
                      {"launch", workload.at("reference_launch")}};
    r = w.pipe->request({{"op", "evaluate"},
                         {"name", "ref"},
                         {"candidate", cand},
                         {"timing", {{"warmup", 2}, {"iterations", 10}}}},
                        300s);
    BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
    BOOST_TEST(r.at("result").at("status").as_string() == "valid", json::serialize(r.at("result")));
    BOOST_TEST(number(r.at("result").at("score_us")) > 0);

    // A workload without a declaration: no_baseline, and the worker stays up.
    w.load(sgemm_small(false));
    r = w.baseline_raw({{"kind", "cublas_sgemm"}, {"math", "tf32"}});
    BOOST_TEST(r.at("error").at("kind").as_string() == "no_baseline", json::serialize(r));
    BOOST_TEST(w.pipe->request({{"op", "hello"}}, 60s).at("ok").as_bool());
}

BOOST_AUTO_TEST_SUITE_END()
