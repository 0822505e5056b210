// compile_pool in process mode with the real `warpsmith-worker --compile` (no GPU needed): the
// protocol round trip, compile errors as values, the shared cache.

#include "engine/executors/compile_pool.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/asio/detached.hpp>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::test;

BOOST_FIXTURE_TEST_SUITE(compile_pool_worker_suite, io_fixture)

BOOST_AUTO_TEST_CASE(compiles_through_worker_processes)
{
    temp_dir tmp;
    compile_pool_options opts;
    opts.workers = 2;
    opts.cache_dir = (tmp.path() / "cache").string();
    worker_launch l;
    l.worker_binary = (bin_dir() / "warpsmith-worker").string();
    {
        compile_pool pool(ioc, l, opts);
        std::vector<compile_output> outs(4);
        int done = 0;
        auto one = [&](int i, int value, std::string source) -> asio::awaitable<void>
        {
            compile_request r;
            r.name = "k.cu";
            r.entry = "k";
            r.source = std::move(source);
            r.options = {"-DVALUE=" + std::to_string(value)};
            outs[i] = co_await pool.compile(r);
            ++done;
        };
        auto body = [&]() -> asio::awaitable<void>
        {
            const std::string good = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = VALUE; }\n";
            asio::co_spawn(ioc, one(0, 0, good), asio::detached);
            asio::co_spawn(ioc, one(1, 1, good), asio::detached);
            asio::co_spawn(ioc,
                           one(2, 2, "extern \"C\" __global__ void k(float* x) { x[0] = nope; }\n"),
                           asio::detached);
            while (done < 3)
                co_await pause(10ms);
            // The same request again: a cache hit, from either process (the cache is shared).
            co_await one(3, 0, good);
            co_await pool.stop();
        };
        run_coro(ioc, body(), 120s);
        BOOST_TEST(outs[0].compiled, outs[0].error);
        BOOST_TEST(outs[0].cubin.rfind("\x7f"
                                       "ELF",
                                       0) == 0u);
        BOOST_TEST(outs[0].entries == std::vector<std::string>{"k"});
        BOOST_TEST(outs[1].compiled);
        BOOST_TEST(outs[1].key != outs[0].key);
        BOOST_TEST(!outs[2].compiled);
        BOOST_TEST(outs[2].log.find("nope") != std::string::npos);
        BOOST_TEST(outs[3].compiled);
        BOOST_TEST(outs[3].cache_hit);
        BOOST_TEST(outs[3].key == outs[0].key);
        BOOST_TEST(outs[3].cubin == outs[0].cubin);
    }
    drain();
}

// A kernel whose compile needs more memory than a compile worker may use: `__device__` data
// initialised in full is built into the cubin, and NVRTC needs about fourteen times its size (16 MiB
// here: about 270 MB resident without the limit). Under a 128 MiB limit NVRTC's LLVM stops with
// "out of memory"; the pool says so and names the limit, and the next kernel compiles in a new
// worker as usual. The same kernel with the default limit would compile (the limit is what fails it).
BOOST_AUTO_TEST_CASE(a_compile_past_the_memory_limit_fails_and_names_the_limit)
{
    temp_dir tmp;
    compile_pool_options opts;
    opts.workers = 1;
    opts.use_cache = false;
    opts.memory_limit_mib = 128;
    worker_launch l;
    l.worker_binary = (bin_dir() / "warpsmith-worker").string();
    {
        compile_pool pool(ioc, l, opts);
        compile_output heavy;
        compile_output light;
        auto body = [&]() -> asio::awaitable<void>
        {
            compile_request r;
            r.name = "k.cu";
            r.entry = "k";
            r.source =
                "__device__ char table[16 << 20] = {1};\n"
                "extern \"C\" __global__ void k(char* y) { y[threadIdx.x] = table[threadIdx.x * 4096]; }\n";
            heavy = co_await pool.compile(r);
            r.source = "extern \"C\" __global__ void k(char* y) { y[threadIdx.x] = 1; }\n";
            light = co_await pool.compile(r);
            co_await pool.stop();
        };
        run_coro(ioc, body(), 120s);
        BOOST_TEST(!heavy.compiled);
        BOOST_TEST(heavy.cubin.empty());
        BOOST_TEST(heavy.error.find("out of memory") != std::string::npos, heavy.error);
        BOOST_TEST(heavy.error.find("128 MiB: --compile-memory-mib") != std::string::npos, heavy.error);
        BOOST_TEST(light.compiled, light.error);
    }
    drain();
}

BOOST_AUTO_TEST_SUITE_END()
