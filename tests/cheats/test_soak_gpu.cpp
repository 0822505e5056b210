// The worker survives: WARPSMITH_SOAK_N (default 100) faulting candidates, each followed by a valid
// one, through one gpu_executor (ctest label gpu). Every 25th bad candidate hangs instead of
// faulting. Each bad candidate must be reported as its kind with a worker restart, each valid one
// valid with the same checks as before the first fault, and the GPU's free memory after the loop
// must be within 64 MiB of before it (dead workers leave nothing behind). Prints the figures
// (restart times, time per cycle); bench/cheat_recovery measures them properly.

#include "bench/support/cheat_manifest.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::cheats;
using namespace warpsmith::test;

namespace
{

int soak_n()
{
    if (const char* v = std::getenv("WARPSMITH_SOAK_N"); v && *v)
        return std::max(1, std::atoi(v));
    return 100;
}

const cheat_entry& find_entry(const std::vector<cheat_entry>& all, const std::string& name)
{
    auto it = std::find_if(all.begin(), all.end(), [&](const cheat_entry& e) { return e.name == name; });
    BOOST_REQUIRE_MESSAGE(it != all.end(), "no cheat named " + name);
    return *it;
}

std::string outcome_of(const gpu_evaluation& e)
{
    if (e.result.valid())
        return "valid";
    return e.result.failure_kind();
}

std::vector<std::size_t> runs_per_case(const gpu_evaluation& e)
{
    std::vector<std::size_t> out;
    for (const protocol::case_result& c : e.result.cases)
        out.push_back(c.validation.runs.size());
    return out;
}

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(soak_gpu, io_fixture)

BOOST_AUTO_TEST_CASE(faults_and_hangs_interleaved_with_valid_candidates)
{
    temp_dir tmp;
    const std::vector<cheat_entry> all = load_all_cheats(source_dir());
    const cheat_entry& fault = find_entry(all, "sgemm-wild-pointer");
    const cheat_entry& hang = find_entry(all, "sgemm-spin");
    const cheat_entry& valid = find_entry(all, "valid-sgemm-tiled");
    const nvrtc_compiler compiler{compile_cache(tmp.path() / "cache")};

    worker_launch launch;
    launch.worker_binary = (bin_dir() / "warpsmith-worker").string();
    launch.extra_args = {"--cache-dir", (tmp.path() / "cache").string()};
    gpu_executor_options opts;
    opts.launch_timeout = 2000ms;
    opts.request_deadline = 120s;
    gpu_executor gpu(ioc, launch, 0, opts);

    const int n = soak_n();
    std::vector<double> restart_ms, cycle_ms;
    std::uint64_t free_before = 0, free_after = 0;
    int faults = 0, hangs = 0;
    auto body = [&]() -> asio::awaitable<void>
    {
        json::object hello = co_await gpu.start();
        const std::string arch(hello.at("device").at("arch").as_string());
        const auto compile = [&](const cheat_entry& e)
        {
            const compile_output out = compiler.compile(cheat_compile_request(e, arch));
            BOOST_REQUIRE_MESSAGE(out.compiled, e.name + ": " + out.error);
            evaluate_request r;
            r.name = e.name;
            r.cand = e.cand;
            r.cubin = out.cubin;
            r.local_memory = out.local_memory;
            r.timing.warmup = 1;
            r.timing.iterations = 5;
            return r;
        };
        const evaluate_request fault_req = compile(fault);
        const evaluate_request hang_req = compile(hang);
        const evaluate_request valid_req = compile(valid);

        const workload w = workload::load(valid.workload);
        co_await gpu.load(w, 99);
        gpu_evaluation first = co_await gpu.evaluate(valid_req);
        BOOST_REQUIRE_MESSAGE(outcome_of(first) == "valid", json::serialize(first.result.to_json()));
        const std::vector<std::size_t> shape = runs_per_case(first);
        json::object dev_before = co_await gpu.device_info(false);
        free_before = dev_before.at("free_memory_bytes").to_number<std::uint64_t>();

        for (int i = 0; i < n; ++i)
        {
            const auto t0 = std::chrono::steady_clock::now();
            const bool hanging = i % 25 == 24;
            const std::string expected = hanging ? "hang" : "fault";
            gpu_evaluation bad = co_await gpu.evaluate(hanging ? hang_req : fault_req);
            BOOST_TEST(outcome_of(bad) == expected,
                       "cycle " << i << ": " << json::serialize(bad.result.to_json()));
            BOOST_TEST(bad.worker_restarted, "cycle " << i << ": no restart");
            restart_ms.push_back(bad.restart_ms);
            (hanging ? hangs : faults) += 1;
            gpu_evaluation good = co_await gpu.evaluate(valid_req);
            BOOST_TEST(outcome_of(good) == "valid",
                       "cycle " << i << ": " << json::serialize(good.result.to_json()));
            BOOST_TEST((runs_per_case(good) == shape),
                       "cycle " << i << ": the valid candidate's checks changed");
            cycle_ms.push_back(ms_between(t0, std::chrono::steady_clock::now()));
        }
        json::object dev_after = co_await gpu.device_info(false);
        free_after = dev_after.at("free_memory_bytes").to_number<std::uint64_t>();
        co_await gpu.stop();
    };
    run_coro(ioc, body(), 1200s);

    BOOST_TEST(gpu.restarts() == n);
    const double mib = 1024.0 * 1024.0;
    const double drift_mib = (static_cast<double>(free_before) - static_cast<double>(free_after)) / mib;
    BOOST_TEST(std::abs(drift_mib) <= 64.0,
               "free GPU memory moved by " << drift_mib << " MiB over " << n << " faults");
    const auto mean = [](const std::vector<double>& v)
    { return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); };
    std::printf(
        "soak: %d bad candidates (%d faults, %d hangs), each followed by a valid one\n", n, faults, hangs);
    std::printf("soak: restart_ms mean %.1f max %.1f; cycle (bad + valid) mean %.1f ms\n",
                mean(restart_ms),
                restart_ms.empty() ? 0.0 : *std::max_element(restart_ms.begin(), restart_ms.end()),
                mean(cycle_ms));
    std::printf("soak: free GPU memory before %.1f MiB, after %.1f MiB (drift %.1f MiB)\n",
                free_before / mib,
                free_after / mib,
                drift_mib);
    std::fflush(stdout);
}

BOOST_AUTO_TEST_SUITE_END()
