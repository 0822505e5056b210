// In-process tests of the worker's protocol core and of everything in the worker that needs no
// GPU: request framing and error kinds (request_loop::handle_line), field parsing, poison
// patterns, element rendering, launch checks, kernel argument blocks, and that the helper kernels
// compile with NVRTC for sm_90.

#include "harness/compile/compile_sandbox.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/json_file.hpp"
#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/worker/comparator_kernels.hpp"
#include "harness/worker/device_buffers.hpp"
#include "harness/worker/evaluator.hpp"
#include "harness/worker/kernel_launch.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/request_loop.hpp"
#include "harness/worker/timer.hpp"
#include "harness/worker/validator.hpp"
#include "harness/workload/dtype.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/worker/worker_test_support.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <regex>

namespace json = boost::json;
using namespace warpsmith;
using namespace warpsmith::worker;

namespace
{

worker_options compile_mode()
{
    worker_options o;
    o.mode = worker_mode::compile;
    o.no_cache = true;
    return o;
}

json::object error_of(const json::object& response)
{
    BOOST_TEST_REQUIRE(response.contains("error"));
    return response.at("error").as_object();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_protocol)

BOOST_AUTO_TEST_CASE(hello_in_compile_mode)
{
    request_loop loop(compile_mode());
    auto o = loop.handle_line(R"({"id": 7, "op": "hello"})");
    BOOST_TEST(o.respond);
    BOOST_TEST(!o.exit);
    BOOST_TEST(o.response.at("id").as_int64() == 7);
    BOOST_TEST(o.response.at("ok").as_bool());
    BOOST_TEST(o.response.at("protocol").as_int64() == 1);
    BOOST_TEST(o.response.at("mode").as_string() == "compile");
    BOOST_TEST(!o.response.at("nvrtc_version").as_string().empty());
    BOOST_TEST(!o.response.contains("device"));
    // Started by hand, not by the compile pool: nobody asked for the sandbox.
    BOOST_TEST(o.response.at("compile_sandbox").at("status").as_string() == "not requested");
}

BOOST_AUTO_TEST_CASE(malformed_lines_are_bad_requests)
{
    request_loop loop(compile_mode());
    const char* lines[] = {"{not json",
                           "[1,2]",
                           R"({"op":"hello"})",
                           R"({"id":"x","op":"hello"})",
                           R"({"id":1})",
                           R"({"id":1,"op":5})"};
    for (const char* line : lines)
    {
        auto o = loop.handle_line(line);
        BOOST_TEST_CONTEXT(line)
        {
            BOOST_TEST(o.respond);
            BOOST_TEST(!o.exit);
            BOOST_TEST(!o.response.at("ok").as_bool());
            BOOST_TEST(error_of(o.response).at("kind").as_string() == "bad_request");
        }
    }
    // The id is echoed whenever it could be read.
    auto o = loop.handle_line(R"({"id":1})");
    BOOST_TEST(o.response.at("id").as_int64() == 1);
    auto p = loop.handle_line("{not json");
    BOOST_TEST(p.response.at("id").is_null());
}

BOOST_AUTO_TEST_CASE(blank_lines_get_no_response)
{
    request_loop loop(compile_mode());
    BOOST_TEST(!loop.handle_line("").respond);
    BOOST_TEST(!loop.handle_line("   \r").respond);
}

BOOST_AUTO_TEST_CASE(unknown_op_and_gpu_ops_in_compile_mode)
{
    request_loop loop(compile_mode());
    auto o = loop.handle_line(R"({"id":2,"op":"frobnicate"})");
    BOOST_TEST(error_of(o.response).at("kind").as_string() == "bad_request");
    BOOST_TEST(std::string(error_of(o.response).at("message").as_string()).find("frobnicate") !=
               std::string::npos);
    for (const char* op : {"evaluate", "load_workload", "device_info", "time_interleaved"})
    {
        auto r = loop.handle_line(std::string(R"({"id":3,"op":")") + op + "\"}");
        BOOST_TEST_CONTEXT(op)
        {
            BOOST_TEST(error_of(r.response).at("kind").as_string() == "bad_request");
            BOOST_TEST(std::string(error_of(r.response).at("message").as_string()).find("--device") !=
                       std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(shutdown_asks_to_exit_zero)
{
    request_loop loop(compile_mode());
    auto o = loop.handle_line(R"({"id":9,"op":"shutdown"})");
    BOOST_TEST(o.exit);
    BOOST_TEST(o.exit_code == 0);
    BOOST_TEST(o.response.at("ok").as_bool());
    BOOST_TEST(o.response.at("id").as_int64() == 9);
}

BOOST_AUTO_TEST_CASE(compile_op_returns_outcomes_as_values)
{
    request_loop loop(compile_mode());
    json::object ok_req{{"id", 1},
                        {"op", "compile"},
                        {"request",
                         {{"source", "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 2.0f; }"},
                          {"entry", "k"}}}};
    auto ok = loop.handle_line(json::serialize(ok_req));
    BOOST_TEST_REQUIRE(ok.response.at("ok").as_bool());
    const auto& out = ok.response.at("output").as_object();
    BOOST_TEST(out.at("compiled").as_bool());
    BOOST_TEST(!out.at("cubin_b64").as_string().empty());

    json::object bad_req{
        {"id", 2},
        {"op", "compile"},
        {"request", {{"source", "extern \"C\" __global__ void k(float* x) { x[0] = }"}, {"entry", "k"}}}};
    auto bad = loop.handle_line(json::serialize(bad_req));
    BOOST_TEST_REQUIRE(bad.response.at("ok").as_bool());  // a compile error is an outcome, not an error
    BOOST_TEST(!bad.response.at("output").at("compiled").as_bool());
    BOOST_TEST(!bad.response.at("output").at("log").as_string().empty());

    auto missing = loop.handle_line(R"({"id":3,"op":"compile"})");
    BOOST_TEST(error_of(missing.response).at("kind").as_string() == "bad_request");
    BOOST_TEST(error_of(missing.response).at("message").as_string() == "compile: 'request' is missing");
    auto mistyped = loop.handle_line(R"({"id":4,"op":"compile","request":[1]})");
    BOOST_TEST(error_of(mistyped.response).at("kind").as_string() == "bad_request");
    BOOST_TEST(error_of(mistyped.response).at("message").as_string() ==
               "compile: 'request' must be an object");
}

BOOST_AUTO_TEST_CASE(gpu_mode_without_a_device_answers_no_device)
{
    // Device 999 exists nowhere, so this holds with and without a GPU: the worker answers, with
    // one line, and keeps serving compile and shutdown.
    worker_options o;
    o.mode = worker_mode::gpu;
    o.device = 999;
    o.no_cache = true;
    request_loop loop(o);
    for (const char* op : {"hello", "device_info", "evaluate"})
    {
        auto r = loop.handle_line(std::string(R"({"id":1,"op":")") + op + "\"}");
        BOOST_TEST_CONTEXT(op)
        {
            BOOST_TEST(!r.response.at("ok").as_bool());
            BOOST_TEST(error_of(r.response).at("kind").as_string() == "no_device");
            const std::string message(error_of(r.response).at("message").as_string());
            BOOST_TEST(message.find('\n') == std::string::npos);
            BOOST_TEST(!r.exit);
        }
    }
    BOOST_TEST(loop.handle_line(R"({"id":2,"op":"shutdown"})").exit);
}

BOOST_AUTO_TEST_CASE(gpu_mode_compiles_on_its_sandboxed_thread)
{
    // The GPU worker keeps its file access for the driver and compiles on a thread inside the
    // compile sandbox: a kernel past the textual policy (a pasted __has_include) finds no file.
    test::temp_dir tmp("warpsmith-gpu-mode-compile");
    const std::string file = (tmp.path() / ".env").string();
    write_file_atomic(tmp.path() / ".env", "OPENAI_API_KEY=sk-test-GPUMODE\n");
    worker_options o;
    o.mode = worker_mode::gpu;
    o.device = 999;
    o.no_cache = true;
    request_loop loop(o);
    const std::string probe = "#define PASTE(a, b) a##b\n#if PASTE(__has_, include)(\"" + file +
                              "\")\n#error the GPU worker's compiles read host files\n#endif\n"
                              "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n";
    json::object req{{"id", 1}, {"op", "compile"}, {"request", {{"source", probe}, {"entry", "k"}}}};
    auto r = loop.handle_line(json::serialize(req));
    BOOST_TEST_REQUIRE(r.response.at("ok").as_bool());
    BOOST_TEST(!read_text_file(tmp.path() / ".env").empty());  // the worker's own thread still reads it
    const auto& out = r.response.at("output").as_object();
    if (landlock_abi_version() == 0)
    {
        BOOST_TEST_MESSAGE("Landlock unavailable here: the GPU worker's compiles rely on the include policy");
        return;
    }
    BOOST_TEST(out.at("compiled").as_bool(), json::serialize(out));
}

// (Non-finite numbers in responses: tests/harness/json/test_json_number.cpp.)
BOOST_AUTO_TEST_CASE(timing_fields_are_named_in_bad_requests)
{
    json::object req{{"timing", {{"iterations", 0}}}};
    try
    {
        parse_timing(&req.at("timing").as_object(), "evaluate");
        BOOST_FAIL("iterations = 0 was accepted");
    }
    catch (const request_error& e)
    {
        BOOST_TEST((e.kind() == error_kind::bad_request));
        BOOST_TEST(std::string(e.what()) ==
                   "evaluate: 'timing.iterations' must be an integer from 1 to 100000");
    }
    json::object mode{{"mode", "lukewarm"}};
    BOOST_CHECK_THROW(parse_timing(&mode, "evaluate"), request_error);
    const timing_options d = parse_timing(nullptr, "evaluate");
    BOOST_TEST(d.warmup == 10);
    BOOST_TEST(d.iterations == 100);
    BOOST_TEST((d.mode == timing_mode::cold));
    json::object hot{{"mode", "hot"}, {"warmup", 0}, {"iterations", 5}, {"target_rel_noise", 0.01}};
    const timing_options h = parse_timing(&hot, "evaluate");
    BOOST_TEST((h.mode == timing_mode::hot));
    BOOST_TEST(h.warmup == 0);
    BOOST_TEST(h.iterations == 5);
    BOOST_TEST(h.target_rel_noise == 0.01);
    // Adaptive by default; 0 asks for every launch.
    BOOST_TEST(d.target_rel_noise == default_target_rel_noise);
    BOOST_TEST(d.dominated_above_us.empty());
    json::object fixed{{"target_rel_noise", 0}};
    BOOST_TEST(parse_timing(&fixed, "evaluate").target_rel_noise == 0.0);
    // Per-case dominance thresholds: positive numbers only.
    json::object dom{{"dominated_above_us", {{"big", 12.5}, {"small", 3}}}};
    const timing_options dd = parse_timing(&dom, "evaluate");
    BOOST_TEST(dd.dominated_above_us.size() == 2u);
    BOOST_TEST(dd.dominated_above_us.at("big") == 12.5);
    BOOST_TEST(dd.dominated_above_us.at("small") == 3.0);
    json::object bad_dom{{"dominated_above_us", {{"big", -1}}}};
    BOOST_CHECK_THROW(parse_timing(&bad_dom, "evaluate"), request_error);
    json::object text_dom{{"dominated_above_us", {{"big", "fast"}}}};
    BOOST_CHECK_THROW(parse_timing(&text_dom, "evaluate"), request_error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(worker_validation_model)

// Every float poison is a signalling NaN (quiet bit clear) so the GPU can never produce it by
// arithmetic, and integer poison is 0xA5 bytes.
BOOST_AUTO_TEST_CASE(poison_patterns_are_signalling_nans)
{
    const poison_pattern f16 = poison_for(dtype::float16);
    BOOST_TEST(std::isnan(half_bits_to_float(static_cast<unsigned short>(f16.element_bits))));
    BOOST_TEST((f16.element_bits & 0x0200) == 0u);  // quiet bit
    const poison_pattern bf16 = poison_for(dtype::bfloat16);
    BOOST_TEST(std::isnan(bfloat16_bits_to_float(static_cast<unsigned short>(bf16.element_bits))));
    BOOST_TEST((bf16.element_bits & 0x0040) == 0u);
    const poison_pattern f32 = poison_for(dtype::float32);
    BOOST_TEST(std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(f32.element_bits))));
    BOOST_TEST((f32.element_bits & 0x00400000u) == 0u);
    const poison_pattern f64 = poison_for(dtype::float64);
    BOOST_TEST(std::isnan(std::bit_cast<double>(f64.element_bits)));
    BOOST_TEST((f64.element_bits & 0x0008000000000000ull) == 0u);
    // The 64-bit pattern is written with a 32-bit memset, so its halves must be equal.
    BOOST_TEST((f64.element_bits >> 32) == (f64.element_bits & 0xFFFFFFFFu));
    BOOST_TEST(f64.memset_width == 4u);
    for (dtype t :
         {dtype::int8, dtype::uint8, dtype::int16, dtype::int32, dtype::uint32, dtype::int64, dtype::uint64})
    {
        const poison_pattern p = poison_for(t);
        std::uint64_t expected = 0;
        for (std::size_t i = 0; i < size_of(t); ++i)
            expected = (expected << 8) | 0xA5;
        BOOST_TEST(p.element_bits == expected);
    }
    // The memset value reproduces the element pattern.
    for (dtype t : {dtype::float16, dtype::bfloat16, dtype::float32, dtype::int16, dtype::int32})
    {
        const poison_pattern p = poison_for(t);
        const std::uint64_t mask = (std::uint64_t{1} << (8 * p.memset_width)) - 1;
        BOOST_TEST((p.element_bits & mask) == p.memset_value);
    }
}

BOOST_AUTO_TEST_CASE(element_values_render_for_humans_and_json)
{
    element_value poison{dtype::float32, poison_for(dtype::float32).element_bits};
    BOOST_TEST(poison.is_poison());
    BOOST_TEST(poison.to_text() == "unwritten");
    BOOST_TEST(std::get<std::string>(poison.to_reading()) == "unwritten");
    element_value quiet_nan{dtype::float32, 0x7FFFFFFFu};
    BOOST_TEST(!quiet_nan.is_poison());
    BOOST_TEST(quiet_nan.to_text() == "NaN");
    BOOST_TEST(std::get<std::string>(quiet_nan.to_reading()) == "NaN");
    element_value half{dtype::float32, std::bit_cast<std::uint32_t>(0.5f)};
    BOOST_TEST(half.to_text() == "0.5");
    BOOST_TEST(std::get<double>(half.to_reading()) == 0.5);
    element_value neg{dtype::int32, static_cast<std::uint32_t>(-7)};
    BOOST_TEST(std::get<std::int64_t>(neg.to_reading()) == -7);
    element_value big{dtype::uint64, ~std::uint64_t{0}};
    BOOST_TEST(std::get<std::uint64_t>(big.to_reading()) == ~std::uint64_t{0});
    element_value h{dtype::float16, float_to_half_bits(-2.0f)};
    BOOST_TEST(h.to_text() == "-2");
}

// The hidden run stays hidden: its failure messages and its run report say where and how much (the
// indices, the counts, the largest errors), never the got or expected values; the stated inputs'
// reports keep them.
BOOST_AUTO_TEST_CASE(hidden_run_reports_show_no_values)
{
    const element_value got{dtype::float32, std::bit_cast<std::uint32_t>(1.5f)};
    const element_value expected{dtype::float32, std::bit_cast<std::uint32_t>(0.25f)};
    const std::vector<element_mismatch> first{{"c", 17, got, expected}, {"c", 40, got, expected}};

    BOOST_TEST(list_elements(first, run_kind::stated, false) ==
               "[17] got 1.5 expected 0.25, [40] got 1.5 expected 0.25");
    BOOST_TEST(list_elements(first, run_kind::repeat, true) ==
               "[17] second run 1.5 first run 0.25, [40] second run 1.5 first run 0.25");
    BOOST_TEST(list_elements(first, run_kind::hidden, false) == "[17], [40]");

    run_report r;
    r.kind = run_kind::hidden;
    r.passed = false;
    r.elements = 1237;
    r.mismatches = 2;
    r.max_abs_error = 1.25;
    r.first_mismatches = first;
    const std::string text = boost::json::serialize(r.to_protocol().to_json());
    BOOST_TEST(text.find("1.5") == std::string::npos, text);
    BOOST_TEST(text.find("2.5E-1") == std::string::npos, text);
    BOOST_TEST(text.find("0.25") == std::string::npos, text);
    const json::object hidden = r.to_protocol().to_json();
    BOOST_TEST(hidden.at("inputs").as_string() == "hidden");
    BOOST_TEST(hidden.at("mismatches").to_number<int>() == 2);
    BOOST_TEST(hidden.at("max_abs_error").as_double() == 1.25);
    const json::array& listed = hidden.at("first_mismatches").as_array();
    BOOST_TEST_REQUIRE(listed.size() == 2u);
    BOOST_TEST(listed[0].at("buffer").as_string() == "c");
    BOOST_TEST(listed[0].at("index").to_number<int>() == 17);
    BOOST_TEST(listed[0].at("got").as_string() == "hidden");
    BOOST_TEST(listed[0].at("expected").as_string() == "hidden");

    r.kind = run_kind::stated;
    const json::object stated = r.to_protocol().to_json();
    BOOST_TEST(stated.at("first_mismatches").as_array()[1].at("got").as_double() == 1.5);
    BOOST_TEST(stated.at("first_mismatches").as_array()[1].at("expected").as_double() == 0.25);
}

BOOST_AUTO_TEST_CASE(launch_checks_name_the_numbers)
{
    device_limits limits;
    limits.max_threads_per_block = 1024;
    limits.max_block = {1024, 1024, 64};
    limits.max_grid = {2147483647, 65535, 65535};
    limits.shared_per_block = 48 * 1024;
    limits.shared_per_block_optin = 227 * 1024;
    loaded_kernel k;
    k.max_threads_per_block = 1024;
    k.registers = 32;

    launch_dims ok;
    ok.grid = {10, 1, 1};
    ok.block = {256, 1, 1};
    BOOST_TEST(prepare_launch(k, ok, limits).empty());

    launch_dims too_many = ok;
    too_many.block = {32, 32, 2};
    const std::string m1 = prepare_launch(k, too_many, limits);
    BOOST_TEST(m1.find("2048") != std::string::npos);
    BOOST_TEST(m1.find("1024") != std::string::npos);

    launch_dims grid_y = ok;
    grid_y.grid = {1, 70000, 1};
    BOOST_TEST(prepare_launch(k, grid_y, limits).find("65535") != std::string::npos);

    launch_dims shared = ok;
    shared.shared_bytes = 1 << 20;
    const std::string m2 = prepare_launch(k, shared, limits);
    BOOST_TEST(m2.find("1048576") != std::string::npos);
    BOOST_TEST(m2.find(std::to_string(227 * 1024)) != std::string::npos);

    loaded_kernel bounded;
    bounded.max_threads_per_block = 256;
    bounded.registers = 128;
    launch_dims t512 = ok;
    t512.block = {512, 1, 1};
    const std::string m3 = prepare_launch(bounded, t512, limits);
    BOOST_TEST(m3.find("kernel's maximum of 256") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_kernel_whose_parameters_differ_from_the_signature_is_not_launched)
{
    // The driver copies as many bytes per parameter as the cubin declares from the 8-byte word
    // kernel_args gives it: a larger parameter would read the worker's memory, an extra one a
    // pointer past the array. Sizes and count must match the signature.
    signature sig;
    sig.params.push_back(param{"n", param_kind::scalar, dtype::int32});
    sig.params.push_back(param{"x", param_kind::buffer, dtype::float32, buffer_dir::in});
    sig.params.push_back(param{"h", param_kind::scalar, dtype::float16});
    loaded_kernel k;
    k.entry = "k";
    BOOST_TEST(parameter_mismatch(k, sig).find("cannot be read from its cubin (.nv.info.k)") !=
               std::string::npos);
    k.params = std::vector<cubin_kernel_param>{{0, 0, 4}, {1, 8, 8}, {2, 16, 2}};
    BOOST_TEST(parameter_mismatch(k, sig).empty());
    k.params = std::vector<cubin_kernel_param>{{0, 0, 4096}, {1, 4096, 8}, {2, 4104, 2}};
    BOOST_TEST(parameter_mismatch(k, sig) ==
               "parameter 1 ('n') is 4096 bytes in the kernel, the signature's int32 is 4");
    k.params = std::vector<cubin_kernel_param>{{0, 0, 4}, {1, 4, 4}, {2, 8, 2}};
    BOOST_TEST(parameter_mismatch(k, sig) ==
               "parameter 2 ('x') is 4 bytes in the kernel, the signature's pointer is 8");
    k.params = std::vector<cubin_kernel_param>{{0, 0, 4}, {1, 8, 8}, {2, 16, 2}, {3, 24, 8}};
    BOOST_TEST(parameter_mismatch(k, sig) ==
               "the kernel declares 4 parameters, the workload's signature has 3");
    k.params = std::vector<cubin_kernel_param>{};
    BOOST_TEST(parameter_mismatch(k, sig) ==
               "the kernel declares 0 parameters, the workload's signature has 3");
}

BOOST_AUTO_TEST_CASE(kernel_arguments_follow_the_signature)
{
    json::object wj = test::vector_add_workload("float32");
    // Add a float16 and a float64 scalar to see every encoding path.
    auto& params = wj["signature"].as_object()["params"].as_array();
    params.push_back({{"name", "alpha"}, {"kind", "scalar"}, {"type", "float16"}});
    params.push_back({{"name", "beta"}, {"kind", "scalar"}, {"type", "float64"}});
    for (auto& c : wj["cases"].as_array())
        c.as_object()["float_values"] = {{"alpha", 1.5}, {"beta", -0.25}};
    const workload w = workload::from_json(wj, ".", "test");
    const workload_case& c = w.cases.front();
    const std::vector<CUdeviceptr> ptrs{0x1000, 0x2000, 0x3000};
    kernel_args args(w.sig, c, ptrs);
    void** p = args.data();
    std::int32_t n = 0;
    std::memcpy(&n, p[0], 4);
    BOOST_TEST(n == 1237);
    CUdeviceptr a = 0, cc = 0;
    std::memcpy(&a, p[1], sizeof a);
    std::memcpy(&cc, p[3], sizeof cc);
    BOOST_TEST(a == 0x1000u);
    BOOST_TEST(cc == 0x3000u);
    unsigned short alpha = 0;
    std::memcpy(&alpha, p[4], 2);
    BOOST_TEST(alpha == float_to_half_bits(1.5f));
    double beta = 0;
    std::memcpy(&beta, p[5], 8);
    BOOST_TEST(beta == -0.25);
}

BOOST_AUTO_TEST_CASE(the_test_workloads_parse)
{
    for (const char* t : {"float32", "int32", "float16"})
    {
        const workload w = workload::from_json(test::vector_add_workload(t), ".", "test");
        BOOST_TEST(w.cases.size() == 3u);
        BOOST_TEST(w.performance_case_count() == 1u);
    }
}

BOOST_AUTO_TEST_CASE(chunks_fit_a_quarter_of_the_timeout)
{
    using std::chrono::milliseconds;
    BOOST_TEST(chunk_size(1.0, milliseconds(10'000)) == 128);   // capped
    BOOST_TEST(chunk_size(100.0, milliseconds(10'000)) == 25);  // 2500 ms / 100 ms
    BOOST_TEST(chunk_size(5000.0, milliseconds(10'000)) == 1);  // never zero
    BOOST_TEST(chunk_size(0.0, milliseconds(2'000)) == 128);
}

BOOST_AUTO_TEST_CASE(cuda_errors_carry_names_and_stickiness)
{
    const cuda::cuda_error oom(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc");
    BOOST_TEST(oom.name() == "CUDA_ERROR_OUT_OF_MEMORY");
    BOOST_TEST(oom.call() == "cuMemAlloc");
    BOOST_TEST(std::string(oom.what()).find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos);
    BOOST_TEST(!oom.is_sticky());
    BOOST_TEST(cuda::is_sticky(CUDA_ERROR_ILLEGAL_ADDRESS));
    BOOST_TEST(cuda::is_sticky(CUDA_ERROR_LAUNCH_FAILED));
    BOOST_TEST(cuda::is_sticky(CUDA_ERROR_MISALIGNED_ADDRESS));
    BOOST_TEST(!cuda::is_sticky(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
    BOOST_TEST(!cuda::is_sticky(CUDA_ERROR_INVALID_VALUE));
    BOOST_TEST(cuda::error_name(CUDA_ERROR_ILLEGAL_ADDRESS) == "CUDA_ERROR_ILLEGAL_ADDRESS");
    BOOST_TEST(cuda::format_cuda_version(13000) == "13.0");
    BOOST_TEST(cuda::format_cuda_version(12080) == "12.8");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(worker_helper_kernels)

// The comparison, guard, scrub and FP32-rate kernels are compiled by NVRTC when the worker starts
// on a GPU; this proves they compile for the H200's sm_90 (and sm_90a) without a GPU, and that the
// cubin has every entry the worker resolves.
BOOST_AUTO_TEST_CASE(helper_kernels_compile_for_sm_90)
{
    const nvrtc_compiler compiler;
    for (const char* arch : {"sm_90", "sm_90a"})
    {
        const compile_output out = compiler.compile(helper_kernels_request(arch));
        BOOST_TEST_CONTEXT(arch << ": " << out.error << "\n" << out.log)
        {
            BOOST_TEST_REQUIRE(out.compiled);
            BOOST_TEST(!out.cubin.empty());
            for (const std::string& entry : helper_kernel_entries())
                BOOST_TEST((std::find(out.entries.begin(), out.entries.end(), entry) != out.entries.end()),
                           entry);
            // No helper may spill (they run on every validation): every "N bytes spill stores" of
            // the ptxas report has N = 0.
            const std::regex spills(R"((\d+) bytes spill stores)");
            int reports = 0;
            for (auto it = std::sregex_iterator(out.log.begin(), out.log.end(), spills);
                 it != std::sregex_iterator();
                 ++it, ++reports)
                BOOST_TEST((*it)[1].str() == "0");
            BOOST_TEST(reports >= static_cast<int>(helper_kernel_entries().size()));
        }
    }
}

BOOST_AUTO_TEST_CASE(helper_source_needs_no_headers)
{
    BOOST_TEST(helper_kernels_source().find("#include") == std::string::npos);
    BOOST_TEST(helper_kernel_entries().size() == 11u * 4u + 5u);
}

BOOST_AUTO_TEST_SUITE_END()
