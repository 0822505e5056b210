#pragma once

// Running coroutines in tests, bounded in time (after Boost.MySQL's run_coro): the io_context runs
// with run_for, and a coroutine that has not finished by then fails the test instead of hanging it.
// io_fixture owns the io_context and checks, at teardown, that nothing was left running on it.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

namespace warpsmith::test
{

/// Runs `op` on `ioc` until it finishes, at most `limit`. Returns its value or rethrows its
/// exception; throws std::runtime_error when it did not finish in time.
template <class T>
T run_coro(boost::asio::io_context& ioc,
           boost::asio::awaitable<T> op,
           std::chrono::milliseconds limit = std::chrono::seconds(20))
{
    std::optional<T> value;
    std::exception_ptr error;
    bool done = false;
    auto on_done = [&](std::exception_ptr e, T v)
    {
        error = e;
        if (!e)
            value.emplace(std::move(v));
        done = true;
    };
    boost::asio::co_spawn(ioc, std::move(op), on_done);
    ioc.restart();
    ioc.run_for(limit);
    if (!done)
        throw std::runtime_error("run_coro: the coroutine did not finish within " +
                                 std::to_string(limit.count()) + " ms");
    if (error)
        std::rethrow_exception(error);
    return std::move(*value);
}

inline void run_coro(boost::asio::io_context& ioc,
                     boost::asio::awaitable<void> op,
                     std::chrono::milliseconds limit = std::chrono::seconds(20))
{
    std::exception_ptr error;
    bool done = false;
    auto on_done = [&](std::exception_ptr e)
    {
        error = e;
        done = true;
    };
    boost::asio::co_spawn(ioc, std::move(op), on_done);
    ioc.restart();
    ioc.run_for(limit);
    if (!done)
        throw std::runtime_error("run_coro: the coroutine did not finish within " +
                                 std::to_string(limit.count()) + " ms");
    if (error)
        std::rethrow_exception(error);
}

/// A Boost.Test fixture owning an io_context; teardown asserts that no work is left on it (a
/// pending timer, socket operation or coroutine means something leaked).
struct io_fixture
{
    boost::asio::io_context ioc;

    /// True when ioc has no outstanding work.
    bool no_leaked_work()
    {
        ioc.restart();
        ioc.poll();
        return ioc.stopped();
    }

    void teardown() { BOOST_TEST(no_leaked_work(), "work was left pending on the test io_context"); }
};

}  // namespace warpsmith::test
