// The worker's `baseline` op without a GPU (docs/worker-protocol.md, "baseline"): request parsing
// and its one-line errors, which declaration a request selects, the no_baseline kind, how the op is
// answered in compile mode and without a device, and cuBLAS loading at run time. The op itself runs
// in tests/harness/gpu/test_baseline_gpu.cpp.

#include "harness/cuda/cublas.hpp"
#include "harness/worker/baseline.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/request_loop.hpp"
#include "harness/workload/workload.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>

namespace json = boost::json;
using namespace warpsmith;
using namespace warpsmith::worker;

namespace
{

// The request_error a call throws: {kind, message}.
std::pair<std::string, std::string> request_error_of(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const request_error& e)
    {
        return {std::string(to_string(e.kind())), e.what()};
    }
    return {"<none>", ""};
}

json::object request(const std::string& text)
{
    return json::parse(text).as_object();
}

workload gemm_workload(bool with_baselines)
{
    auto o = json::parse(R"j({
      "name": "gemm",
      "signature": {"entry": "sgemm", "params": [
        {"name": "M", "kind": "scalar", "type": "int32"},
        {"name": "N", "kind": "scalar", "type": "int32"},
        {"name": "K", "kind": "scalar", "type": "int32"},
        {"name": "A", "kind": "buffer", "type": "float32", "dir": "in", "count": "M*K"},
        {"name": "B", "kind": "buffer", "type": "float32", "dir": "in", "count": "K*N"},
        {"name": "C", "kind": "buffer", "type": "float32", "dir": "out", "count": "M*N"}]},
      "cases": [{"name": "small", "values": {"M": 3, "N": 5, "K": 7}},
                {"name": "perf", "role": "performance", "values": {"M": 64, "N": 64, "K": 64}}],
      "reference_source": "extern \"C\" __global__ void sgemm() {}",
      "launch": {"grid": [1], "block": [1]}
    })j")
                 .as_object();
    if (with_baselines)
        o["baselines"] = json::parse(R"j([
          {"name": "cublas", "kind": "cublas_sgemm", "m": "M", "n": "N", "k": "K", "a": "A", "b": "B", "c": "C"},
          {"name": "cublas_t", "kind": "cublas_sgemm", "m": "M", "n": "N", "k": "K", "a": "A", "b": "B", "c": "C"}])j");
    return workload::from_json(o, std::filesystem::current_path(), "gemm");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(baseline_protocol)

BOOST_AUTO_TEST_CASE(requests_parse_with_defaults_and_all_fields)
{
    auto r = parse_baseline_request(request(R"({"id": 1, "op": "baseline", "kind": "cublas_sgemm"})"));
    BOOST_TEST(r.kind == "cublas_sgemm");
    BOOST_TEST((r.math == cuda::gemm_math::fp32));
    BOOST_TEST(!r.name.has_value());
    BOOST_TEST(r.cases.empty());
    BOOST_TEST(r.timing.warmup == 10);
    BOOST_TEST(r.timing.iterations == 100);
    BOOST_TEST((r.timing.mode == timing_mode::cold));

    r = parse_baseline_request(request(R"({"id": 1, "op": "baseline", "kind": "cublas_sgemm", "math": "tf32",
        "name": "cublas", "cases": ["perf"], "timing": {"warmup": 2, "iterations": 7, "mode": "hot"}})"));
    BOOST_TEST((r.math == cuda::gemm_math::tf32));
    BOOST_TEST(*r.name == "cublas");
    BOOST_TEST(r.cases == std::vector<std::string>{"perf"});
    BOOST_TEST(r.timing.warmup == 2);
    BOOST_TEST(r.timing.iterations == 7);
    BOOST_TEST((r.timing.mode == timing_mode::hot));
}

BOOST_AUTO_TEST_CASE(malformed_requests_are_bad_requests_and_unknown_kinds_no_baseline)
{
    auto e = request_error_of([] { parse_baseline_request(request(R"({"id": 1, "op": "baseline"})")); });
    BOOST_TEST(e.first == "bad_request");
    BOOST_TEST(e.second == "baseline: 'kind' is missing");
    e = request_error_of(
        [] {
            parse_baseline_request(
                request(R"({"id": 1, "op": "baseline", "kind": "cublas_sgemm", "cases": [1]})"));
        });
    BOOST_TEST(e.first == "bad_request");
    BOOST_TEST(e.second == "baseline: 'cases' must be an array of strings");
    e = request_error_of(
        []
        {
            parse_baseline_request(
                request(R"({"id": 1, "op": "baseline", "kind": "cublas_sgemm", "math": "fp16"})"));
        });
    BOOST_TEST(e.first == "bad_request");
    BOOST_TEST(e.second == "baseline: 'math' must be \"fp32\" or \"tf32\", not \"fp16\"");
    e = request_error_of(
        []
        {
            parse_baseline_request(request(
                R"({"id": 1, "op": "baseline", "kind": "cublas_sgemm", "timing": {"iterations": 0}})"));
        });
    BOOST_TEST(e.first == "bad_request");
    BOOST_TEST(e.second.find("'timing.iterations'") != std::string::npos, e.second);
    e = request_error_of(
        [] {
            parse_baseline_request(
                request(R"({"id": 1, "op": "baseline", "kind": "cublas_sgemm", "cases": [1]})"));
        });
    BOOST_TEST(e.first == "bad_request");
    e = request_error_of(
        [] { parse_baseline_request(request(R"({"id": 1, "op": "baseline", "kind": "cudnn_conv"})")); });
    BOOST_TEST(e.first == "no_baseline");
    BOOST_TEST(e.second == "baseline: unknown kind 'cudnn_conv' (this worker knows cublas_sgemm)");
}

BOOST_AUTO_TEST_CASE(requests_select_the_declared_baseline)
{
    const workload w = gemm_workload(true);
    auto r = parse_baseline_request(request(R"({"id": 1, "op": "baseline", "kind": "cublas_sgemm"})"));
    BOOST_TEST(select_baseline(w, r).name == "cublas");  // the first of the kind
    r.name = "cublas_t";
    BOOST_TEST(select_baseline(w, r).name == "cublas_t");
    r.name = "nvblas";
    auto e = request_error_of([&] { select_baseline(w, r); });
    BOOST_TEST(e.first == "no_baseline");
    BOOST_TEST(e.second == "baseline: workload 'gemm' declares no cublas_sgemm baseline named 'nvblas'");

    const workload plain = gemm_workload(false);
    r.name.reset();
    e = request_error_of([&] { select_baseline(plain, r); });
    BOOST_TEST(e.first == "no_baseline");
    BOOST_TEST(e.second == "baseline: workload 'gemm' declares no cublas_sgemm baseline (\"baselines\")");
}

BOOST_AUTO_TEST_CASE(the_op_needs_gpu_mode_and_a_device)
{
    worker_options compile;
    compile.mode = worker_mode::compile;
    compile.no_cache = true;
    request_loop c(compile);
    auto r = c.handle_line(R"({"id": 4, "op": "baseline", "kind": "cublas_sgemm"})");
    BOOST_TEST(!r.response.at("ok").as_bool());
    BOOST_TEST(r.response.at("error").at("kind").as_string() == "bad_request");
    BOOST_TEST(std::string(r.response.at("error").at("message").as_string()).find("--device") !=
               std::string::npos);

    // Device 999 exists nowhere: no_device with and without a GPU, and the worker stays up.
    worker_options gpu;
    gpu.mode = worker_mode::gpu;
    gpu.device = 999;
    gpu.no_cache = true;
    request_loop g(gpu);
    r = g.handle_line(R"({"id": 5, "op": "baseline", "kind": "cublas_sgemm", "math": "tf32"})");
    BOOST_TEST(!r.response.at("ok").as_bool());
    BOOST_TEST(r.response.at("error").at("kind").as_string() == "no_device");
    BOOST_TEST(!r.exit);
}

BOOST_AUTO_TEST_CASE(error_kind_names)
{
    BOOST_TEST(to_string(error_kind::no_baseline) == "no_baseline");
    const auto resp = error_response(3, error_kind::no_baseline, "baseline: cuBLAS not found");
    BOOST_TEST(resp.at("error").at("kind").as_string() == "no_baseline");
}

BOOST_AUTO_TEST_CASE(cublas_loads_at_run_time_or_says_why_not)
{
    // No GPU is needed to load the library; a machine without cuBLAS gets one line naming what
    // was tried.
    std::string why;
    if (cuda::cublas_available(&why))
    {
        const auto& api = cuda::cublas();
        BOOST_TEST(api.library.find("libcublas.so.1") != std::string::npos, api.library);
        BOOST_TEST((api.version.rfind("13.", 0) == 0 || api.version.rfind("12.", 0) == 0), api.version);
        BOOST_TEST(api.gemm_ex != nullptr);
    }
    else
    {
        BOOST_TEST(why.find("libcublas") != std::string::npos, why);
        BOOST_TEST(why.find('\n') == std::string::npos);
    }
    BOOST_TEST(cuda::cublas_status_name(CUBLAS_STATUS_NOT_SUPPORTED) == "CUBLAS_STATUS_NOT_SUPPORTED");
    BOOST_TEST(cuda::to_string(cuda::gemm_math::tf32) == "tf32");
    const cuda::cublas_error err(CUBLAS_STATUS_EXECUTION_FAILED, "cublasGemmEx");
    BOOST_TEST(std::string(err.what()) == "cublasGemmEx: CUBLAS_STATUS_EXECUTION_FAILED");
    // One of the project's infrastructure errors: the family's catch sees it, code and category kept.
    const boost::system::system_error& family = err;
    BOOST_TEST(family.code().value() == static_cast<int>(CUBLAS_STATUS_EXECUTION_FAILED));
    BOOST_TEST(std::string(family.code().category().name()) == "cublas");
    BOOST_TEST(family.code().message() == "CUBLAS_STATUS_EXECUTION_FAILED");
}

BOOST_AUTO_TEST_SUITE_END()
