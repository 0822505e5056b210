#pragma once

// Shared by the search and run tests: a small workload, kernel sources with fake-result markers,
// an in-process strategy whose latencies, failures and outputs the test controls, and a fixture
// that runs the search engine on a virtual clock with the simulated backend, so that every
// timestamp a test asserts on is simulated time (never the test machine's speed).

#include "agents/strategy.hpp"
#include "engine/run/journal.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/run/run_replay.hpp"
#include "engine/search/clock.hpp"
#include "engine/search/search_engine.hpp"
#include "engine/search/simulated_backend.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpsmith::test
{

using namespace std::chrono_literals;

inline const char* vadd_body =
    "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
    "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n";

/// A kernel source whose simulated result is chosen by markers, e.g. kernel_source_with("median_us=80").
inline std::string kernel_with(const std::vector<std::string>& markers)
{
    std::string s;
    for (const auto& m : markers)
        s += "// FAKE: " + m + "\n";
    return s + vadd_body;
}

/// vadd with one correctness and two performance cases; reference at 200 µs, initial at 160 µs.
inline boost::json::object vadd_workload_json(bool with_initial = true)
{
    namespace json = boost::json;
    json::object w{
        {"name", "vadd"},
        {"description", "c = a + b"},
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
             json::object{{"name", "odd"}, {"role", "correctness"}, {"values", json::object{{"n", 37}}}},
             json::object{{"name", "big"}, {"role", "performance"}, {"values", json::object{{"n", 1048576}}}},
             json::object{
                 {"name", "huge"}, {"role", "performance"}, {"values", json::object{{"n", 4194304}}}}}},
        {"reference_source", kernel_with({"median_us=200"})},
        {"launch", json::object{{"grid", json::array{"ceil_div(n,256)"}}, {"block", json::array{256}}}}};
    if (with_initial)
        w["initial_source"] = kernel_with({"median_us=160"});
    return w;
}

inline workload vadd_workload(bool with_initial = true)
{
    return workload::from_json(
        vadd_workload_json(with_initial), std::filesystem::current_path(), "test workload");
}

/// A strategy under the test's control. Every call is recorded with its simulated start time.
class test_strategy final : public strategy
{
public:
    struct call
    {
        int branch;
        int iteration;
        std::optional<std::string> repair_of;
        double t;
    };

    test_strategy(clock_source& clock, const workload& w) : clock_(clock), work_(w) {}

    std::string name() const override { return "test"; }

    boost::asio::awaitable<std::optional<proposal>> propose(proposal_context ctx) override
    {
        const int n = static_cast<int>(calls.size());
        calls.push_back(call{ctx.branch,
                             ctx.iteration,
                             ctx.repair_of ? std::optional<std::string>(ctx.repair_of->id) : std::nullopt,
                             clock_.now_seconds()});
        const auto d = latency ? latency(ctx.branch, n) : std::chrono::nanoseconds(0);
        if (d.count() > 0)
            co_await clock_.sleep_for(d);
        if (usage_per_call && ctx.services)
            usage_accepted.push_back(ctx.services->record_usage(ctx.branch, *usage_per_call));
        if (throw_on && throw_on(ctx.branch, n))
            throw std::runtime_error("model unavailable");
        std::optional<std::string> src;
        if (source_for)
            src = source_for(ctx, n);
        else if (next_ < sources.size())
            src = sources[next_++];
        if (!src)
            co_return std::nullopt;
        proposal p;
        p.cand = candidate::from_kernel(work_.reference);
        p.cand.source = *src;
        p.rationale = "test proposal " + std::to_string(n);
        p.meta = boost::json::object{{"call", n}};
        if (ctx.repair_of)
            p.parent = ctx.repair_of->id;
        co_return p;
    }

    void observe(const evaluated_candidate& c) override { observed.push_back(c.id); }
    void restore(const std::vector<evaluated_candidate>& history) override
    {
        restored = history.size();
        for (const auto& c : history)
            observe(c);
    }

    // Controls.
    std::vector<std::string> sources;  ///< Used in order.
    std::function<std::optional<std::string>(const proposal_context&, int call)> source_for;
    std::function<std::chrono::nanoseconds(int branch, int call)> latency;
    std::function<bool(int branch, int call)> throw_on;
    std::optional<token_usage> usage_per_call;

    // Observations.
    std::vector<call> calls;
    std::vector<std::string> observed;
    std::vector<bool> usage_accepted;
    std::optional<std::size_t> restored;

private:
    clock_source& clock_;
    const workload& work_;
    std::size_t next_ = 0;
};

/// Calls action(engine) at simulated time t (a coroutine with its arguments in its own frame).
inline boost::asio::awaitable<void> fire_at(clock_source& clock,
                                            double t,
                                            std::function<void(search_engine&)> action,
                                            search_engine& engine)
{
    co_await clock.sleep_for(
        std::chrono::duration_cast<clock_source::duration>(std::chrono::duration<double>(t) - clock.now()));
    action(engine);
}

/// Runs search engines on a virtual clock with a simulated backend and a run directory in a
/// temporary folder.
struct engine_fixture
{
    boost::asio::io_context ioc;
    virtual_clock clock{ioc};
    temp_dir tmp{"warpsmith-engine-test"};
    workload work = vadd_workload();
    simulated_backend_options backend_opts = default_backend_options();
    std::unique_ptr<simulated_backend> backend;
    std::optional<run_directory> run;

    static simulated_backend_options default_backend_options()
    {
        simulated_backend_options o;
        o.gpus = 1;
        o.compile_workers = 8;
        o.compile_latency = 100ms;
        o.gpu_latency = 200ms;
        return o;
    }

    /// Runs one search (or a resume of the same run directory) to completion on the virtual clock.
    /// `at` schedules actions at simulated times (e.g. a Ctrl-C).
    search_result search(strategy& strat,
                         search_options opts,
                         std::optional<replayed_run> resume = std::nullopt,
                         std::vector<std::pair<double, std::function<void(search_engine&)>>> at = {})
    {
        backend = std::make_unique<simulated_backend>(ioc, clock, backend_opts);
        if (!run)
            run = run_directory::create(tmp.path() / "results");
        std::int64_t next_seq = resume ? resume->next_seq : 1;
        journal_writer journal(run->journal_path(), next_seq);
        search_engine engine(ioc,
                             *backend,
                             strat,
                             clock,
                             work,
                             opts,
                             *run,
                             journal,
                             boost::json::object{{"tool", "warpsmith-test"}});
        std::optional<search_result> result;
        std::exception_ptr error;
        auto on_done = [&](std::exception_ptr e, search_result r)
        {
            error = e;
            if (!e)
                result = std::move(r);
        };
        boost::asio::co_spawn(ioc, engine.run(std::move(resume)), on_done);
        std::vector<std::shared_ptr<boost::asio::cancellation_signal>> timers;
        for (auto& [t, action] : at)
        {
            timers.push_back(std::make_shared<boost::asio::cancellation_signal>());
            boost::asio::co_spawn(
                ioc,
                fire_at(clock, t, action, engine),
                boost::asio::bind_cancellation_slot(timers.back()->slot(), [](std::exception_ptr) {}));
        }
        const bool finished = clock.run_until([&] { return result.has_value() || error != nullptr; });
        BOOST_REQUIRE_MESSAGE(finished, "the search deadlocked (nothing ready, nobody sleeping)");
        if (error)
            std::rethrow_exception(error);
        // Actions scheduled after the end of the run must not outlive the engine.
        for (auto& t : timers)
            t->emit(boost::asio::cancellation_type::terminal);
        ioc.restart();
        ioc.poll();
        return std::move(*result);
    }

    std::vector<boost::json::object> journal_events() const
    {
        return read_journal(run->journal_path()).events;
    }

    std::vector<boost::json::object> events_of(const std::string& type) const
    {
        std::vector<boost::json::object> out;
        for (auto& e : journal_events())
            if (e.at("event").as_string() == type)
                out.push_back(e);
        return out;
    }

    /// Simulated time of the first backend event of a kind for a name.
    double t_of(const std::string& kind, const std::string& name) const
    {
        for (const auto& e : backend->events())
            if (e.kind == kind && e.name == name)
                return e.t;
        BOOST_FAIL("no backend event " + kind + " for " + name);
        return -1;
    }
};

/// True when no two [gpu_start, gpu_end] intervals of one GPU overlap.
inline bool gpu_never_shared(const std::vector<sim_event>& events)
{
    std::map<int, int> running;
    for (const auto& e : events)
    {
        if (e.kind == "gpu_start" || e.kind == "interleaved_start")
        {
            if (++running[e.resource] > 1)
                return false;
        }
        else if (e.kind == "gpu_end" || e.kind == "gpu_cancelled" || e.kind == "interleaved_end")
            --running[e.resource];
    }
    return true;
}

inline bool near(double a, double b, double eps = 1e-6)
{
    return std::abs(a - b) <= eps;
}

}  // namespace warpsmith::test
