// harness_overhead: evaluates the same small kernel N times through one persistent
// warpsmith-worker and through a fresh worker per candidate (spawn, hello, load_workload,
// evaluate, shutdown), and prints the cost per candidate, the kernel's own GPU time, the overhead
// beyond it, the ratio, and where the time goes (compile-cache hit, module load, validation,
// timing, L2 scrubs). Performance figures live here, never in tests (SPEC §9).
//
// It talks to the worker through the engine's own client (engine/executors/worker_process: Boost.Process
// v2, Asio pipes, a deadline per request), so "per candidate (client)" is what the GPU executor pays.

#include "engine/executors/worker_launch.hpp"
#include "engine/executors/worker_process.hpp"
#include "harness/core/defaults.hpp"
#include "harness/core/elapsed.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/timing/timing_stats.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using warpsmith::worker_process;
using clock_type = std::chrono::steady_clock;

namespace
{

constexpr const char* k_help =
    R"(harness_overhead: the harness's cost per candidate, persistent vs fresh worker.

Usage: harness_overhead [options]
  --n N              candidates per mode (default 50)
  --fresh N          candidates through a fresh worker each (default: same as --n)
  --iterations I     timed launches per candidate (default 100)
  --warmup W         warm-up launches (default 10)
  --mode cold|hot    timing mode (default cold: L2 scrub before each timed launch)
  --target-noise X   adaptive stop target (default 0.01, the worker's; 0: every launch)
  --elements E       elements of the performance case (default 1048576)
  --device K         GPU (default 0)
  --source           send kernel source (worker compiles; cache hit) instead of a cubin
  --worker PATH      warpsmith-worker binary (default: next to this program, else on PATH)

Example:
  build/bin/harness_overhead --n 50 --iterations 100
)";

struct options
{
    int n = 50;
    int fresh = -1;
    int iterations = 100;
    int warmup = 10;
    std::string mode = "cold";
    double target_noise = warpsmith::default_target_rel_noise;
    long long elements = 1 << 20;
    int device = 0;
    bool source = false;
    std::string worker;
};

int to_int(const std::string& flag, const std::string& v)
{
    try
    {
        std::size_t used = 0;
        const long long x = std::stoll(v, &used);
        if (used == v.size() && x >= 0 && x <= (1ll << 40))
            return static_cast<int>(x);
    }
    catch (const std::exception&)
    {
    }
    throw warpsmith::user_error(flag + ": '" + v + "' is not a non-negative integer");
}

options parse(int argc, char** argv)
{
    options o;
    o.worker = warpsmith::worker_launch::default_worker_binary();
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string
        {
            if (i + 1 >= argc)
                throw warpsmith::user_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h")
        {
            std::fputs(k_help, stdout);
            std::exit(0);
        }
        else if (a == "--n")
            o.n = to_int(a, value());
        else if (a == "--fresh")
            o.fresh = to_int(a, value());
        else if (a == "--iterations")
            o.iterations = std::max(1, to_int(a, value()));
        else if (a == "--warmup")
            o.warmup = to_int(a, value());
        else if (a == "--target-noise")
        {
            o.target_noise = std::stod(value());
            if (!(o.target_noise >= 0))
                throw warpsmith::user_error("--target-noise must be >= 0");
        }
        else if (a == "--mode")
        {
            o.mode = value();
            if (o.mode != "cold" && o.mode != "hot")
                throw warpsmith::user_error("--mode must be cold or hot");
        }
        else if (a == "--elements")
            o.elements = std::max(1, to_int(a, value()));
        else if (a == "--device")
            o.device = to_int(a, value());
        else if (a == "--source")
            o.source = true;
        else if (a == "--worker")
            o.worker = value();
        else
            throw warpsmith::user_error("unknown option '" + a + "' (see --help)");
    }
    if (o.fresh < 0)
        o.fresh = o.n;
    return o;
}

const char* k_kernel =
    "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
    "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n";

json::object workload(long long elements)
{
    return json::object{
        {"name", "harness_overhead_vadd"},
        {"signature",
         {{"entry", "vadd"},
          {"params",
           {{{"name", "n"}, {"kind", "scalar"}, {"type", "int32"}},
            {{"name", "a"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "in"}, {"count", "n"}},
            {{"name", "b"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "in"}, {"count", "n"}},
            {{"name", "c"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "out"}, {"count", "n"}}}}}},
        {"tolerance", {{"rtol", 1e-5}, {"atol", 1e-5}}},
        {"cases",
         {{{"name", "odd-small"}, {"values", {{"n", 1237}}}},
          {{"name", "perf"}, {"role", "performance"}, {"values", {{"n", elements}}}}}},
        {"reference_source", k_kernel},
        {"launch", {{"grid", {"ceil_div(n,256)"}}, {"block", {256}}}}};
}

json::object must(const json::object& r, const char* what)
{
    if (!r.at("ok").as_bool())
        throw std::runtime_error(std::string(what) + " failed: " + json::serialize(r));
    return r;
}

/// One request through the worker_process; throws when the worker answers "ok": false.
asio::awaitable<json::object> call(worker_process& w,
                                   json::object req,
                                   const char* what,
                                   std::chrono::milliseconds deadline = 300s)
{
    const json::object r = co_await w.request(std::move(req), deadline);
    co_return must(r, what);
}

using warpsmith::ms_since;

struct summary
{
    std::vector<double> values;
    void add(double v) { values.push_back(v); }
    double mean() const
    {
        double s = 0;
        for (double v : values)
            s += v;
        return values.empty() ? 0 : s / static_cast<double>(values.size());
    }
    double median() const
    {
        if (values.empty())
            return 0;
        std::vector<double> v = values;
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    }
    double min() const { return values.empty() ? 0 : *std::min_element(values.begin(), values.end()); }
    double max() const { return values.empty() ? 0 : *std::max_element(values.begin(), values.end()); }
    /// The sample standard deviation (0 for fewer than two values) of non-negative figures.
    double stddev() const
    {
        return values.empty() ? 0 : warpsmith::timing_stats::from_samples(values).stddev_us;
    }
};

double number(const json::value& v)
{
    return v.is_number() ? v.to_number<double>() : 0.0;
}

/// Both modes, then the report. Runs on the io_context's single thread.
asio::awaitable<void> run(const options o)
{
    const asio::any_io_executor ex = co_await asio::this_coro::executor;
    const std::vector<std::string> argv_worker{
        o.worker, "--device", std::to_string(o.device), "--log-level", "warn"};
    const json::object timing{{"warmup", o.warmup},
                              {"iterations", o.iterations},
                              {"mode", o.mode},
                              {"target_rel_noise", o.target_noise}};
    const json::object wl = workload(o.elements);
    const json::object load_workload{{"op", "load_workload"}, {"workload", wl}, {"hidden_seed", 7}};

    // ---- persistent worker ----
    worker_process w(ex, argv_worker, "gpu" + std::to_string(o.device));
    const json::object hello = co_await w.start(300s);  // throws when the worker refuses to start
    std::printf("device: %s, worker %s, driver %s, NVRTC %s\n",
                std::string(hello.at("device").at("name").as_string()).c_str(),
                std::string(hello.at("worker_version").as_string()).c_str(),
                std::string(hello.at("driver_version").as_string()).c_str(),
                std::string(hello.at("nvrtc_version").as_string()).c_str());
    co_await call(w, load_workload, "load_workload");

    json::object candidate{{"entry", "vadd"}, {"launch", {{"grid", {"ceil_div(n,256)"}}, {"block", {256}}}}};
    if (o.source)
        candidate["source"] = k_kernel;
    else
    {
        const json::object compile_req{
            {"op", "compile"},
            {"request", {{"source", k_kernel}, {"entry", "vadd"}, {"arch", hello.at("device").at("arch")}}}};
        const json::object c = co_await call(w, compile_req, "compile");
        candidate["cubin_b64"] = c.at("output").at("cubin_b64");
        candidate["local_memory"] = c.at("output").at("local_memory");
    }
    const json::object evaluate{
        {"op", "evaluate"}, {"name", "bench"}, {"candidate", candidate}, {"timing", timing}};
    co_await call(w, evaluate, "warm-up evaluate");  // first use allocates pools, fills caches

    summary round_trip, eval, kernel, compile, load, validate, time_phase, scrub, seal;
    summary response;                           // round trip minus the worker's eval_ms
    std::map<std::string, summary> all_phases;  // every phases_ms entry, as the worker names it
    // The performance case's timing: launches measured, achieved noise, median; how it stopped.
    summary launches, noise, median;
    std::map<std::string, int> stops;
    for (int i = 0; i < o.n; ++i)
    {
        const auto t0 = clock_type::now();
        const json::object r = co_await call(w, evaluate, "evaluate");
        round_trip.add(ms_since(t0));
        const json::object& result = r.at("result").as_object();
        if (result.at("status").as_string() != "valid")
            throw std::runtime_error("the benchmark kernel is invalid: " +
                                     json::serialize(result.at("failure")));
        const json::object& p = result.at("phases_ms").as_object();
        eval.add(number(result.at("eval_ms")));
        kernel.add(number(p.at("kernel_gpu_ms")));
        compile.add(number(p.at("compile_ms")));
        load.add(number(p.at("load_ms")));
        validate.add(number(p.at("validate_ms")));
        time_phase.add(number(p.at("time_ms")));
        scrub.add(number(p.at("l2_scrub_ms")));
        if (const json::value* v = p.if_contains("seal_ms"))
            seal.add(number(*v));
        for (const auto& [key, value] : p)
            all_phases[std::string(key)].add(number(value));
        response.add(ms_since(t0) - number(result.at("eval_ms")));
        for (const json::value& c : result.at("cases").as_array())
            if (const json::value* t = c.as_object().if_contains("timing"); t && t->is_object())
            {
                const json::object& to = t->as_object();
                launches.add(number(to.at("samples")));
                noise.add(number(to.at("rel_noise")));
                median.add(number(to.at("median_us")));
                ++stops[std::string(to.at("stopped").as_string())];
            }
    }
    co_await w.stop(30s);  // shutdown request, then wait for the exit

    // ---- fresh worker per candidate ----
    summary fresh_total, fresh_start, fresh_load, fresh_eval, fresh_stop;
    for (int i = 0; i < o.fresh; ++i)
    {
        const auto t0 = clock_type::now();
        worker_process f(ex, argv_worker, "fresh" + std::to_string(i));
        co_await f.start(300s);
        const double started = ms_since(t0);
        const auto t1 = clock_type::now();
        co_await call(f, load_workload, "load_workload");
        const double loaded = ms_since(t1);
        const auto t2 = clock_type::now();
        co_await call(f, evaluate, "evaluate");
        const double evaluated = ms_since(t2);
        const auto t3 = clock_type::now();
        co_await f.stop(30s);
        fresh_stop.add(ms_since(t3));
        fresh_total.add(ms_since(t0));
        fresh_start.add(started);
        fresh_load.add(loaded);
        fresh_eval.add(evaluated);
    }

    const double overhead = round_trip.mean() - kernel.mean();
    std::printf("\n%d candidates, %d warm-up + %d timed launches (%s), perf case of %lld elements, %s\n",
                o.n,
                o.warmup,
                o.iterations,
                o.mode.c_str(),
                o.elements,
                o.source ? "source (compile cache)" : "cubin");
    std::printf("\npersistent worker          mean ms  median ms\n");
    std::printf("  per candidate (client)  %8.3f  %8.3f\n", round_trip.mean(), round_trip.median());
    std::printf("  eval_ms (worker)        %8.3f  %8.3f\n", eval.mean(), eval.median());
    std::printf("    compile / cache hit   %8.3f  %8.3f\n", compile.mean(), compile.median());
    std::printf("    module load           %8.3f  %8.3f\n", load.mean(), load.median());
    std::printf("    validation runs       %8.3f  %8.3f\n", validate.mean(), validate.median());
    std::printf("    timing                %8.3f  %8.3f\n", time_phase.mean(), time_phase.median());
    std::printf("      of which L2 scrubs  %8.3f  %8.3f\n", scrub.mean(), scrub.median());
    std::printf("    seal check            %8.3f  %8.3f\n", seal.mean(), seal.median());
    std::printf("  kernel's own GPU time   %8.3f  %8.3f\n", kernel.mean(), kernel.median());
    std::printf("  overhead beyond kernel  %8.3f            (goal < 5 ms: %s)\n",
                overhead,
                overhead < 5.0 ? "met" : "missed");
    std::printf("  overhead without scrubs %8.3f\n", overhead - scrub.mean());
    std::printf("  round trip - eval_ms    %8.3f  %8.3f\n", response.mean(), response.median());
    std::printf("\nphases_ms as the worker reports them   mean ms  median ms\n");
    for (const auto& [key, s] : all_phases)
        std::printf("  %-32s %8.3f  %8.3f\n", key.c_str(), s.mean(), s.median());
    std::printf("\nperformance case (target noise %g)  mean  median  min  max\n", o.target_noise);
    std::printf("  measured launches       %8.1f  %8.1f  %8.1f  %8.1f\n",
                launches.mean(),
                launches.median(),
                launches.min(),
                launches.max());
    std::printf("  achieved noise (%%)      %8.3f  %8.3f  %8.3f  %8.3f\n",
                100 * noise.mean(),
                100 * noise.median(),
                100 * noise.min(),
                100 * noise.max());
    std::printf("  median (us)             %8.3f  %8.3f  %8.3f  %8.3f   spread (max-min)/mean %.2f%%\n",
                median.mean(),
                median.median(),
                median.min(),
                median.max(),
                100 * (median.max() - median.min()) / median.mean());
    std::printf("  medians' standard deviation over the candidates: %.2f%% of their mean\n",
                median.mean() > 0 ? 100 * median.stddev() / median.mean() : 0.0);
    std::printf("  stopped:");
    for (const auto& [why, count] : stops)
        std::printf(" %s %d", why.c_str(), count);
    std::printf("\n");
    if (o.fresh > 0)
    {
        std::printf("\nfresh worker per candidate mean ms  median ms\n");
        std::printf("  per candidate           %8.3f  %8.3f\n", fresh_total.mean(), fresh_total.median());
        std::printf("    spawn + hello         %8.3f  %8.3f\n", fresh_start.mean(), fresh_start.median());
        std::printf("    load_workload         %8.3f  %8.3f\n", fresh_load.mean(), fresh_load.median());
        std::printf("    evaluate              %8.3f  %8.3f\n", fresh_eval.mean(), fresh_eval.median());
        std::printf("    shutdown + exit       %8.3f  %8.3f\n", fresh_stop.mean(), fresh_stop.median());
        std::printf("  overhead beyond kernel  %8.3f\n", fresh_total.mean() - kernel.mean());
        std::printf("\nratio fresh / persistent: %.1fx\n", fresh_total.mean() / round_trip.mean());
    }
}

}  // namespace

int main(int argc, char** argv)
{
    options o;
    try
    {
        o = parse(argc, argv);
    }
    catch (const warpsmith::user_error& e)
    {
        std::fprintf(stderr, "harness_overhead: %s\n", e.what());
        return 2;
    }
    // worker_process reports through the logging seam: its warnings (a worker that exited, ignored
    // shutdown, did not answer) go to stderr.
    warpsmith::set_log_sink(
        [](warpsmith::log_level, std::string_view line)
        { std::fprintf(stderr, "harness_overhead: %.*s\n", static_cast<int>(line.size()), line.data()); },
        warpsmith::log_level::warn);
    try
    {
        asio::io_context ioc;
        std::exception_ptr error;
        auto on_done = [&](std::exception_ptr e) { error = e; };
        asio::co_spawn(ioc, run(o), on_done);
        ioc.run();
        if (error)
            std::rethrow_exception(error);
        return 0;
    }
    catch (const warpsmith::user_error& e)
    {
        std::fprintf(stderr, "harness_overhead: %s\n", e.what());
        return 2;
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "harness_overhead: %s\n", e.what());
        return 1;
    }
}
