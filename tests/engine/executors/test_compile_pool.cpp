// compile_pool in both modes: process mode against the fake compile worker (concurrency limit,
// FIFO dispatch, a dying worker restarted), in-process mode with real NVRTC (no GPU needed).

#include "engine/executors/compile_pool.hpp"
#include "harness/core/error.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/asio/detached.hpp>

#include <algorithm>
#include <set>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

compile_request kernel_request(const std::string& name, const std::string& marker = "")
{
    compile_request r;
    r.name = name;
    r.entry = "k";
    r.source = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = " + std::to_string(name.size()) +
               ".0f; }\n// " + name + " " + marker + "\n";
    return r;
}

/// Largest number of compile_begin..compile_end intervals open at once in the fake's log.
int max_overlap(const std::vector<fake_event>& events)
{
    int open = 0, most = 0;
    for (const auto& e : events)
    {
        if (e.event == "compile_begin")
            most = std::max(most, ++open);
        else if (e.event == "compile_end")
            --open;
    }
    return most;
}

struct pool_fixture : io_fixture
{
    temp_dir tmp;
    std::filesystem::path log = tmp.path() / "events.log";

    worker_launch launch(std::vector<std::string> extra = {})
    {
        worker_launch l;
        l.worker_binary = fake_worker_path();
        l.extra_args = {"--log", log.string()};
        l.extra_args.insert(l.extra_args.end(), extra.begin(), extra.end());
        return l;
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(compile_pool_suite, pool_fixture)

BOOST_AUTO_TEST_CASE(process_mode_respects_the_concurrency_limit)
{
    compile_pool_options opts;
    opts.workers = 2;
    opts.cache_dir = (tmp.path() / "cache").string();
    {
        compile_pool pool(ioc, launch({"--compile-ms", "60"}), opts);
        BOOST_TEST(pool.workers() == 2);
        std::vector<std::string> done;
        int max_in_flight = 0;
        auto one = [&](std::string name) -> asio::awaitable<void>
        {
            auto out = co_await pool.compile(kernel_request(name));
            BOOST_TEST(out.compiled);
            BOOST_TEST(out.cubin.rfind("FAKE-CUBIN\n", 0) == 0u);
            BOOST_TEST(out.entries == std::vector<std::string>{"k"});
            done.push_back(name);
        };
        auto body = [&]() -> asio::awaitable<void>
        {
            for (int i = 0; i < 6; ++i)
                asio::co_spawn(ioc, one("k" + std::to_string(i)), asio::detached);
            while (done.size() < 6)
            {
                max_in_flight = std::max(max_in_flight, pool.in_flight());
                co_await pause(5ms);
            }
            co_await pool.stop();
        };
        run_coro(ioc, body());
        BOOST_TEST(done.size() == 6u);
        BOOST_TEST(max_in_flight == 2);
    }
    drain();
    auto events = read_fake_log(log);
    BOOST_TEST(max_overlap(events) <= 2);
    // Two persistent processes did all the work, and each was told where the shared cache is.
    std::set<int> pids;
    for (const auto& e : events_named(events, "compile_begin"))
        pids.insert(e.pid);
    BOOST_TEST(pids.size() == 2u);
    BOOST_TEST(events_named(events, "start").size() == 2u);
    BOOST_TEST(events_named(events, "compile_begin").size() == 6u);
}

BOOST_AUTO_TEST_CASE(waiting_compiles_are_served_in_fifo_order)
{
    compile_pool_options opts;
    opts.workers = 1;
    opts.use_cache = false;
    {
        compile_pool pool(ioc, launch({"--compile-ms", "10"}), opts);
        int done = 0;
        auto one = [&](std::string name) -> asio::awaitable<void>
        {
            co_await pool.compile(kernel_request(name));
            ++done;
        };
        auto body = [&]() -> asio::awaitable<void>
        {
            for (int i = 0; i < 5; ++i)
                asio::co_spawn(ioc, one("k" + std::to_string(i)), asio::detached);
            while (done < 5)
                co_await pause(5ms);
            co_await pool.stop();
        };
        run_coro(ioc, body());
    }
    drain();
    // One worker: the order it saw is the order the pool dispatched.
    auto begins = events_named(read_fake_log(log), "compile_begin");
    BOOST_REQUIRE(begins.size() == 5u);
    for (int i = 0; i < 5; ++i)
        BOOST_TEST(begins[i].name == "k" + std::to_string(i));
}

BOOST_AUTO_TEST_CASE(compile_errors_are_values)
{
    compile_pool_options opts;
    opts.workers = 1;
    opts.use_cache = false;
    {
        compile_pool pool(ioc, launch(), opts);
        auto body = [&]() -> asio::awaitable<compile_output>
        {
            auto out = co_await pool.compile(kernel_request("bad.cu", "FAKE: compile_error"));
            co_await pool.stop();
            co_return out;
        };
        auto out = run_coro(ioc, body());
        BOOST_TEST(!out.compiled);
        BOOST_TEST(out.error == "fake compile error");
        BOOST_TEST(out.log.find("bad.cu(1): error") != std::string::npos);
    }
    drain();
}

BOOST_AUTO_TEST_CASE(a_dying_compile_worker_is_restarted)
{
    compile_pool_options opts;
    opts.workers = 1;
    opts.use_cache = false;
    auto flag = tmp.path() / "crashed-once";
    {
        compile_pool pool(ioc, launch(), opts);
        auto body = [&]() -> asio::awaitable<std::vector<compile_output>>
        {
            std::vector<compile_output> outs;
            // Crashes once, then compiles on the retry in a fresh worker.
            outs.push_back(co_await pool.compile(
                kernel_request("once.cu", "FAKE: compile_crash_once=" + flag.string())));
            // Crashes every time: a value saying so, not an exception.
            outs.push_back(co_await pool.compile(kernel_request("always.cu", "FAKE: compile_crash")));
            // And the pool still works afterwards.
            outs.push_back(co_await pool.compile(kernel_request("fine.cu")));
            co_await pool.stop();
            co_return outs;
        };
        auto outs = run_coro(ioc, body());
        BOOST_TEST(outs[0].compiled);
        BOOST_TEST(!outs[1].compiled);
        BOOST_TEST(outs[1].error.find("died twice") != std::string::npos);
        BOOST_TEST(outs[2].compiled);
    }
    drain();
    BOOST_TEST(std::filesystem::exists(flag));
    // Start, crash (once.cu), start, ok; crash, start, crash (always.cu); start, ok (fine.cu).
    auto events = read_fake_log(log);
    BOOST_TEST(events_named(events, "start").size() == 4u);
    BOOST_TEST(events_named(events, "crash").size() == 3u);
}

BOOST_AUTO_TEST_CASE(missing_compile_worker_is_a_user_error)
{
    compile_pool_options opts;
    opts.workers = 1;
    {
        worker_launch l;
        l.worker_binary = "/nonexistent/warpsmith-worker";
        compile_pool pool(ioc, l, opts);
        auto body = [&]() -> asio::awaitable<void> { co_await pool.compile(kernel_request("x.cu")); };
        BOOST_CHECK_THROW(run_coro(ioc, body()), user_error);
    }
    drain();
}

BOOST_AUTO_TEST_CASE(in_process_mode_compiles_with_nvrtc)
{
    compile_pool_options opts;
    opts.workers = 2;
    opts.in_process = true;
    opts.cache_dir = (tmp.path() / "cache").string();
    {
        compile_pool pool(ioc, worker_launch{}, opts);
        auto body = [&]() -> asio::awaitable<std::vector<compile_output>>
        {
            std::vector<compile_output> outs;
            outs.push_back(co_await pool.compile(kernel_request("real.cu")));
            outs.push_back(co_await pool.compile(kernel_request("real.cu")));  // a cache hit
            compile_request broken = kernel_request("broken.cu");
            broken.source += "this is not CUDA;\n";
            outs.push_back(co_await pool.compile(broken));
            co_await pool.stop();
            co_return outs;
        };
        auto outs = run_coro(ioc, body(), 120s);
        BOOST_TEST(outs[0].compiled);
        BOOST_TEST(!outs[0].cubin.empty());
        BOOST_TEST(outs[0].cubin.rfind("\x7f"
                                       "ELF",
                                       0) == 0u);
        BOOST_TEST(outs[0].entries == std::vector<std::string>{"k"});
        BOOST_TEST(outs[0].resources.registers > 0);
        BOOST_TEST(!outs[0].cache_hit);
        BOOST_TEST(outs[1].cache_hit);
        BOOST_TEST(outs[1].cubin == outs[0].cubin);
        BOOST_TEST(!outs[2].compiled);
        BOOST_TEST(outs[2].log.find("broken.cu") != std::string::npos);
    }
    drain();
}

BOOST_AUTO_TEST_SUITE_END()
