// cheat_recovery: does a cheat, a fault or a hang leave any trace on the next candidate, and how long
// does the harness take to recover (SPEC §1 "GPU isolation", §8; docs/hardening.md)?
//
// Through one gpu_executor and a real warpsmith-worker, for each workload of the cheat manifests
// (tests/cheats/cheats.json, tests/cheats/hardening/hardening.json): the workload's valid control
// twice (the noise floor: two identical evaluations in a row), then for every cheat: the control,
// the cheat, the control again. Per cheat it reports the outcome, the time to detect it (the cheat's
// evaluation minus the restart), the restart (gpu_evaluation.restart_ms: new worker, hello,
// load_workload), the wall time to the next valid result, and the control's median before and after
// (target: within 2%). Then the poison-skip cheat against its honest twin (the stale-output probe,
// the same naive kernel): equal medians mean it gained nothing; likewise every cheat with an honest
// twin ("twin_defines") against that twin, evaluated right before it (column "vs twin": cheat median /
// twin median when the cheat is valid; below 0.9 means it kept something). Then a soak: N faulting
// candidates, each followed by the control, with restart statistics and the GPU's free memory before and
// after. Output is markdown for docs/hardening.md.
//
//   cheat_recovery [--device K] [--warmup 10] [--iterations 100] [--launch-timeout-ms 2000]
//                  [--soak 100] [--root DIR]

#include "bench/support/cheat_manifest.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/elapsed.hpp"
#include "harness/core/error.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;
using namespace warpsmith::cheats;
using clock_type = std::chrono::steady_clock;

namespace
{

struct bench_args
{
    int device = 0;
    int warmup = 10;
    int iterations = 100;
    int launch_timeout_ms = 2000;
    int soak = 100;
    fs::path root = WARPSMITH_SOURCE_DIR;
};

struct cheat_row
{
    std::string name;
    std::string expect;
    std::string outcome;
    double cheat_wall_ms = 0;  ///< The cheat's evaluate(), restart included.
    double restart_ms = 0;
    double next_valid_ms = 0;    ///< From the cheat's result to the control's valid result.
    double control_wall_ms = 0;  ///< The control's evaluate() right before the cheat (for comparison).
    double before_us = 0;
    double after_us = 0;
    bool after_valid = false;
    double median_us = 0;  ///< The cheat's own score when valid.
    double twin_us = 0;    ///< Its honest twin's score (0: no twin, or not valid).
};

struct soak_figures
{
    int n = 0;
    int failures = 0;  ///< Bad candidates not reported as fault, or controls not valid.
    std::vector<double> restart_ms;
    std::vector<double> cycle_ms;
    double free_before_mib = 0;
    double free_after_mib = 0;
};

struct results
{
    std::vector<std::pair<std::string, std::pair<double, double>>> noise;  ///< workload -> (first, second).
    std::vector<cheat_row> rows;
    soak_figures soak;
};

bench_args parse_args(int argc, char** argv)
{
    bench_args a;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string
        {
            if (i + 1 >= argc)
                throw user_error(arg + " needs a value");
            return argv[++i];
        };
        const auto number = [&]()
        {
            const std::string v = value();
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 0)
                throw user_error(arg + ": '" + v + "' is not a non-negative integer");
            return static_cast<int>(n);
        };
        if (arg == "--device")
            a.device = number();
        else if (arg == "--warmup")
            a.warmup = number();
        else if (arg == "--iterations")
            a.iterations = std::max(1, number());
        else if (arg == "--launch-timeout-ms")
            a.launch_timeout_ms = std::max(1, number());
        else if (arg == "--soak")
            a.soak = number();
        else if (arg == "--root")
            a.root = value();
        else if (arg == "--help" || arg == "-h")
        {
            std::puts(
                "cheat_recovery [--device K] [--warmup 10] [--iterations 100] [--launch-timeout-ms 2000]\n"
                "               [--soak 100] [--root DIR]\n"
                "Every cheat of tests/cheats between two evaluations of a valid control, then a fault soak.\n"
                "Example: build/bin/cheat_recovery --soak 100 > recovery.md");
            std::exit(0);
        }
        else
            throw user_error("unknown option '" + arg + "' (see --help)");
    }
    return a;
}

using warpsmith::ms_since;

std::string outcome_of(const gpu_evaluation& e)
{
    if (e.result.valid())
        return "valid";
    return e.result.failure_kind();
}

double score_of(const gpu_evaluation& e)
{
    return e.result.score_us.value_or(0.0);
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(std::lround(p * static_cast<double>(v.size() - 1)))];
}

double mean(const std::vector<double>& v)
{
    return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double rel_diff_pct(double before, double after)
{
    return before > 0 ? 100.0 * (after / before - 1.0) : 0.0;
}

class bench
{
public:
    bench(asio::io_context& ioc, bench_args a)
        : args_(std::move(a)),
          gpu_(ioc, launch(), args_.device, executor_options()),
          compiler_(compile_cache(cache_dir()))
    {
    }

    asio::awaitable<void> run(results& out)
    {
        json::object hello = co_await gpu_.start();
        arch_ = std::string(hello.at("device").at("arch").as_string());
        const std::vector<cheat_entry> all = load_all_cheats(args_.root);
        std::vector<fs::path> workloads;
        for (const cheat_entry& e : all)
            if (std::find(workloads.begin(), workloads.end(), e.workload) == workloads.end())
                workloads.push_back(e.workload);

        for (const fs::path& path : workloads)
        {
            const workload w = workload::load(path);
            co_await gpu_.load(w, 20251202);
            const cheat_entry* control = control_for(all, path);
            if (!control)
                throw user_error("no valid control for " + path.string());
            const evaluate_request control_req = request_for(*control);
            gpu_evaluation a = co_await gpu_.evaluate(control_req);
            gpu_evaluation b = co_await gpu_.evaluate(control_req);
            out.noise.emplace_back(w.name, std::make_pair(score_of(a), score_of(b)));
            for (const cheat_entry& e : all)
            {
                if (e.workload != path || &e == control)
                    continue;
                cheat_row row;
                row.name = e.name;
                row.expect = e.expect_text();
                const evaluate_request cheat_req = request_for(e);
                if (e.has_twin())
                {
                    const evaluate_request twin_req = request_for(e, true);
                    gpu_evaluation twin = co_await gpu_.evaluate(twin_req);
                    row.twin_us = outcome_of(twin) == "valid" ? score_of(twin) : 0;
                }
                const auto t_before = clock_type::now();
                gpu_evaluation before = co_await gpu_.evaluate(control_req);
                row.control_wall_ms = ms_since(t_before);
                row.before_us = score_of(before);
                const auto t0 = clock_type::now();
                gpu_evaluation ev = co_await gpu_.evaluate(cheat_req);
                row.cheat_wall_ms = ms_since(t0);
                row.outcome = outcome_of(ev);
                row.restart_ms = ev.worker_restarted ? ev.restart_ms : 0;
                row.median_us = row.outcome == "valid" ? score_of(ev) : 0;
                const auto t1 = clock_type::now();
                gpu_evaluation after = co_await gpu_.evaluate(control_req);
                row.next_valid_ms = ms_since(t1);
                row.after_valid = outcome_of(after) == "valid";
                row.after_us = score_of(after);
                std::fprintf(stderr, "cheat_recovery: %s -> %s\n", e.name.c_str(), row.outcome.c_str());
                out.rows.push_back(std::move(row));
            }
        }

        if (args_.soak > 0)
            co_await soak(all, out.soak);
        co_await gpu_.stop();
    }

private:
    asio::awaitable<void> soak(const std::vector<cheat_entry>& all, soak_figures& s)
    {
        const auto named = [&](const std::string& name) -> const cheat_entry&
        {
            for (const cheat_entry& e : all)
                if (e.name == name)
                    return e;
            throw user_error("no cheat named " + name);
        };
        const cheat_entry& fault = named("sgemm-wild-pointer");
        const cheat_entry& control = named("valid-sgemm-tiled");
        const workload w = workload::load(control.workload);
        co_await gpu_.load(w, 7);
        const evaluate_request fault_req = request_for(fault);
        const evaluate_request control_req = request_for(control);
        gpu_evaluation warm = co_await gpu_.evaluate(control_req);
        s.failures += outcome_of(warm) != "valid";
        json::object before = co_await gpu_.device_info(false);
        s.free_before_mib = before.at("free_memory_bytes").to_number<double>() / (1024.0 * 1024.0);
        s.n = args_.soak;
        for (int i = 0; i < args_.soak; ++i)
        {
            const auto t0 = clock_type::now();
            gpu_evaluation bad = co_await gpu_.evaluate(fault_req);
            s.failures += outcome_of(bad) != "fault" || !bad.worker_restarted;
            s.restart_ms.push_back(bad.restart_ms);
            gpu_evaluation good = co_await gpu_.evaluate(control_req);
            s.failures += outcome_of(good) != "valid";
            s.cycle_ms.push_back(ms_since(t0));
        }
        json::object after = co_await gpu_.device_info(false);
        s.free_after_mib = after.at("free_memory_bytes").to_number<double>() / (1024.0 * 1024.0);
    }

    evaluate_request request_for(const cheat_entry& e, bool twin = false) const
    {
        const compile_output out =
            compiler_.compile(twin ? twin_compile_request(e, arch_) : cheat_compile_request(e, arch_));
        if (!out.compiled)
            throw user_error(e.name + (twin ? " (honest twin)" : "") + " does not compile: " + out.error);
        evaluate_request r;
        r.name = twin ? e.name + "-twin" : e.name;
        r.cand = twin ? *e.twin : e.cand;
        r.cubin = out.cubin;
        r.local_memory = out.local_memory;
        r.timing.warmup = args_.warmup;
        r.timing.iterations = args_.iterations;
        return r;
    }

    fs::path cache_dir() const { return fs::temp_directory_path() / "warpsmith-cheat-recovery-cache"; }

    worker_launch launch() const
    {
        worker_launch l;
        l.extra_args = {"--cache-dir", cache_dir().string()};
        return l;
    }

    gpu_executor_options executor_options() const
    {
        gpu_executor_options o;
        o.launch_timeout = std::chrono::milliseconds(args_.launch_timeout_ms);
        o.request_deadline = std::chrono::minutes(5);
        return o;
    }

    bench_args args_;
    gpu_executor gpu_;
    nvrtc_compiler compiler_;
    std::string arch_;
};

void print_markdown(const results& r, const bench_args& a)
{
    std::printf("## Cheats between two evaluations of a valid control\n\n");
    std::printf(
        "Timing: %d warm-up + %d measured launches (cold), launch_timeout_ms %d. Medians are the "
        "control's score (geometric mean of its performance medians).\n\n",
        a.warmup,
        a.iterations,
        a.launch_timeout_ms);
    std::printf(
        "| workload | control median, 1st (us) | 2nd, right after (us) | diff (noise floor) "
        "|\n|---|---|---|---|\n");
    for (const auto& [name, pair] : r.noise)
        std::printf("| %s | %.3f | %.3f | %+.2f%% |\n",
                    name.c_str(),
                    pair.first,
                    pair.second,
                    rel_diff_pct(pair.first, pair.second));
    std::printf(
        "\n| cheat | expected | outcome | cheat eval (ms) | restart (ms) | to next valid (ms) | control eval "
        "(ms) | control before (us) | after (us) | diff | vs twin "
        "|\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    double worst = 0;
    std::vector<double> fault_restart, hang_restart, fault_recovery, hang_recovery;
    for (const cheat_row& row : r.rows)
    {
        const double diff = rel_diff_pct(row.before_us, row.after_us);
        worst = std::max(worst, std::fabs(diff));
        const bool ok = row.expect.find(row.outcome) != std::string::npos;
        char vs_twin[64] = "-";
        if (row.twin_us > 0 && row.median_us > 0)
            std::snprintf(vs_twin,
                          sizeof vs_twin,
                          "%.3f (%.3f / %.3f us)%s",
                          row.median_us / row.twin_us,
                          row.median_us,
                          row.twin_us,
                          row.median_us < k_twin_ratio * row.twin_us ? " (GAINED)" : "");
        std::printf("| %s | %s | %s%s | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f%s | %+.2f%% | %s |\n",
                    row.name.c_str(),
                    row.expect.c_str(),
                    row.outcome.c_str(),
                    ok ? "" : " (UNEXPECTED)",
                    row.cheat_wall_ms,
                    row.restart_ms,
                    row.next_valid_ms,
                    row.control_wall_ms,
                    row.before_us,
                    row.after_us,
                    row.after_valid ? "" : " (INVALID)",
                    diff,
                    vs_twin);
        if (row.outcome == "fault")
        {
            fault_restart.push_back(row.restart_ms);
            fault_recovery.push_back(row.cheat_wall_ms + row.next_valid_ms);
        }
        if (row.outcome == "hang")
        {
            hang_restart.push_back(row.restart_ms);
            hang_recovery.push_back(row.cheat_wall_ms + row.next_valid_ms);
        }
    }
    std::printf("\nLargest |diff| of the control after a cheat: %.2f%% (target: within 2%%).\n", worst);
    std::printf(
        "Fault: restart %.1f ms, from the fault's evaluation start to the next valid result %.1f ms.\n",
        mean(fault_restart),
        mean(fault_recovery));
    std::printf(
        "Hang: restart %.1f ms, from the hang's evaluation start to the next valid result %.1f ms "
        "(includes launch_timeout_ms = %d).\n",
        mean(hang_restart),
        mean(hang_recovery),
        a.launch_timeout_ms);

    double skip = 0, honest = 0;
    for (const cheat_row& row : r.rows)
    {
        if (row.name == "sgemm-poison-skip")
            skip = row.median_us;
        if (row.name == "sgemm-stale-output-probe")
            honest = row.median_us;
    }
    if (skip > 0 && honest > 0)
        std::printf(
            "Poison-skip cheat median %.3f us vs its honest twin (stale-output probe) %.3f us: ratio %.3f "
            "(1.0 = no gain from skipping).\n",
            skip,
            honest,
            skip / honest);

    const soak_figures& s = r.soak;
    if (s.n > 0)
    {
        std::printf("\n## Soak: %d faulting candidates, each followed by the valid control\n\n", s.n);
        std::printf(
            "| faults | wrong outcomes | restart mean (ms) | p50 | p90 | max | cycle mean (ms) | free before "
            "(MiB) | free after (MiB) | drift (MiB) |\n|---|---|---|---|---|---|---|---|---|---|\n");
        std::printf("| %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %+.1f |\n",
                    s.n,
                    s.failures,
                    mean(s.restart_ms),
                    percentile(s.restart_ms, 0.5),
                    percentile(s.restart_ms, 0.9),
                    percentile(s.restart_ms, 1.0),
                    mean(s.cycle_ms),
                    s.free_before_mib,
                    s.free_after_mib,
                    s.free_after_mib - s.free_before_mib);
    }
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv)
{
    try
    {
        const bench_args args = parse_args(argc, argv);
        asio::io_context ioc;
        results out;
        bench b(ioc, args);
        std::exception_ptr error;
        asio::co_spawn(ioc, b.run(out), [&](std::exception_ptr e) { error = e; });
        ioc.run();
        if (error)
            std::rethrow_exception(error);
        print_markdown(out, args);
        return 0;
    }
    catch (const user_error& e)
    {
        std::fprintf(stderr, "cheat_recovery: %s\n", e.what());
        return 2;
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "cheat_recovery: %s\n", e.what());
        return 1;
    }
}
