// pipeline_bench: how well the search loop overlaps model waits, compiles and GPU time
// (SPEC §1 "Overlap"; the derivation of the ideal times is in docs/engine.md, "Pipeline benchmark").
//
// The real engine (search_engine, scripted provider, run directory and journal) drives the
// simulated backend with fixed latencies: model 2 s per proposal, compile 100 ms, GPU 200 ms per
// candidate (scaled by --time-scale), one GPU, enough compile workers. For each configuration it
// prints the measured wall time, the ideal critical-path time, their ratio, the speedup over one
// branch, and the GPU busy fraction (whole run, and steady state: from the first candidate on the
// GPU to the last). --virtual runs on the virtual clock instead, where the engine's own overhead
// costs nothing: the times then equal the ideal exactly, which checks the formulas.
//
//   pipeline_bench [--time-scale 1.0] [--candidates 32] [--branches 1,2,4,8] [--async 8,16] [--virtual]

#include "agents/providers/scripted_strategy.hpp"
#include "engine/run/journal.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/search/clock.hpp"
#include "engine/search/search_engine.hpp"
#include "engine/search/simulated_backend.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;

namespace
{

struct bench_config
{
    double scale = 1.0;
    int candidates = 32;
    std::vector<int> branches{1, 2, 4, 8};
    std::vector<int> async{8, 16};
    bool virtual_clock_only = false;
    double model_s = 2.0, compile_s = 0.1, gpu_s = 0.2;  // at scale 1
};

struct outcome
{
    std::string mode;
    int n = 0;
    int candidates = 0;
    double wall = 0;
    double ideal = 0;
    double busy = 0;
    double steady_busy = 0;
};

const char* kernel_body =
    "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
    "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n";

workload bench_workload()
{
    json::object w{
        {"name", "vadd"},
        {"signature",
         json::object{
             {"entry", "vadd"},
             {"params",
              json::array{
                  json::object{{"name", "n"}, {"kind", "scalar"}, {"type", "int32"}},
                  json::object{
                      {"name", "a"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "in"}, {"count", "n"}},
                  json::object{
                      {"name", "b"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "in"}, {"count", "n"}},
                  json::object{{"name", "c"},
                               {"kind", "buffer"},
                               {"type", "float32"},
                               {"dir", "out"},
                               {"count", "n"}}}}}},
        {"cases",
         json::array{
             json::object{{"name", "odd"}, {"role", "correctness"}, {"values", json::object{{"n", 1001}}}},
             json::object{
                 {"name", "big"}, {"role", "performance"}, {"values", json::object{{"n", 1 << 22}}}}}},
        {"reference_source", std::string("// FAKE: median_us=200\n") + kernel_body},
        {"launch", json::object{{"grid", json::array{"ceil_div(n,256)"}}, {"block", json::array{256}}}}};
    return workload::from_json(w, fs::current_path(), "pipeline_bench workload");
}

std::chrono::nanoseconds secs(double s)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
}

/// The ideal critical path (docs/engine.md): start-up (reference compile + evaluation), then
/// barrier mode: K/B iterations of (model + compile + B x GPU); asynchronous mode: the larger of
/// the GPU-bound time (model + compile + K x GPU) and the slot-bound time
/// (K/N rounds of model + compile + GPU, plus the (N-1) x GPU stagger of the first round).
double ideal_time(const bench_config& c, bool async, int n)
{
    const double m = c.model_s * c.scale, cc = c.compile_s * c.scale, g = c.gpu_s * c.scale;
    const double startup = cc + g;
    const double k = c.candidates;
    if (!async)
        return startup + (k / n) * (m + cc + n * g);
    return startup + std::max(m + cc + k * g, (k / n) * (m + cc + g) + (n - 1) * g);
}

outcome run_one(const bench_config& c, bool async, int n, bool use_virtual, const fs::path& scratch)
{
    asio::io_context ioc;
    std::unique_ptr<clock_source> clock;
    virtual_clock* vclock = nullptr;
    if (use_virtual)
    {
        auto v = std::make_unique<virtual_clock>(ioc);
        vclock = v.get();
        clock = std::move(v);
    }
    else
        clock = std::make_unique<steady_clock_source>();

    const auto dir =
        scratch / ((async ? "async-" : "barrier-") + std::to_string(n) + (use_virtual ? "-virtual" : ""));
    fs::create_directories(dir / "candidates");
    for (int i = 0; i < c.candidates; ++i)
    {
        char name[32];
        std::snprintf(name, sizeof name, "k%03d.cu", i);
        write_file_atomic(dir / "candidates" / name,
                          "// FAKE: median_us=" + std::to_string(150 - i) + "\n" + kernel_body);
    }
    const workload w = bench_workload();

    simulated_backend_options bo;
    bo.gpus = 1;
    bo.compile_workers = std::max(8, n);
    bo.compile_latency = secs(c.compile_s * c.scale);
    bo.gpu_latency = secs(c.gpu_s * c.scale);
    simulated_backend backend(ioc, *clock, bo);

    scripted_options so;
    so.dir = dir / "candidates";
    so.latency = secs(c.model_s * c.scale);
    clock_source* clk = clock.get();
    so.sleep = [clk](std::chrono::nanoseconds d) { return clk->sleep_for(d); };
    scripted_strategy strat(w, so);

    search_options o;
    o.branches = n;
    o.async = async;
    o.budgets.candidates = c.candidates;
    o.budgets.iterations = (c.candidates + n - 1) / n;
    o.confirm_top = 0;
    o.timing.iterations = 100;

    auto run = run_directory::create(dir / "results");
    journal_writer journal(run.journal_path(), 1);
    search_engine engine(
        ioc, backend, strat, *clock, w, o, run, journal, json::object{{"tool", "pipeline_bench"}});
    std::optional<search_result> result;
    std::exception_ptr error;
    auto done = [&](std::exception_ptr e, search_result r)
    {
        error = e;
        if (!e)
            result = std::move(r);
    };
    asio::co_spawn(ioc, engine.run(), done);
    if (vclock)
    {
        if (!vclock->run_until([&] { return result.has_value() || error != nullptr; }))
            throw std::runtime_error("the simulated search deadlocked");
    }
    else
        ioc.run();
    if (error)
        std::rethrow_exception(error);

    outcome out;
    out.mode = async ? "async" : "barrier";
    out.n = n;
    out.candidates = static_cast<int>(result->summary.at("candidates").at("evaluated").as_int64());
    out.wall = result->summary.at("wall_seconds").to_number<double>();
    out.ideal = ideal_time(c, async, n);
    out.busy = result->summary.at("gpu_busy_fraction").to_number<double>();
    // Steady state: from the first candidate on the GPU to the last one off it.
    double first = -1, last = 0, busy = 0, started = 0;
    for (const auto& e : backend.events())
    {
        if (e.name == "reference" || e.name == "confirmation")
            continue;
        if (e.kind == "gpu_start")
        {
            if (first < 0)
                first = e.t;
            started = e.t;
        }
        else if (e.kind == "gpu_end")
        {
            busy += e.t - started;
            last = e.t;
        }
    }
    out.steady_busy = last > first && first >= 0 ? busy / (last - first) : 0;
    return out;
}

std::vector<int> parse_list(const std::string& text)
{
    std::vector<int> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(std::stoi(item));
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    bench_config c;
    try
    {
        for (int i = 1; i < argc; ++i)
        {
            const std::string a = argv[i];
            auto next = [&]() -> std::string
            {
                if (i + 1 >= argc)
                    throw user_error(a + " needs a value");
                return argv[++i];
            };
            if (a == "--time-scale")
                c.scale = std::stod(next());
            else if (a == "--candidates")
                c.candidates = std::stoi(next());
            else if (a == "--branches")
                c.branches = parse_list(next());
            else if (a == "--async")
                c.async = parse_list(next());
            else if (a == "--virtual")
                c.virtual_clock_only = true;
            else if (a == "-h" || a == "--help")
            {
                std::puts(
                    "pipeline_bench [--time-scale S] [--candidates K] [--branches 1,2,4,8] [--async 8,16] "
                    "[--virtual]\n"
                    "Latencies at scale 1: model 2 s, compile 100 ms, GPU 200 ms; one GPU.\n"
                    "Example: pipeline_bench --time-scale 0.1");
                return 0;
            }
            else
                throw user_error("unknown option " + a);
        }
        if (c.scale <= 0 || c.candidates <= 0)
            throw user_error("--time-scale and --candidates must be positive");
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "pipeline_bench: %s\n", e.what());
        return 2;
    }

    const auto scratch =
        fs::temp_directory_path() / ("pipeline-bench-" + std::to_string(std::random_device{}()));
    std::printf(
        "pipeline_bench: %d candidates; model %.3f s, compile %.3f s, GPU %.3f s per candidate; 1 GPU; %s "
        "clock\n",
        c.candidates,
        c.model_s * c.scale,
        c.compile_s * c.scale,
        c.gpu_s * c.scale,
        c.virtual_clock_only ? "virtual" : "real");
    std::printf("%-8s %4s %6s %9s %9s %10s %12s %9s %11s\n",
                "mode",
                "B/N",
                "cands",
                "wall_s",
                "ideal_s",
                "wall/ideal",
                "speedup_vs_1",
                "gpu_busy",
                "gpu_steady");
    bool ok = true;
    double base = 0;
    auto report = [&](const outcome& o)
    {
        if (o.mode == "barrier" && o.n == 1)
            base = o.wall;
        const double ratio = o.wall / o.ideal;
        std::printf("%-8s %4d %6d %9.3f %9.3f %10.3f %12s %8.1f%% %10.1f%%\n",
                    o.mode.c_str(),
                    o.n,
                    o.candidates,
                    o.wall,
                    o.ideal,
                    ratio,
                    base > 0 ? (std::to_string(base / o.wall).substr(0, 5) + "x").c_str() : "-",
                    100 * o.busy,
                    100 * o.steady_busy);
        std::fflush(stdout);
        if (ratio > 1.10)
        {
            ok = false;
            std::printf("  ^ wall time more than 10%% above the ideal\n");
        }
        // GPU-bound: a slot's cycle (model + compile + GPU) is shorter than N candidates on the GPU.
        const double m = c.model_s, cc = c.compile_s, g = c.gpu_s;
        if (o.mode == "async" && o.n * g >= m + cc + g && o.steady_busy < 0.95)
        {
            ok = false;
            std::printf("  ^ the GPU is the bottleneck but busy less than 95%% of the steady state\n");
        }
    };
    try
    {
        for (int b : c.branches)
            report(run_one(c, false, b, c.virtual_clock_only, scratch));
        for (int n : c.async)
            report(run_one(c, true, n, c.virtual_clock_only, scratch));
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "pipeline_bench: %s\n", e.what());
        std::error_code ec;
        fs::remove_all(scratch, ec);
        return 1;
    }
    std::error_code ec;
    fs::remove_all(scratch, ec);
    std::printf("%s\n",
                ok ? "targets met: wall within 10% of ideal; GPU busy >= 95% when it is the bottleneck"
                   : "targets NOT met");
    return ok ? 0 : 1;
}
