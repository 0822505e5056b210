// gpu_executor against the fake worker: evaluation, restarts after fault / hang / crash with the
// workload re-sent (same hidden seed), FIFO order without overlap, busy accounting, stop.

#include "engine/executors/gpu_executor.hpp"
#include "harness/core/error.hpp"
#include "harness/workload/candidate.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/asio/detached.hpp>
#include <boost/json.hpp>

#include <set>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

workload vadd()
{
    return workload::load(source_dir() / "tests/engine/executors/data/vadd");
}

evaluate_request request_for(const workload& w, std::string name, std::string marker)
{
    evaluate_request r;
    r.name = std::move(name);
    r.cand = candidate::from_kernel(w.reference);
    r.cand.source += "\n// " + marker + "\n";
    r.timing.iterations = 20;
    return r;
}

struct executor_fixture : io_fixture
{
    temp_dir tmp;
    std::filesystem::path log = tmp.path() / "events.log";
    workload w = vadd();

    worker_launch launch(std::vector<std::string> extra = {})
    {
        worker_launch l;
        l.worker_binary = fake_worker_path();
        l.extra_args = {"--log", log.string()};
        l.extra_args.insert(l.extra_args.end(), extra.begin(), extra.end());
        return l;
    }

    std::string status(const gpu_evaluation& e) const
    {
        return std::string(e.result.valid() ? "valid" : "invalid");
    }
    std::string failure_kind(const gpu_evaluation& e) const { return e.result.failure_kind(); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(gpu_executor_suite, executor_fixture)

BOOST_AUTO_TEST_CASE(evaluates_a_candidate)
{
    {
        gpu_executor gpu(ioc, launch({"--evaluate-ms", "20"}), 0, {});
        auto body = [&]() -> asio::awaitable<void>
        {
            json::object hello = co_await gpu.start();
            BOOST_TEST(hello.at("device").at("name").as_string() == "Fake GPU");
            json::object loaded = co_await gpu.load(w, 1234);
            BOOST_TEST(loaded.at("cases").as_array().size() == 2u);

            auto e = co_await gpu.evaluate(request_for(w, "c0001", "FAKE: median_us=120"));
            BOOST_TEST(status(e) == "valid");
            BOOST_TEST(e.result.score_us.value_or(0) == 120.0, boost::test_tools::tolerance(1e-9));
            BOOST_TEST(!e.worker_restarted);
            BOOST_TEST(e.busy_ms >= 20.0);  // the fake sleeps 20 ms before answering
            BOOST_TEST(e.device == 0);

            // A cubin made by the fake compile mode carries its markers too.
            evaluate_request r = request_for(w, "c0002", "");
            r.cubin = "FAKE-CUBIN\n// FAKE: invalid=mismatch\n";
            auto e2 = co_await gpu.evaluate(r);
            BOOST_TEST(status(e2) == "invalid");
            BOOST_TEST(failure_kind(e2) == "mismatch");

            json::object dev = co_await gpu.device_info(true);
            BOOST_TEST(dev.at("measured").at("copy_bandwidth_gbps").to_number<double>() > 0);
            co_await gpu.stop();
        };
        run_coro(ioc, body());
        BOOST_TEST(gpu.restarts() == 0);
        BOOST_TEST(gpu.busy_seconds() > 0.040);
        BOOST_TEST(!gpu.busy());
    }
    drain();
}

BOOST_AUTO_TEST_CASE(restarts_after_fault_hang_and_crash)
{
    gpu_executor_options opts;
    opts.request_deadline = 1500ms;
    {
        gpu_executor gpu(ioc, launch(), 0, opts);
        std::vector<gpu_evaluation> results;
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await gpu.start();
            co_await gpu.load(w, 987654321);
            for (const char* marker : {"FAKE: fault",
                                       "FAKE: median_us=10",
                                       "FAKE: hang",
                                       "FAKE: median_us=11",
                                       "FAKE: crash",
                                       "FAKE: median_us=12",
                                       "FAKE: launch_hang",
                                       "FAKE: median_us=13"})
                results.push_back(
                    co_await gpu.evaluate(request_for(w, "c" + std::to_string(results.size()), marker)));
            co_await gpu.stop();
        };
        run_coro(ioc, body());
        BOOST_REQUIRE(results.size() == 8u);
        const char* kinds[] = {"fault", "hang", "worker_crash", "hang"};
        // A worker that dies without answering is given the candidate once more; the fake's crash
        // marker kills the second worker too, and only then is the candidate blamed.
        BOOST_TEST(
            results[4].result.failure->message.find(
                "the restarted worker died too while evaluating c4 (exit code 86)") != std::string::npos,
            json::serialize(results[4].result.to_json()));
        for (int i = 0; i < 4; ++i)
        {
            const auto& bad = results[2 * i];
            const auto& good = results[2 * i + 1];
            BOOST_TEST(status(bad) == "invalid");
            BOOST_TEST(failure_kind(bad) == kinds[i]);
            BOOST_TEST(bad.worker_restarted);
            BOOST_TEST(bad.restart_reason == kinds[i]);
            BOOST_TEST(bad.restart_ms > 0);
            // The next candidate runs normally on the new worker.
            BOOST_TEST(status(good) == "valid");
            BOOST_TEST(!good.worker_restarted);
            BOOST_TEST(good.result.score_us.value_or(0) == 10.0 + i, boost::test_tools::tolerance(1e-9));
        }
        BOOST_TEST(gpu.restarts() == 5);
    }
    drain();

    // Six workers in all (the crash took two), each greeted and loaded once, always with the same
    // hidden seed.
    auto events = read_fake_log(log);
    auto hellos = events_named(events, "hello");
    auto loads = events_named(events, "load");
    BOOST_TEST(hellos.size() == 6u);
    BOOST_TEST(loads.size() == 6u);
    for (const auto& l : loads)
        BOOST_TEST(l.name == "987654321");
    std::set<int> pids;
    for (const auto& h : hellos)
        pids.insert(h.pid);
    BOOST_TEST(pids.size() == 6u);
    // Every load follows its own worker's hello.
    for (std::size_t i = 0; i < loads.size(); ++i)
        BOOST_TEST(loads[i].pid == hellos[i].pid);
}

BOOST_AUTO_TEST_CASE(a_worker_lost_mid_evaluation_is_restarted_and_the_candidate_evaluated_again)
{
    // What a dropped ssh connection or a cancelled Slurm step looks like from here: the worker's
    // launcher exits while a candidate is on it, without an answer. The candidate is not to blame;
    // it is evaluated on the restarted worker and keeps its real result.
    const auto marker = tmp.path() / "lost-once";
    {
        gpu_executor gpu(ioc, launch({"--evaluate-ms", "5"}), 1, {});
        std::vector<gpu_evaluation> results;
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await gpu.start();
            co_await gpu.load(w, 424242);
            results.push_back(co_await gpu.evaluate(
                request_for(w, "c1", "FAKE: median_us=70 FAKE: crash_once=" + marker.string())));
            results.push_back(co_await gpu.evaluate(request_for(w, "c2", "FAKE: median_us=80")));
            co_await gpu.stop();
        };
        run_coro(ioc, body());
        BOOST_REQUIRE(results.size() == 2u);
        const auto& lost = results[0];
        BOOST_TEST(status(lost) == "valid", json::serialize(lost.result.to_json()));
        BOOST_TEST(lost.result.score_us.value_or(0) == 70.0, boost::test_tools::tolerance(1e-9));
        BOOST_TEST(lost.worker_restarted);
        BOOST_TEST(lost.restart_reason == "worker_crash");
        BOOST_TEST(lost.restart_ms > 0);
        BOOST_TEST(lost.device == 1);
        BOOST_TEST(lost.busy_ms >= 5.0);  // the second attempt's time on the worker counts
        BOOST_TEST(status(results[1]) == "valid");
        BOOST_TEST(!results[1].worker_restarted);
        BOOST_TEST(gpu.restarts() == 1);
    }
    drain();

    // Two workers, the second loaded with the same hidden seed; c1 began on both, ended on the second.
    auto events = read_fake_log(log);
    auto hellos = events_named(events, "hello");
    auto loads = events_named(events, "load");
    BOOST_REQUIRE(hellos.size() == 2u);
    BOOST_REQUIRE(loads.size() == 2u);
    BOOST_TEST(loads[1].name == "424242");
    BOOST_TEST(loads[1].pid == hellos[1].pid);
    BOOST_TEST(hellos[0].pid != hellos[1].pid);
    std::vector<int> began, ended;
    for (const auto& e : events_named(events, "evaluate_begin"))
        if (e.name == "c1")
            began.push_back(e.pid);
    for (const auto& e : events_named(events, "evaluate_end"))
        if (e.name == "c1")
            ended.push_back(e.pid);
    BOOST_TEST((began == std::vector<int>{hellos[0].pid, hellos[1].pid}));
    BOOST_TEST((ended == std::vector<int>{hellos[1].pid}));
}

BOOST_AUTO_TEST_CASE(a_refusal_that_loses_the_context_restarts_the_worker_at_once)
{
    // The real worker answers ok:false (kind internal) with "worker_restart" when a CUDA error
    // outside the kernel loses the context, then exits. The executor replaces it right there: the
    // candidate is invalid with the worker's reason and carries the restart, and the next candidate
    // meets a loaded worker instead of a dead one.
    {
        gpu_executor gpu(ioc, launch(), 0, {});
        std::vector<gpu_evaluation> results;
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await gpu.start();
            co_await gpu.load(w, 55);
            results.push_back(co_await gpu.evaluate(request_for(w, "c0", "FAKE: context_lost")));
            results.push_back(co_await gpu.evaluate(request_for(w, "c1", "FAKE: median_us=21")));
            co_await gpu.stop();
        };
        run_coro(ioc, body());
        BOOST_REQUIRE(results.size() == 2u);
        const auto& lost = results[0];
        BOOST_TEST(status(lost) == "invalid");
        BOOST_TEST(failure_kind(lost) == "worker_error");
        BOOST_TEST(lost.result.failure->message.find("the CUDA context is lost") != std::string::npos,
                   json::serialize(lost.result.to_json()));
        BOOST_TEST(lost.worker_restarted);
        BOOST_TEST(lost.restart_reason == "worker_error");
        BOOST_TEST(lost.restart_ms > 0);
        BOOST_TEST(status(results[1]) == "valid");
        BOOST_TEST(!results[1].worker_restarted);
        BOOST_TEST(results[1].result.score_us.value_or(0) == 21.0, boost::test_tools::tolerance(1e-9));
        BOOST_TEST(gpu.restarts() == 1);
    }
    drain();

    // c1 began only once, on the second worker, which was loaded with the same hidden seed first.
    auto events = read_fake_log(log);
    auto hellos = events_named(events, "hello");
    auto loads = events_named(events, "load");
    BOOST_REQUIRE(hellos.size() == 2u);
    BOOST_REQUIRE(loads.size() == 2u);
    BOOST_TEST(loads[1].name == "55");
    std::vector<int> began;
    for (const auto& e : events_named(events, "evaluate_begin"))
        if (e.name == "c1")
            began.push_back(e.pid);
    BOOST_TEST((began == std::vector<int>{hellos[1].pid}));
}

BOOST_AUTO_TEST_CASE(concurrent_requests_run_in_fifo_order_one_at_a_time)
{
    {
        gpu_executor gpu(ioc, launch({"--evaluate-ms", "30"}), 0, {});
        std::vector<std::string> completed;
        std::vector<double> busy_ms;
        int max_queued = 0;
        auto one = [&](std::string name) -> asio::awaitable<void>
        {
            auto e = co_await gpu.evaluate(request_for(w, name, "FAKE: median_us=5"));
            BOOST_TEST(status(e) == "valid");
            completed.push_back(name);
            busy_ms.push_back(e.busy_ms);
        };
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await gpu.start();
            co_await gpu.load(w, 1);
            for (int i = 0; i < 5; ++i)
                asio::co_spawn(ioc, one("c" + std::to_string(i)), asio::detached);
            while (completed.size() < 5)
            {
                max_queued = std::max(max_queued, gpu.queued());
                co_await pause(5ms);
            }
            co_await gpu.stop();
        };
        run_coro(ioc, body());
        BOOST_TEST(completed == (std::vector<std::string>{"c0", "c1", "c2", "c3", "c4"}));
        BOOST_TEST(max_queued >= 3);
        double sum = 0;
        for (double b : busy_ms)
            sum += b;
        // Busy time is the sum of the requests' worker time (load included in the total).
        BOOST_TEST(gpu.busy_seconds() * 1000.0 >= sum);
        BOOST_TEST(sum >= 5 * 30.0);
    }
    drain();
    auto events = read_fake_log(log);
    std::vector<fake_event> evals;
    for (const auto& e : events)
        if (e.event == "evaluate_begin" || e.event == "evaluate_end")
            evals.push_back(e);
    BOOST_REQUIRE(evals.size() == 10u);
    for (int i = 0; i < 5; ++i)
    {
        // begin c_i, end c_i, in arrival order: never two on the GPU at once.
        BOOST_TEST(evals[2 * i].event == "evaluate_begin");
        BOOST_TEST(evals[2 * i].name == "c" + std::to_string(i));
        BOOST_TEST(evals[2 * i + 1].event == "evaluate_end");
        BOOST_TEST(evals[2 * i + 1].name == "c" + std::to_string(i));
    }
}

BOOST_AUTO_TEST_CASE(stop_fails_queued_requests_and_finishes_the_running_one)
{
    {
        gpu_executor gpu(ioc, launch({"--evaluate-ms", "100"}), 0, {});
        std::vector<std::string> outcome(3);
        auto one = [&](int i) -> asio::awaitable<void>
        {
            try
            {
                auto e = co_await gpu.evaluate(request_for(w, "c" + std::to_string(i), ""));
                outcome[i] = status(e);
            }
            catch (const boost::system::system_error& e)
            {
                outcome[i] = e.code() == make_error_code(errc::cancelled) ? "cancelled" : e.what();
            }
        };
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await gpu.start();
            co_await gpu.load(w, 1);
            for (int i = 0; i < 3; ++i)
                asio::co_spawn(ioc, one(i), asio::detached);
            co_await pause(30ms);
            co_await gpu.stop();
            co_await pause(10ms);
        };
        run_coro(ioc, body());
        BOOST_TEST(outcome == (std::vector<std::string>{"valid", "cancelled", "cancelled"}));
    }
    drain();
}

BOOST_AUTO_TEST_CASE(refusals_and_missing_devices)
{
    {
        gpu_executor gpu(ioc, launch({"--no-device"}), 2, {});
        auto body = [&]() -> asio::awaitable<void> { co_await gpu.start(); };
        BOOST_CHECK_EXCEPTION(run_coro(ioc, body()),
                              user_error,
                              [](const user_error& e)
                              {
                                  std::string what = e.what();
                                  return what.find("gpu2") != std::string::npos &&
                                         what.find("no_device") != std::string::npos;
                              });
    }
    {
        // A reference that fails is the user's problem, named in one line.
        gpu_executor gpu(ioc, launch(), 0, {});
        workload bad = w;
        bad.reference.source += "\n// FAKE: reference_failed\n";
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await gpu.start();
            co_await gpu.load(bad, 1);
        };
        BOOST_CHECK_EXCEPTION(run_coro(ioc, body()),
                              user_error,
                              [](const user_error& e) {
                                  return std::string(e.what()).find("reference_failed") != std::string::npos;
                              });
    }
    {
        // evaluate before load: the worker refuses; the candidate is invalid, nothing throws.
        gpu_executor gpu(ioc, launch(), 0, {});
        auto body = [&]() -> asio::awaitable<gpu_evaluation>
        {
            co_await gpu.start();
            auto e = co_await gpu.evaluate(request_for(w, "c0", ""));
            co_await gpu.stop();
            co_return e;
        };
        auto e = run_coro(ioc, body());
        BOOST_TEST(status(e) == "invalid");
        BOOST_TEST(failure_kind(e) == "worker_error");
        BOOST_TEST(e.result.failure->message.find("no_workload") == 0u);
    }
    drain();
}

BOOST_AUTO_TEST_CASE(time_interleaved_returns_timings_per_key)
{
    {
        gpu_executor gpu(ioc, launch(), 0, {});
        auto body = [&]() -> asio::awaitable<protocol::interleaved_result>
        {
            co_await gpu.start();
            co_await gpu.load(w, 1);
            std::vector<std::pair<std::string, evaluate_request>> entries;
            entries.emplace_back("reference", request_for(w, "reference", "FAKE: median_us=200"));
            entries.emplace_back("c0007", request_for(w, "c0007", "FAKE: median_us=50"));
            auto r = co_await gpu.time_interleaved(entries, 3);
            co_await gpu.stop();
            co_return r;
        };
        auto r = run_coro(ioc, body());
        BOOST_TEST(r.timings.at("reference").at("1m").median_us().value_or(0) == 200.0);
        BOOST_TEST(r.timings.at("c0007").at("1m").median_us().value_or(0) == 50.0);
        BOOST_TEST(r.invalid.empty());
    }
    drain();
}

BOOST_AUTO_TEST_SUITE_END()
