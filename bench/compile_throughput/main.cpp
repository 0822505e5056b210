// compile_throughput: compiles/s of the compile pool, in-process (threads sharing one process's
// NVRTC) against process mode (persistent `warpsmith-worker --compile` processes), at 1 and N
// workers. This is the measurement behind the process-pool design (SPEC §1 "Compile pool"): NVRTC
// serializes compiles inside one process on some hosts, so threads do not scale there; processes do.
//
//   compile_throughput [--kernels K] [--workers N] [--arch sm_90] [--worker PATH] [--in-process-only]
//
// Every compile is a cache miss: each configuration compiles K distinct kernels (a different -D
// each) into a fresh temporary cache directory. Process-mode workers are started and warmed up (one
// compile each) before the clock starts, as they are in a long search.

#include "engine/executors/compile_pool.hpp"
#include "engine/executors/worker_launch.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace asio = boost::asio;
namespace fs = std::filesystem;
using warpsmith::compile_output;
using warpsmith::compile_pool;
using warpsmith::compile_pool_options;
using warpsmith::compile_request;
using warpsmith::worker_launch;

namespace
{

// A small tiled GEMM: enough template-free code that NVRTC and ptxas do real work (tens of ms).
constexpr const char* kernel_source = R"(
#ifndef TILE
#define TILE 16
#endif
extern "C" __global__ void sgemm(int M, int N, int K, const float* A, const float* B, float* C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE)
    {
        As[threadIdx.y][threadIdx.x] = (row < M && t + threadIdx.x < K) ? A[row * K + t + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && t + threadIdx.y < K) ? B[(t + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x] * (1.0f + VARIANT * 1e-9f);
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
)";

struct config
{
    int kernels = 64;
    int workers = 0;
    std::string arch = "sm_90";
    std::string worker;
    bool in_process_only = false;
};

struct measurement
{
    double seconds = 0;
    int compiled = 0;
    int failed = 0;
    std::string first_error;
};

compile_request request(int variant, const std::string& arch)
{
    compile_request r;
    r.source = kernel_source;
    r.entry = "sgemm";
    r.arch = arch;
    r.name = "sgemm_" + std::to_string(variant) + ".cu";
    r.options = {"-DVARIANT=" + std::to_string(variant)};
    return r;
}

asio::awaitable<void> compile_one(compile_pool& pool, compile_request r, measurement& m, int& done)
{
    compile_output out = co_await pool.compile(std::move(r));
    if (out.compiled)
        ++m.compiled;
    else if (m.failed++ == 0)
        m.first_error = out.error;
    ++done;
}

asio::awaitable<void> run_batch(
    asio::io_context& ioc, compile_pool& pool, int first, int count, const std::string& arch, measurement& m)
{
    int done = 0;
    for (int i = 0; i < count; ++i)
        asio::co_spawn(ioc, compile_one(pool, request(first + i, arch), m, done), asio::detached);
    asio::steady_timer t(ioc);
    while (done < count)
    {
        t.expires_after(std::chrono::milliseconds(2));
        co_await t.async_wait(asio::use_awaitable);
    }
}

measurement measure(const config& cfg, bool in_process, int workers, int variant_base)
{
    auto cache =
        fs::temp_directory_path() / ("warpsmith-bench-cache-" + std::to_string(std::random_device{}()));
    compile_pool_options opts;
    opts.workers = workers;
    opts.in_process = in_process;
    opts.cache_dir = cache.string();
    worker_launch launch;
    launch.worker_binary = cfg.worker.empty() ? worker_launch::default_worker_binary() : cfg.worker;

    asio::io_context ioc;
    measurement m;
    {
        compile_pool pool(ioc, launch, opts);
        auto body = [&]() -> asio::awaitable<void>
        {
            if (!in_process)
            {
                // Start every worker process and let each pay its first NVRTC call off the clock.
                measurement warm;
                co_await run_batch(ioc, pool, variant_base + 1000000, workers, cfg.arch, warm);
            }
            auto t0 = std::chrono::steady_clock::now();
            co_await run_batch(ioc, pool, variant_base, cfg.kernels, cfg.arch, m);
            m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            co_await pool.stop();
        };
        std::exception_ptr error;
        auto on_done = [&](std::exception_ptr e) { error = e; };
        asio::co_spawn(ioc, body(), on_done);
        ioc.run();
        if (error)
            std::rethrow_exception(error);
    }
    std::error_code ec;
    fs::remove_all(cache, ec);
    return m;
}

void report(const char* mode, int workers, const measurement& m)
{
    std::printf(
        "%-12s %3d %-9s %5d compiles in %7.2f s = %8.1f compiles/s",
        mode,
        workers,
        workers == 1 ? (mode[0] == 'i' ? "thread" : "process") : (mode[0] == 'i' ? "threads" : "processes"),
        m.compiled,
        m.seconds,
        m.seconds > 0 ? m.compiled / m.seconds : 0.0);
    if (m.failed)
        std::printf("  (%d failed: %s)", m.failed, m.first_error.c_str());
    std::printf("\n");
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv)
{
    config cfg;
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        auto value = [&]() -> std::string
        {
            if (i + 1 >= argc)
            {
                std::fprintf(stderr, "compile_throughput: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--kernels")
            cfg.kernels = std::atoi(value().c_str());
        else if (a == "--workers")
            cfg.workers = std::atoi(value().c_str());
        else if (a == "--arch")
            cfg.arch = value();
        else if (a == "--worker")
            cfg.worker = value();
        else if (a == "--in-process-only")
            cfg.in_process_only = true;
        else
        {
            std::fprintf(
                stderr,
                "usage: compile_throughput [--kernels K] [--workers N] [--arch sm_90] [--worker PATH] "
                "[--in-process-only]\n");
            return 2;
        }
    }
    if (cfg.workers <= 0)
        cfg.workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (cfg.kernels <= 0)
        cfg.kernels = 1;

    std::printf("compile_throughput: %d distinct kernels per configuration, %s, N = %d\n",
                cfg.kernels,
                cfg.arch.c_str(),
                cfg.workers);
    try
    {
        int base = 0;
        for (int n : {1, cfg.workers})
        {
            report("in-process", n, measure(cfg, true, n, base));
            base += cfg.kernels;
        }
        if (!cfg.in_process_only)
            for (int n : {1, cfg.workers})
            {
                report("process", n, measure(cfg, false, n, base));
                base += cfg.kernels;
            }
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "compile_throughput: %s\n", e.what());
        return 1;
    }
    return 0;
}
