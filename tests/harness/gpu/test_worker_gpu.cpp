// warpsmith-worker --device 0 end to end on a real GPU (ctest label gpu; skipped without one).
// Each test spawns the real binary and speaks the protocol like the engine: load a small inline
// workload, evaluate kernels that are correct or that cheat in one specific way, and check the
// diagnosis (failure kind, case, counts, first mismatches), timing sanity, restarts after faults
// and hangs, time_interleaved, device_info, and that memory does not leak across evaluations.

#include "harness/compile/compile_sandbox.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/worker/worker_test_support.hpp"
#include "tests/support/worker_pipe.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <memory>

namespace json = boost::json;
using namespace std::chrono_literals;
using warpsmith::test::vector_add_workload;
using warpsmith::test::worker_path;
using warpsmith::test::worker_pipe;

namespace
{

// One compile cache for the whole test binary: the helper kernels and repeated candidates compile
// once.
const std::filesystem::path& cache_dir()
{
    static warpsmith::test::temp_dir dir("warpsmith-gpu-test-cache");
    return dir.path();
}

const std::string k_launch_256 = R"J({"grid": ["ceil_div(n,256)"], "block": [256]})J";

// A vector-add candidate: `body` is the statement for element i (i < n guaranteed unless the body
// says otherwise); `prelude` goes before the kernel.
json::object vadd_candidate(const std::string& body,
                            const std::string& type = "float",
                            const std::string& prelude = "",
                            const std::string& launch = k_launch_256)
{
    const std::string source =
        prelude + "\nextern \"C\" __global__ void vadd(int n, const " + type + "* a, const " + type +
        "* b, " + type + "* c)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n" + body + "\n}\n";
    return json::object{{"source", source}, {"entry", "vadd"}, {"launch", json::parse(launch)}};
}

const char* k_correct = "    if (i < n) c[i] = a[i] + b[i];";

json::object quick_timing()
{
    return {{"warmup", 2}, {"iterations", 10}, {"mode", "cold"}};
}

struct gpu_worker
{
    std::unique_ptr<worker_pipe> pipe;
    json::object hello;

    gpu_worker()
    {
        pipe = std::make_unique<worker_pipe>(
            std::vector<std::string>{worker_path(), "--device", "0", "--cache-dir", cache_dir().string()});
        hello = pipe->request({{"op", "hello"}}, 120s);
        BOOST_TEST_REQUIRE(hello.at("ok").as_bool(), json::serialize(hello));
    }

    json::object load(const json::object& workload, int timeout_ms = 10'000)
    {
        json::object r = pipe->request({{"op", "load_workload"},
                                        {"workload", workload},
                                        {"hidden_seed", 4242},
                                        {"launch_timeout_ms", timeout_ms}},
                                       300s);
        BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
        return r;
    }

    json::object evaluate_raw(json::object candidate,
                              json::object timing = quick_timing(),
                              bool validate_only = false,
                              json::array cases = {})
    {
        json::object req{{"op", "evaluate"},
                         {"name", "test"},
                         {"candidate", std::move(candidate)},
                         {"timing", std::move(timing)},
                         {"validate_only", validate_only}};
        if (!cases.empty())
            req["cases"] = std::move(cases);
        return pipe->request(std::move(req), 300s);
    }

    json::object evaluate(json::object candidate,
                          json::object timing = quick_timing(),
                          bool validate_only = false,
                          json::array cases = {})
    {
        json::object r =
            evaluate_raw(std::move(candidate), std::move(timing), validate_only, std::move(cases));
        BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
        return r.at("result").as_object();
    }

    std::int64_t free_memory()
    {
        json::object r = pipe->request({{"op", "device_info"}}, 60s);
        BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
        return r.at("device").at("free_memory_bytes").to_number<std::int64_t>();
    }
};

std::string failure_kind(const json::object& result)
{
    const json::value& f = result.at("failure");
    return f.is_null() ? "" : std::string(f.at("kind").as_string());
}

std::string failure_message(const json::object& result)
{
    const json::value& f = result.at("failure");
    return f.is_null() ? "" : std::string(f.at("message").as_string());
}

const json::object& case_named(const json::object& result, const std::string& name)
{
    for (const json::value& c : result.at("cases").as_array())
        if (c.at("name").as_string() == name)
            return c.as_object();
    BOOST_FAIL("no case " + name + " in " + json::serialize(result));
    throw std::logic_error("unreachable");
}

void require_valid(const json::object& result)
{
    BOOST_TEST_REQUIRE(result.at("status").as_string() == "valid", json::serialize(result));
    BOOST_TEST(result.at("failure").is_null());
}

void check_timing_sane(const json::object& timing, int samples)
{
    const double median = timing.at("median_us").to_number<double>();
    BOOST_TEST(median > 0);
    BOOST_TEST(timing.at("p10_us").to_number<double>() <= median);
    BOOST_TEST(median <= timing.at("p90_us").to_number<double>());
    BOOST_TEST(timing.at("min_us").to_number<double>() <= timing.at("p10_us").to_number<double>());
    BOOST_TEST(timing.at("p90_us").to_number<double>() <= timing.at("max_us").to_number<double>());
    BOOST_TEST(timing.at("stddev_us").to_number<double>() >= 0);
    BOOST_TEST(timing.at("rel_iqr").to_number<double>() >= 0);
    if (samples > 0)
        BOOST_TEST(timing.at("samples").as_int64() == samples);
    BOOST_TEST(timing.at("timed_output_valid").as_bool());
    BOOST_TEST(!timing.at("suspect").as_bool());
    BOOST_TEST(timing.at("wall_us_per_launch").to_number<double>() > 0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_gpu)

BOOST_AUTO_TEST_CASE(hello_and_device_info)
{
    gpu_worker w;
    BOOST_TEST(w.hello.at("mode").as_string() == "gpu");
    BOOST_TEST(!w.hello.at("driver_version").as_string().empty());
    // Its compiles (the reference, candidates sent as source) run on a thread inside the sandbox.
    BOOST_TEST(w.hello.at("compile_sandbox").at("status").as_string() ==
                   (warpsmith::landlock_abi_version() > 0 ? "applied" : "unavailable"),
               json::serialize(w.hello.at("compile_sandbox")));
    const json::object& d = w.hello.at("device").as_object();
    for (const char* field : {"name",
                              "index",
                              "arch",
                              "compute_capability",
                              "sm_count",
                              "total_memory_bytes",
                              "free_memory_bytes",
                              "l2_bytes",
                              "shared_memory_per_block_bytes",
                              "shared_memory_per_block_optin_bytes",
                              "shared_memory_per_sm_bytes",
                              "registers_per_block",
                              "registers_per_sm",
                              "max_threads_per_block",
                              "max_threads_per_sm",
                              "warp_size",
                              "max_grid",
                              "max_block",
                              "clock_mhz",
                              "memory_clock_mhz",
                              "memory_bus_bits",
                              "driver_version",
                              "uuid",
                              "clocks"})
        BOOST_TEST(d.contains(field), field);
    BOOST_TEST(d.at("sm_count").as_int64() > 0);
    BOOST_TEST(d.at("arch").as_string().starts_with("sm_"));
    BOOST_TEST(d.at("l2_bytes").to_number<std::int64_t>() > 0);
    BOOST_TEST(d.at("max_grid").as_array().size() == 3u);
    BOOST_TEST(d.at("shared_memory_per_block_optin_bytes").as_int64() >=
               d.at("shared_memory_per_block_bytes").as_int64());
    BOOST_TEST(std::string(d.at("uuid").as_string()).starts_with("GPU-"));
    BOOST_TEST_MESSAGE("device: " << json::serialize(d));

    json::object m = w.pipe->request({{"op", "device_info"}, {"measure", true}}, 120s);
    BOOST_TEST_REQUIRE(m.at("ok").as_bool(), json::serialize(m));
    const json::object& measured = m.at("device").at("measured").as_object();
    const double gbps = measured.at("copy_bandwidth_gbps").to_number<double>();
    const double tflops = measured.at("fp32_tflops").to_number<double>();
    BOOST_TEST_MESSAGE("measured: " << json::serialize(measured));
    // Plausible for any recent data-centre GPU (H200: about 4300 GB/s and 60 TFLOP/s).
    BOOST_TEST(gbps > 200.0);
    BOOST_TEST(gbps < 20000.0);
    BOOST_TEST(tflops > 2.0);
    BOOST_TEST(tflops < 300.0);
    // The cold copy curve: 2 MiB to 1 GiB moved, doubling; each copy timed cold, so none beats the
    // large hot copy by much, and the largest reaches a good part of it.
    const json::array& curve = measured.at("cold_copy").as_array();
    BOOST_TEST_REQUIRE(curve.size() >= 2u);
    double previous = 0;
    for (const auto& p : curve)
    {
        const double bytes = p.at("bytes").to_number<double>();
        const double rate = p.at("gbps").to_number<double>();
        BOOST_TEST(bytes == (previous > 0 ? 2 * previous : double(2 << 20)));
        BOOST_TEST(rate > 0.0);
        BOOST_TEST(rate < 1.2 * gbps, "cold copy of " << bytes << " bytes: " << rate << " GB/s");
        previous = bytes;
    }
    BOOST_TEST(curve.back().at("gbps").to_number<double>() > 0.5 * gbps);
}

BOOST_AUTO_TEST_CASE(evaluate_before_load_is_no_workload)
{
    gpu_worker w;
    json::object r = w.evaluate_raw(vadd_candidate(k_correct));
    BOOST_TEST(!r.at("ok").as_bool());
    BOOST_TEST(r.at("error").at("kind").as_string() == "no_workload");
}

BOOST_AUTO_TEST_CASE(correct_float32_kernel_is_valid_with_sane_timing)
{
    gpu_worker w;
    json::object load = w.load(vector_add_workload("float32"));
    BOOST_TEST(load.at("cases").as_array().size() == 3u);
    BOOST_TEST(load.at("device_bytes").to_number<std::int64_t>() > 0);
    for (const json::value& c : load.at("cases").as_array())
    {
        const json::object& ref = c.at("reference").as_object();
        BOOST_TEST(!ref.at("all_zero").at("c").as_bool());
        BOOST_TEST(ref.at("nonfinite").at("c").as_int64() == 0);
        BOOST_TEST(ref.at("depends_on_inputs").as_bool());
    }
    BOOST_TEST(load.at("cases").as_array()[0].at("elements").at("a").as_int64() == 1237);

    const json::object result =
        w.evaluate(vadd_candidate(k_correct), {{"warmup", 5}, {"iterations", 30}, {"target_rel_noise", 0}});
    require_valid(result);
    BOOST_TEST(result.at("cases").as_array().size() == 3u);
    for (const char* name : {"odd-small", "odd-large"})
    {
        const json::object& c = case_named(result, name);
        BOOST_TEST(c.at("timing").is_null());
        const json::object& v = c.at("validation").as_object();
        BOOST_TEST(v.at("passed").as_bool());
        BOOST_TEST(v.at("guards_intact").as_bool());
        BOOST_TEST(v.at("inputs_intact").as_bool());
        BOOST_TEST(v.at("repeat_agrees").as_bool());
        const json::array& runs = v.at("runs").as_array();
        BOOST_TEST_REQUIRE(runs.size() == 3u);
        BOOST_TEST(runs[0].at("inputs").as_string() == "stated");
        BOOST_TEST(runs[1].at("inputs").as_string() == "hidden");
        BOOST_TEST(runs[2].at("inputs").as_string() == "repeat");
        BOOST_TEST(runs[0].at("mismatches").as_int64() == 0);
        BOOST_TEST(runs[0].at("elements").as_int64() == (std::string(name) == "odd-small" ? 1237 : 300007));
    }
    const json::object& perf = case_named(result, "perf");
    BOOST_TEST(perf.at("launch").at("block").as_array()[0].as_int64() == 256);
    const json::array& runs = perf.at("validation").at("runs").as_array();
    // stated, hidden, repeat, then the checked timed launches: 8 sampled of the 30 (at least 8)
    // and the last.
    const json::object& timing = perf.at("timing").as_object();
    BOOST_TEST(timing.at("checked_launches").as_int64() == 9);
    BOOST_TEST_REQUIRE(runs.size() == 3u + 9u);
    for (std::size_t i = 3; i < runs.size(); ++i)
    {
        BOOST_TEST(runs[i].at("inputs").as_string() == "timed");
        BOOST_TEST(runs[i].at("passed").as_bool());
    }
    check_timing_sane(timing, 30);
    BOOST_TEST(timing.at("stopped").as_string() == "fixed");
    BOOST_TEST(timing.at("mode").as_string() == "cold");
    BOOST_TEST(timing.at("warmup").as_int64() == 5);
    BOOST_TEST(result.at("score_us").to_number<double>() == timing.at("median_us").to_number<double>());
    const json::object& env = result.at("environment").as_object();
    BOOST_TEST(!env.at("gpu").as_string().empty());
    BOOST_TEST(env.at("clocks").as_object().contains("sm_mhz_start"));
    BOOST_TEST(result.at("eval_ms").to_number<double>() > 0);
    BOOST_TEST_MESSAGE("phases: " << json::serialize(result.at("phases_ms")));
    // Where the time went: the timing's parts are disjoint stretches of its host time.
    const json::object& phases = result.at("phases_ms").as_object();
    double parts = 0;
    for (const char* key : {"time_warmup_ms", "time_measure_ms", "time_checks_ms", "time_wall_check_ms"})
    {
        BOOST_TEST_REQUIRE(phases.contains(key), key);
        BOOST_TEST(phases.at(key).to_number<double>() >= 0, key);
        parts += phases.at(key).to_number<double>();
    }
    BOOST_TEST(phases.at("time_measure_ms").to_number<double>() > 0);
    BOOST_TEST(parts <= phases.at("time_ms").to_number<double>() + 1e-6);
    for (const char* key : {"open_ms", "validate_ms", "seal_ms", "load_ms", "kernel_gpu_ms", "l2_scrub_ms"})
        BOOST_TEST(phases.contains(key), key);

    // validate_only: no timing, no score.
    const json::object v = w.evaluate(vadd_candidate(k_correct), quick_timing(), true);
    require_valid(v);
    BOOST_TEST(case_named(v, "perf").at("timing").is_null());
    BOOST_TEST(v.at("score_us").is_null());

    // A case subset, and a case that does not exist.
    const json::object sub = w.evaluate(vadd_candidate(k_correct), quick_timing(), true, {"odd-small"});
    BOOST_TEST(sub.at("cases").as_array().size() == 1u);
    json::object bad = w.evaluate_raw(vadd_candidate(k_correct), quick_timing(), true, {"no-such-case"});
    BOOST_TEST(bad.at("error").at("kind").as_string() == "bad_request");

    // A cubin from the compile op instead of source.
    json::object compiled = w.pipe->request({{"op", "compile"},
                                             {"request",
                                              {{"source", vadd_candidate(k_correct).at("source")},
                                               {"entry", "vadd"},
                                               {"arch", w.hello.at("device").at("arch")}}}},
                                            120s);
    BOOST_TEST_REQUIRE(compiled.at("output").at("compiled").as_bool(), json::serialize(compiled));
    json::object by_cubin{{"entry", "vadd"},
                          {"cubin_b64", compiled.at("output").at("cubin_b64")},
                          {"launch", json::parse(k_launch_256)}};
    require_valid(w.evaluate(by_cubin, quick_timing(), true));
}

BOOST_AUTO_TEST_CASE(int32_and_float16_kernels_are_valid)
{
    {
        gpu_worker w;
        w.load(vector_add_workload("int32"));
        require_valid(w.evaluate(vadd_candidate(k_correct, "int")));
        // Off by one in one element: integers are compared exactly.
        const json::object r =
            w.evaluate(vadd_candidate("    if (i < n) c[i] = a[i] + b[i] + (i == 100 ? 1 : 0);", "int"));
        BOOST_TEST(failure_kind(r) == "mismatch");
        const json::object& run =
            case_named(r, "odd-small").at("validation").at("runs").as_array()[0].as_object();
        BOOST_TEST(run.at("mismatches").as_int64() == 1);
        BOOST_TEST(run.at("first_mismatches").as_array()[0].at("index").as_int64() == 100);
        // The message says so, rather than quoting a tolerance of zeros.
        const std::string message = failure_message(r);
        BOOST_TEST(message.find("1 of 1237 elements differ from the reference (int32, compared exactly)") !=
                       std::string::npos,
                   message);
        BOOST_TEST(message.find("atol") == std::string::npos, message);
    }
    {
        gpu_worker w;
        w.load(vector_add_workload("float16"));
        const std::string body =
            "    if (i < n) { float x, y; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(x) : \"h\"(a[i]));"
            " asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(y) : \"h\"(b[i]));"
            " unsigned short r; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x + y)); c[i] = r; }";
        require_valid(w.evaluate(vadd_candidate(body, "unsigned short")));
        // Writing nothing leaves the float16 poison: unwritten.
        const json::object r = w.evaluate(vadd_candidate("", "unsigned short"));
        BOOST_TEST(failure_kind(r) == "unwritten");
    }
}

BOOST_AUTO_TEST_CASE(wrong_kernel_is_a_mismatch_with_first_mismatches)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object r =
        w.evaluate(vadd_candidate("    if (i < n) c[i] = a[i] + b[i] + (i == 17 || i == 40 ? 1.0f : 0.0f);"));
    BOOST_TEST(r.at("status").as_string() == "invalid");
    BOOST_TEST(failure_kind(r) == "mismatch");
    BOOST_TEST(r.at("failure").at("case").as_string() == "odd-small");
    const std::string message = failure_message(r);
    BOOST_TEST(message.find("2 of 1237 elements outside atol") != std::string::npos, message);
    BOOST_TEST(message.find("[17]") != std::string::npos, message);
    BOOST_TEST(message.find("stated inputs") != std::string::npos, message);
    const json::object& run =
        case_named(r, "odd-small").at("validation").at("runs").as_array()[0].as_object();
    BOOST_TEST(!run.at("passed").as_bool());
    BOOST_TEST(run.at("mismatches").as_int64() == 2);
    const json::array& first = run.at("first_mismatches").as_array();
    BOOST_TEST_REQUIRE(first.size() == 2u);
    BOOST_TEST(first[0].at("index").as_int64() == 17);
    BOOST_TEST(first[1].at("index").as_int64() == 40);
    BOOST_TEST(first[0].at("buffer").as_string() == "c");
    const double got = first[0].at("got").to_number<double>();
    const double expected = first[0].at("expected").to_number<double>();
    BOOST_TEST(std::abs(got - expected - 1.0) < 1e-5);
    BOOST_TEST(std::abs(run.at("max_abs_error").to_number<double>() - 1.0) < 1e-5);
    // It stopped at the first failing case.
    BOOST_TEST(r.at("cases").as_array().size() == 1u);
    BOOST_TEST(r.at("score_us").is_null());

    // Outputs copied from an input, and an all-zero output, are plain mismatches.
    BOOST_TEST(failure_kind(w.evaluate(vadd_candidate("    if (i < n) c[i] = a[i];"))) == "mismatch");
    BOOST_TEST(failure_kind(w.evaluate(vadd_candidate("    if (i < n) c[i] = 0.0f;"))) == "mismatch");
    // Writing NaN where the reference is finite.
    BOOST_TEST(failure_kind(w.evaluate(vadd_candidate(
                   "    if (i < n) c[i] = (i == 5) ? __int_as_float(0x7fffffff) : a[i] + b[i];"))) ==
               "nonfinite");
}

BOOST_AUTO_TEST_CASE(kernel_that_writes_nothing_is_unwritten)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object r = w.evaluate(vadd_candidate("    (void)i;"));
    BOOST_TEST(failure_kind(r) == "unwritten");
    BOOST_TEST(failure_message(r).find("1237 of 1237 elements not written") != std::string::npos,
               failure_message(r));
    const json::object& run =
        case_named(r, "odd-small").at("validation").at("runs").as_array()[0].as_object();
    BOOST_TEST(run.at("unwritten").as_int64() == 1237);
    BOOST_TEST(run.at("first_mismatches").as_array()[0].at("got").as_string() == "unwritten");

    // The last five elements missing (a tail bug): counted exactly, first one named.
    const json::object tail = w.evaluate(vadd_candidate("    if (i < n - 5) c[i] = a[i] + b[i];"));
    BOOST_TEST(failure_kind(tail) == "unwritten");
    const json::object& trun =
        case_named(tail, "odd-small").at("validation").at("runs").as_array()[0].as_object();
    BOOST_TEST(trun.at("unwritten").as_int64() == 5);
    BOOST_TEST(trun.at("first_mismatches").as_array()[0].at("index").as_int64() == 1232);
}

BOOST_AUTO_TEST_CASE(writing_past_the_end_is_an_out_of_bounds_write)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object r = w.evaluate(vadd_candidate("    if (i <= n) c[i] = a[i] + b[i];"));
    BOOST_TEST(failure_kind(r) == "out_of_bounds_write");
    BOOST_TEST(failure_message(r).find("after its end") != std::string::npos, failure_message(r));
    BOOST_TEST(!case_named(r, "odd-small").at("validation").at("guards_intact").as_bool());
    // And before the start.
    const json::object before =
        w.evaluate(vadd_candidate("    if (i < n) c[i] = a[i] + b[i]; if (i == 0) c[-3] = 1.0f;"));
    BOOST_TEST(failure_kind(before) == "out_of_bounds_write");
    BOOST_TEST(failure_message(before).find("before its start") != std::string::npos,
               failure_message(before));
}

BOOST_AUTO_TEST_CASE(mutating_an_input_is_detected)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object r = w.evaluate(
        vadd_candidate("    if (i < n) { c[i] = a[i] + b[i]; if (i % 100 == 0) ((float*)b)[i] = 0.0f; }"));
    BOOST_TEST(failure_kind(r) == "input_mutated");
    BOOST_TEST(failure_message(r).find("input buffer b") != std::string::npos, failure_message(r));
    BOOST_TEST(!case_named(r, "odd-small").at("validation").at("inputs_intact").as_bool());
}

BOOST_AUTO_TEST_CASE(module_globals_are_restored_before_every_launch)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    // Every block takes a ticket; ticket / gridDim.x would be the launch number within this module
    // if __device__ memory survived launches, and every launch after the first would be wrong. The
    // worker restores the module's globals before every launch, so every launch is "the first".
    const std::string prelude = "__device__ unsigned int tickets;";
    const std::string body =
        "    __shared__ unsigned int launch;\n"
        "    if (threadIdx.x == 0) launch = atomicAdd(&tickets, 1u) / gridDim.x;\n"
        "    __syncthreads();\n"
        "    if (i < n) c[i] = launch >= 1 ? 0.0f : a[i] + b[i];";
    const json::object r = w.evaluate(vadd_candidate(body, "float", prelude),
                                      {{"warmup", 10}, {"iterations", 100}, {"target_rel_noise", 0}},
                                      false,
                                      {});
    require_valid(r);
    BOOST_TEST(case_named(r, "perf").at("timing").at("checked_launches").as_int64() == 9);

    // The same with an initialised variable and a memo table: a launch that finds the table filled
    // would replay it; restored, the table is always empty.
    const std::string memo_prelude = "__device__ int filled = 7; __device__ float memo[1 << 16];";
    const std::string memo_body =
        "    if (i >= n) return;\n"
        "    if (filled == 8 && i < (1 << 16)) { c[i] = memo[i] + 1.0f; return; }\n"
        "    c[i] = a[i] + b[i];\n"
        "    if (i < (1 << 16)) memo[i] = c[i];\n"
        "    if (i == 0) filled = 8;";
    require_valid(w.evaluate(vadd_candidate(memo_body, "float", memo_prelude)));
}

BOOST_AUTO_TEST_CASE(constant_memory_written_through_a_pointer_does_not_survive)
{
    // A __constant__ counter written through a generic pointer (cvta.const): restored before every
    // launch like any module global, refused when the driver cannot name it (static), or a fault
    // when the bank is not writable (then the worker restarts: a fresh one per variant). Never
    // "wrong from the second launch on".
    for (const std::string storage : {"", "static "})
    {
        gpu_worker w;
        w.load(vector_add_workload("float32"));
        const std::string prelude = storage + "__constant__ unsigned int tickets[1];";
        const std::string body =
            "    __shared__ unsigned int launch;\n"
            "    if (threadIdx.x == 0) launch = atomicAdd((unsigned int*)&tickets[0], 1u) / gridDim.x;\n"
            "    __syncthreads();\n"
            "    if (i < n) c[i] = launch >= 1 ? 0.0f : a[i] + b[i];";
        const json::object r = w.evaluate(vadd_candidate(body, "float", prelude), quick_timing(), false, {});
        const std::string status(r.at("status").as_string());
        const std::string kind = status == "valid" ? "" : failure_kind(r);
        BOOST_TEST((status == "valid" || kind == "compile_error" || kind == "fault"),
                   storage << "__constant__: " << json::serialize(r));
        if (kind == "compile_error")
            BOOST_TEST(failure_message(r).find(".nv.constant3") != std::string::npos, failure_message(r));
    }
}

BOOST_AUTO_TEST_CASE(the_whole_local_window_is_wiped_before_every_launch)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    // No frame at all (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES 0), yet st.local / ld.local at absolute
    // addresses at the top of the local window reach memory that outlives the launch. A launch
    // that finds the previous launch's marker there writes zeros. Only the first 132 blocks look:
    // they all start before any block of their launch ends, so what they find was left by an
    // earlier launch (a later block may reuse the slot of an earlier one of the same launch).
    const auto stash_at = [](unsigned long long address)
    {
        const std::string a = std::to_string(address) + "ull";
        return "    unsigned int v;\n"
               "    asm volatile(\"ld.local.u32 %0, [%1];\" : \"=r\"(v) : \"l\"(" +
               a +
               ") : \"memory\");\n"
               "    asm volatile(\"st.local.u32 [%0], %1;\" :: \"l\"(" +
               a +
               "), \"r\"(0x51515151u) : \"memory\");\n"
               "    if (i < n) c[i] = (v == 0x51515151u && blockIdx.x < 132) ? 0.0f : a[i] + b[i];";
    };
    const json::object top = {{"warmup", 10}, {"iterations", 100}, {"mode", "hot"}};
    require_valid(w.evaluate(vadd_candidate(stash_at((1ull << 24) - 4)), top, false, {}));

    // A kernel with a 4 KiB frame grows the context's allocation; from then on any kernel reaches
    // 4 KiB further down, and the wipe covers that too.
    const std::string big_frame =
        "    volatile float frame[1024];\n"
        "    frame[threadIdx.x % 1024] = i < n ? a[i] : 0.0f;\n"
        "    if (i < n) c[i] = frame[threadIdx.x % 1024] + b[i];";
    require_valid(w.evaluate(vadd_candidate(big_frame), quick_timing(), false, {}));
    require_valid(w.evaluate(vadd_candidate(stash_at((1ull << 24) - 4096)), top, false, {}));
}

BOOST_AUTO_TEST_CASE(device_heap_and_managed_memory_are_refused)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object heap = w.evaluate(vadd_candidate(
        "    __shared__ float* p; if (threadIdx.x == 0) p = (float*)malloc(1024); __syncthreads();\n"
        "    if (i < n) c[i] = a[i] + b[i] + (p ? 0.0f : 0.0f); __syncthreads(); if (threadIdx.x == 0) "
        "free(p);"));
    BOOST_TEST(failure_kind(heap) == "compile_error", json::serialize(heap.at("failure")));
    BOOST_TEST(failure_message(heap).find("malloc") != std::string::npos, failure_message(heap));
    const json::object managed = w.evaluate(vadd_candidate(
        "    if (i < n) c[i] = a[i] + b[i] + 0.0f * memo;", "float", "__managed__ float memo;"));
    BOOST_TEST(failure_kind(managed) == "compile_error", json::serialize(managed.at("failure")));
    BOOST_TEST(failure_message(managed).find("__managed__") != std::string::npos, failure_message(managed));
}

BOOST_AUTO_TEST_CASE(writing_into_allocation_slack_is_an_out_of_bounds_write)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    // 16 KiB past the end of c: inside its 2 MiB allocation, no fault. The tail guard runs to the
    // end of the allocation, so the first validation run already sees it.
    const json::object r = w.pipe->request({{"op", "evaluate"},
                                            {"candidate",
                                             vadd_candidate("    if (i < n) c[i] = a[i] + b[i];\n"
                                                            "    if (i == 0) c[n + 4096] = 1.0f;")},
                                            {"timing", quick_timing()}},
                                           300s);
    BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
    const json::object& result = r.at("result").as_object();
    BOOST_TEST(failure_kind(result) == "out_of_bounds_write", json::serialize(result.at("failure")));
    BOOST_TEST(failure_message(result).find("outside buffer c (4 bytes after its end") != std::string::npos,
               failure_message(result));
    const json::value* restart = r.if_contains("worker_restart");
    BOOST_TEST(!(restart && restart->is_bool() && restart->as_bool()), json::serialize(r));
}

BOOST_AUTO_TEST_CASE(a_guard_written_only_in_unchecked_launches_is_caught)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    // Warm-up launches are neither checked nor preceded by the state reset, so a module global
    // still set by the previous launch tells this kernel it is warming up; only then does it write
    // past c (inside c's tail guard). Its outputs are always right. The guard is checked before it
    // is refilled, so the write is found anyway.
    const std::string prelude = "__device__ unsigned int seen;";
    const std::string body =
        "    if (i < n) c[i] = a[i] + b[i];\n"
        "    if (i == 0) { if (seen != 0u) c[n + 1000] = 1.0f; seen = 1u; }";
    const json::object r = w.evaluate(vadd_candidate(body, "float", prelude), quick_timing(), false, {});
    BOOST_TEST(failure_kind(r) == "out_of_bounds_write", json::serialize(r.at("failure")));
    BOOST_TEST(failure_message(r).find("not checked") != std::string::npos, failure_message(r));
    // The worker keeps going: the next honest kernel is valid.
    require_valid(w.evaluate(vadd_candidate(k_correct)));
}

BOOST_AUTO_TEST_CASE(nondeterminism_and_uninitialised_shared_memory)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    // A race: every thread of a block adds into one shared word without synchronisation, and the
    // result depends on the interleaving.
    const std::string race =
        "    __shared__ float s; if (threadIdx.x == 0) s = 0.0f; __syncthreads();\n"
        "    float v = s; s = v + 1.0f; __syncthreads();\n"
        "    if (i < n) c[i] = a[i] + b[i] + (s > 200.0f ? 0.0f : 1.0f);";
    const json::object r = w.evaluate(vadd_candidate(race));
    BOOST_TEST(r.at("status").as_string() == "invalid");

    // Reading shared memory nobody wrote: the scrubber leaves garbage, so this cannot pass.
    const std::string garbage =
        "    __shared__ float s[256];\n"
        "    if (i < n) c[i] = a[i] + b[i] + (s[threadIdx.x] == 0.0f ? 0.0f : 1.0f);";
    const json::object g = w.evaluate(vadd_candidate(garbage));
    BOOST_TEST(g.at("status").as_string() == "invalid");
    const std::string kind = failure_kind(g);
    BOOST_TEST((kind == "mismatch" || kind == "nondeterministic" || kind == "nonfinite"), kind);
}

BOOST_AUTO_TEST_CASE(misbehaving_when_timed_is_a_timed_output_mismatch)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    // No state survives a launch, so a kernel cannot count its way to the unchecked launches; one
    // that skips its work by the clock (%globaltimer, about half of the 4 us slots) is caught by
    // the checked launches (9 of 100 here).
    const std::string body =
        "    unsigned long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
        "    if (((t >> 12) & 1) && blockIdx.x > 0) return;\n"
        "    if (i < n) c[i] = a[i] + b[i];";
    const json::object r =
        w.evaluate(vadd_candidate(body), {{"warmup", 10}, {"iterations", 100}}, false, {"perf"});
    BOOST_TEST(r.at("status").as_string() == "invalid", json::serialize(r));
    BOOST_TEST(r.at("score_us").is_null());
}

BOOST_AUTO_TEST_CASE(dynamic_shared_memory_opt_in_and_limits)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    // 100 KB of dynamic shared memory: legal on sm_90 after the opt-in the worker performs.
    const std::string body =
        "    extern __shared__ float s[];\n"
        "    s[threadIdx.x] = (i < n) ? a[i] + b[i] : 0.0f;\n"
        "    __syncthreads();\n"
        "    if (i < n) c[i] = s[threadIdx.x];";
    require_valid(w.evaluate(vadd_candidate(
        body, "float", "", R"J({"grid": ["ceil_div(n,256)"], "block": [256], "shared_bytes": 102400})J")));
    // 1 MiB is beyond any device: refused before launch, with the numbers.
    const json::object r = w.evaluate(vadd_candidate(
        body, "float", "", R"J({"grid": ["ceil_div(n,256)"], "block": [256], "shared_bytes": 1048576})J"));
    BOOST_TEST((failure_kind(r) == "bad_launch" || failure_kind(r) == "launch_failed"), failure_kind(r));
    BOOST_TEST(failure_message(r).find("1048576") != std::string::npos, failure_message(r));
    // Too many threads per block.
    const json::object t = w.evaluate(
        vadd_candidate(k_correct, "float", "", R"J({"grid": ["ceil_div(n,2048)"], "block": [2048]})J"));
    BOOST_TEST(failure_kind(t) == "bad_launch");
    // A plan that does not evaluate.
    const json::object e = w.evaluate(
        vadd_candidate(k_correct, "float", "", R"J({"grid": ["ceil_div(n,0)"], "block": [256]})J"));
    BOOST_TEST(failure_kind(e) == "bad_launch");
    // Compile errors and a missing entry are values too.
    json::object broken = vadd_candidate("    if (i < n) c[i] = a[i] + ;");
    BOOST_TEST(failure_kind(w.evaluate(broken)) == "compile_error");
    json::object wrong_entry = vadd_candidate(k_correct);
    wrong_entry["entry"] = "vadd2";
    BOOST_TEST(failure_kind(w.evaluate(wrong_entry)) == "compile_error");  // NVRTC checks the entry first
}

BOOST_AUTO_TEST_CASE(illegal_address_is_a_fault_and_the_worker_restarts)
{
    {
        gpu_worker w;
        w.load(vector_add_workload("float32"));
        json::object r =
            w.evaluate_raw(vadd_candidate("    if (i < n) ((float*)16)[i * 1024] = a[i] + b[i];"));
        BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
        BOOST_TEST(r.at("worker_restart").as_bool());
        const json::object& result = r.at("result").as_object();
        BOOST_TEST(failure_kind(result) == "fault");
        BOOST_TEST(failure_message(result).find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos,
                   failure_message(result));
        BOOST_TEST(result.at("failure").at("case").as_string() == "odd-small");
        BOOST_TEST(w.pipe->wait_exit(30s) == 3);
    }
    // A fresh worker is fine afterwards.
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    require_valid(w.evaluate(vadd_candidate(k_correct), quick_timing(), true));
}

BOOST_AUTO_TEST_CASE(infinite_loop_is_a_hang_and_the_worker_restarts)
{
    {
        gpu_worker w;
        w.load(vector_add_workload("float32"), 2000);
        // Spins on a value the kernel never changes; volatile keeps the loop.
        const auto t0 = std::chrono::steady_clock::now();
        json::object r = w.evaluate_raw(vadd_candidate(
            "    volatile const float* p = a; while (p[0] == p[0]) { } if (i < n) c[i] = a[i] + b[i];"));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
        BOOST_TEST(r.at("worker_restart").as_bool());
        BOOST_TEST(failure_kind(r.at("result").as_object()) == "hang");
        BOOST_TEST(seconds < 60.0);
        BOOST_TEST(w.pipe->wait_exit(60s) == 3);
    }
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    require_valid(w.evaluate(vadd_candidate(k_correct), quick_timing(), true));
}

BOOST_AUTO_TEST_CASE(timing_the_same_kernel_twice_agrees)
{
    gpu_worker w;
    w.load(vector_add_workload("float32", 1 << 24));
    const json::object timing{{"warmup", 10}, {"iterations", 100}, {"mode", "cold"}, {"target_rel_noise", 0}};
    const json::object a = w.evaluate(vadd_candidate(k_correct), timing, false, {"perf"});
    const json::object b = w.evaluate(vadd_candidate(k_correct), timing, false, {"perf"});
    require_valid(a);
    require_valid(b);
    const double ma = a.at("score_us").to_number<double>();
    const double mb = b.at("score_us").to_number<double>();
    BOOST_TEST_MESSAGE("medians: " << ma << " us, " << mb << " us");
    BOOST_TEST(std::abs(ma - mb) / std::min(ma, mb) < 0.10);
    check_timing_sane(case_named(a, "perf").at("timing").as_object(), 100);

    // Hot mode with adaptive stopping: at least 20 samples, fewer than the cap for a steady kernel.
    const json::object hot =
        w.evaluate(vadd_candidate(k_correct),
                   {{"warmup", 10}, {"iterations", 2000}, {"mode", "hot"}, {"target_rel_noise", 0.02}},
                   false,
                   {"perf"});
    require_valid(hot);
    const json::object& ht = case_named(hot, "perf").at("timing").as_object();
    BOOST_TEST(ht.at("mode").as_string() == "hot");
    BOOST_TEST(ht.at("samples").as_int64() >= 20);
    BOOST_TEST(ht.at("samples").as_int64() < 2000);
    check_timing_sane(ht, 0);
}

// Adaptive timing (the default): a decision after every segment of 20 measured launches, one more
// checked launch after a stop, and checks in every segment a case may end after.
BOOST_AUTO_TEST_CASE(adaptive_timing_stops_after_a_segment_with_every_segment_checked)
{
    gpu_worker w;
    w.load(vector_add_workload("float32", 1 << 20));
    const auto timing_of = [&](const json::object& candidate, json::object timing)
    {
        const json::object r = w.evaluate(candidate, std::move(timing), false, {"perf"});
        require_valid(r);
        json::object t = case_named(r, "perf").at("timing").as_object();
        BOOST_TEST_MESSAGE(json::serialize(t));
        return t;
    };
    // The default asks for 1%; a steady kernel reaches it after some segment (or the ceiling).
    const json::object d = timing_of(vadd_candidate(k_correct), {{"mode", "cold"}});
    BOOST_TEST(d.at("target_rel_noise").to_number<double>() == 0.01);
    const std::int64_t n = d.at("samples").as_int64();
    BOOST_TEST((n == 100 || (n % 20 == 1 && n >= 21)), n);
    BOOST_TEST(d.at("rel_noise").to_number<double>() >= 0);
    if (n < 100)
        BOOST_TEST(d.at("stopped").as_string() == "quiet");

    // A loose target: quiet after the first segment, 20 + the checked last launch; 8 + 1 checks.
    const json::object loose = timing_of(vadd_candidate(k_correct), {{"target_rel_noise", 0.5}});
    BOOST_TEST(loose.at("samples").as_int64() == 21);
    BOOST_TEST(loose.at("stopped").as_string() == "quiet");
    BOOST_TEST(loose.at("checked_launches").as_int64() == 9);

    // Dominated: a median above the engine's threshold stops after the first segment too.
    const json::object dom = timing_of(
        vadd_candidate(k_correct), {{"target_rel_noise", 0.005}, {"dominated_above_us", {{"perf", 0.001}}}});
    BOOST_TEST(dom.at("samples").as_int64() == 21);
    BOOST_TEST(dom.at("stopped").as_string() == "dominated");
    BOOST_TEST(dom.at("checked_launches").as_int64() == 9);
    // A threshold for another case changes nothing here.
    const json::object other =
        timing_of(vadd_candidate(k_correct),
                  {{"target_rel_noise", 0.5}, {"dominated_above_us", {{"odd-small", 0.001}}}});
    BOOST_TEST(other.at("stopped").as_string() == "quiet");

    // A kernel that never gets quiet (one thread spins a pseudo-random 0-48k cycles per launch):
    // timed to the ceiling, flagged, 8 checks in the first segment and 2 in each later one + last.
    const std::string jitter =
        "    if (i == 0) { long long t0 = clock64(); long long d = (t0 >> 4) % 4 * 16000;\n"
        "                  while (clock64() - t0 < d) {} }\n"
        "    if (i < n) c[i] = a[i] + b[i];";
    const json::object noisy = timing_of(vadd_candidate(jitter), {{"target_rel_noise", 0.005}});
    BOOST_TEST(noisy.at("samples").as_int64() == 100);
    BOOST_TEST(noisy.at("stopped").as_string() == "ceiling");
    BOOST_TEST(noisy.at("rel_noise").to_number<double>() >= 0.005);
    BOOST_TEST(noisy.at("checked_launches").as_int64() == 17);

    // Fixed: every launch, the checks of a fixed count.
    const json::object fixed =
        timing_of(vadd_candidate(k_correct), {{"target_rel_noise", 0}, {"iterations", 60}});
    BOOST_TEST(fixed.at("samples").as_int64() == 60);
    BOOST_TEST(fixed.at("stopped").as_string() == "fixed");
    BOOST_TEST(fixed.at("checked_launches").as_int64() == 9);
}

BOOST_AUTO_TEST_CASE(time_interleaved_times_every_entry)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object fast = vadd_candidate(k_correct);
    const json::object slow = vadd_candidate(
        "    if (i < n) { float x = a[i]; for (int k = 0; k < 2000; ++k) x = x * 0.999f + 0.001f * b[i]; "
        "c[i] = a[i] + b[i] + 0.0f * x; }");
    json::object r = w.pipe->request(
        {{"op", "time_interleaved"},
         {"rounds", 12},
         {"entries", {{{"key", "fast"}, {"candidate", fast}}, {{"key", "slow"}, {"candidate", slow}}}},
         {"timing", {{"mode", "cold"}}}},
        300s);
    BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
    const json::object& timings = r.at("timings").as_object();
    for (const char* key : {"fast", "slow"})
    {
        const json::object& t = timings.at(key).at("perf").as_object();
        BOOST_TEST(t.at("samples").as_int64() == 12);
        BOOST_TEST(t.at("median_us").to_number<double>() > 0);
    }
    BOOST_TEST(timings.at("slow").at("perf").at("median_us").to_number<double>() >
               timings.at("fast").at("perf").at("median_us").to_number<double>());
    // Duplicate keys are refused.
    json::object dup = w.pipe->request(
        {{"op", "time_interleaved"},
         {"entries", {{{"key", "x"}, {"candidate", fast}}, {{"key", "x"}, {"candidate", fast}}}}},
        60s);
    BOOST_TEST(dup.at("error").at("kind").as_string() == "bad_request");
}

BOOST_AUTO_TEST_CASE(time_interleaved_validates_and_reports_invalid_entries)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object right = vadd_candidate(k_correct);
    const json::object wrong = vadd_candidate("    if (i < n) c[i] = a[i] - b[i];");
    json::object r = w.pipe->request(
        {{"op", "time_interleaved"},
         {"rounds", 30},
         {"entries", {{{"key", "right"}, {"candidate", right}}, {{"key", "wrong"}, {"candidate", wrong}}}},
         {"timing", {{"mode", "cold"}}}},
        300s);
    BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
    const json::object& invalid = r.at("invalid").as_object();
    BOOST_TEST(!invalid.contains("right"), json::serialize(invalid));
    BOOST_TEST_REQUIRE(invalid.contains("wrong"), json::serialize(r));
    BOOST_TEST(invalid.at("wrong").at("kind").as_string() == "timed_output_mismatch");
    BOOST_TEST(std::string(invalid.at("wrong").at("message").as_string()).find("interleaved confirmation") !=
               std::string::npos);
    const json::object& t = r.at("timings").at("right").at("perf").as_object();
    BOOST_TEST(t.at("checked_launches").as_int64() == 9);
    BOOST_TEST(t.at("wall_us_per_launch").to_number<double>() > 0);
}

BOOST_AUTO_TEST_CASE(time_interleaved_blames_unchecked_guard_writes_on_the_entry_caught_writing_them)
{
    // "oob" writes inside c's tail guard on every launch, checked or not. Its checked launches
    // catch it; the guard changes its unchecked launches made are found when the guards are next
    // refilled and, since an entry was caught writing out of bounds, taken as its: the confirmation
    // stands, "right" keeps its timings and the worker does not restart.
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object right = vadd_candidate(k_correct);
    const json::object oob = vadd_candidate(
        "    if (i < n) c[i] = a[i] + b[i];\n"
        "    if (i == 0) c[n + 1000] = 1.0f;");
    json::object r = w.pipe->request(
        {{"op", "time_interleaved"},
         {"rounds", 30},
         {"entries", {{{"key", "right"}, {"candidate", right}}, {{"key", "oob"}, {"candidate", oob}}}},
         {"timing", {{"mode", "cold"}}}},
        300s);
    BOOST_TEST_REQUIRE(r.at("ok").as_bool(), json::serialize(r));
    const json::value* restart = r.if_contains("worker_restart");
    BOOST_TEST(!(restart && restart->is_bool() && restart->as_bool()), json::serialize(r));
    const json::object& invalid = r.at("invalid").as_object();
    BOOST_TEST(!invalid.contains("right"), json::serialize(invalid));
    BOOST_TEST_REQUIRE(invalid.contains("oob"), json::serialize(r));
    BOOST_TEST(invalid.at("oob").at("kind").as_string() == "out_of_bounds_write");
    BOOST_TEST(r.at("timings").at("right").at("perf").at("median_us").to_number<double>() > 0);
    // The worker goes on: an honest evaluation right after is valid.
    require_valid(w.evaluate(vadd_candidate(k_correct)));
}

BOOST_AUTO_TEST_CASE(memory_is_freed_across_evaluations_and_loads)
{
    gpu_worker w;
    w.load(vector_add_workload("float32"));
    const json::object timing{{"warmup", 1}, {"iterations", 5}};
    require_valid(w.evaluate(vadd_candidate(k_correct), timing));  // first use allocates pools
    const std::int64_t before = w.free_memory();
    for (int i = 0; i < 50; ++i)
    {
        // Alternate valid and invalid candidates: failure paths must free too.
        const json::object r =
            w.evaluate(i % 2 ? vadd_candidate(k_correct) : vadd_candidate("    (void)i;"), timing);
        BOOST_TEST_REQUIRE(r.at("status").as_string() == (i % 2 ? "valid" : "invalid"));
    }
    const std::int64_t after = w.free_memory();
    BOOST_TEST_MESSAGE("free memory before " << before << ", after " << after);
    BOOST_TEST(std::llabs(before - after) < (16ll << 20));

    // A big workload, then a small one: the big one's memory comes back.
    const std::int64_t small_loaded = w.free_memory();
    w.load(vector_add_workload("float32", 1 << 27));  // 512 MiB per buffer
    const std::int64_t big_loaded = w.free_memory();
    BOOST_TEST(small_loaded - big_loaded > (1ll << 30));
    w.load(vector_add_workload("float32"));
    BOOST_TEST(std::llabs(w.free_memory() - small_loaded) < (16ll << 20));
}

BOOST_AUTO_TEST_CASE(sgemm_workload_initial_kernel_is_valid)
{
    const auto dir = warpsmith::test::source_dir() / "bench" / "workloads" / "sgemm";
    if (!std::filesystem::exists(dir / "workload.json"))
    {
        BOOST_TEST_MESSAGE("skipped: " << (dir / "workload.json").string() << " does not exist yet");
        return;
    }
    const warpsmith::workload wl = warpsmith::workload::load(dir);
    const warpsmith::kernel_source& k = wl.initial ? *wl.initial : wl.reference;
    gpu_worker w;
    w.load(wl.to_json().as_object(), 30'000);
    const json::object r = w.evaluate(warpsmith::candidate::from_kernel(k).to_json().as_object(),
                                      {{"warmup", 2}, {"iterations", 10}});
    require_valid(r);
    BOOST_TEST_MESSAGE("sgemm initial: score " << json::serialize(r.at("score_us")) << " us");
}

BOOST_AUTO_TEST_SUITE_END()
