#pragma once

// Helpers shared by the executor tests: running a coroutine on an io_context with a deadline, the
// fake worker's path and argv, and reading the fake worker's event log (tests/engine/executors/
// fake_worker.cpp documents the events).

#include "tests/support/test_paths.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace warpsmith::test
{

/// The fake worker's evaluate request for a kernel `k` followed by `source` (its markers steer the
/// fake: fake_worker.cpp).
inline boost::json::object evaluate_msg(const std::string& source)
{
    boost::json::object cand;
    cand["entry"] = "k";
    cand["source"] = "extern \"C\" __global__ void k() {}\n" + source;
    boost::json::object m;
    m["op"] = "evaluate";
    m["name"] = "c0001";
    m["candidate"] = std::move(cand);
    return m;
}

/// The fake worker's load_workload request: two cases, "small" (correctness) and "big"
/// (performance).
inline boost::json::object load_msg()
{
    boost::json::array cases;
    cases.emplace_back(boost::json::object{{"name", "small"}, {"role", "correctness"}});
    cases.emplace_back(boost::json::object{{"name", "big"}, {"role", "performance"}});
    boost::json::object w;
    w["name"] = "fake";
    w["cases"] = std::move(cases);
    w["reference_source"] = "extern \"C\" __global__ void ref() {}";
    boost::json::object m;
    m["op"] = "load_workload";
    m["workload"] = std::move(w);
    m["hidden_seed"] = 7;
    return m;
}

/// Runs one coroutine to completion on ioc (failing the test when it is still running after
/// timeout) and returns its value or rethrows its exception. Work left behind (a worker's stderr
/// reader) is not run further here.
template <typename T>
T run_coro(boost::asio::io_context& ioc,
           boost::asio::awaitable<T> a,
           std::chrono::milliseconds timeout = std::chrono::seconds(60))
{
    std::optional<T> result;
    std::exception_ptr error;
    bool done = false;
    auto on_done = [&](std::exception_ptr e, T v)
    {
        error = e;
        if (!e)
            result.emplace(std::move(v));
        done = true;
        ioc.stop();
    };
    boost::asio::co_spawn(ioc, std::move(a), on_done);
    ioc.restart();
    ioc.run_for(timeout);
    BOOST_REQUIRE_MESSAGE(done, "coroutine did not finish within the test's deadline");
    if (error)
        std::rethrow_exception(error);
    return std::move(*result);
}

inline void run_coro(boost::asio::io_context& ioc,
                     boost::asio::awaitable<void> a,
                     std::chrono::milliseconds timeout = std::chrono::seconds(60))
{
    std::exception_ptr error;
    bool done = false;
    auto on_done = [&](std::exception_ptr e)
    {
        error = e;
        done = true;
        ioc.stop();
    };
    boost::asio::co_spawn(ioc, std::move(a), on_done);
    ioc.restart();
    ioc.run_for(timeout);
    BOOST_REQUIRE_MESSAGE(done, "coroutine did not finish within the test's deadline");
    if (error)
        std::rethrow_exception(error);
}

/// An io_context that must be idle (no leaked work) once the test's objects are gone: the fixture
/// runs it to completion with a deadline at the end.
struct io_fixture
{
    boost::asio::io_context ioc;

    /// Runs what is left (stderr readers finishing after their workers died) and checks it ends.
    void drain(std::chrono::milliseconds timeout = std::chrono::seconds(10))
    {
        ioc.restart();
        ioc.run_for(timeout);
        BOOST_CHECK_MESSAGE(ioc.stopped(), "the io_context still has work: something leaked");
    }
};

inline std::string fake_worker_path()
{
    return (bin_dir() / "fake_worker").string();
}

/// One event line of the fake worker's --log file.
struct fake_event
{
    long long ns = 0;
    int pid = 0;
    std::string event;
    std::string name;
};

inline std::vector<fake_event> read_fake_log(const std::filesystem::path& path)
{
    std::vector<fake_event> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream ss(line);
        fake_event e;
        ss >> e.ns >> e.pid >> e.event >> e.name;
        out.push_back(e);
    }
    return out;
}

inline std::vector<fake_event> events_named(const std::vector<fake_event>& all, const std::string& event)
{
    std::vector<fake_event> out;
    for (const auto& e : all)
        if (e.event == event)
            out.push_back(e);
    return out;
}

/// Pauses the calling coroutine (lets detached readers catch up) without blocking the context.
inline boost::asio::awaitable<void> pause(std::chrono::milliseconds d)
{
    boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, d);
    co_await t.async_wait(boost::asio::use_awaitable);
}

}  // namespace warpsmith::test
