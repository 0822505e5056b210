// GPU / compile-slot assignment: least-used free resource first, FIFO waiting, cancellation that
// races with a grant, and the coroutine shell on a virtual clock.

#include "engine/search/clock.hpp"
#include "engine/search/resource_pool.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/system/system_error.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
namespace asio = boost::asio;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(resource_pool_suite)

BOOST_AUTO_TEST_CASE(free_resources_go_to_the_least_used_then_waiters_queue_in_order)
{
    resource_queue q(2);
    BOOST_TEST(*q.acquire(1) == 0);
    BOOST_TEST(*q.acquire(2) == 1);
    BOOST_TEST(!q.acquire(3).has_value());
    BOOST_TEST(!q.acquire(4).has_value());
    BOOST_TEST(q.waiting() == 2);
    auto g = q.release(1, 5.0);
    BOOST_REQUIRE(g.has_value());
    BOOST_TEST(g->ticket == 3u);
    BOOST_TEST(g->resource == 1);
    g = q.release(0, 1.0);
    BOOST_TEST(g->ticket == 4u);
    BOOST_TEST(g->resource == 0);
    q.release(0, 0);
    q.release(1, 0);
    // GPU 0 has 1 s of work, GPU 1 has 5 s: the next request goes to GPU 0.
    BOOST_TEST(*q.acquire(5) == 0);
    BOOST_TEST(*q.acquire(6) == 1);
}

BOOST_AUTO_TEST_CASE(cancel_withdraws_a_waiter_or_passes_a_raced_grant_on)
{
    resource_queue q(1);
    q.acquire(1);
    q.acquire(2);
    q.acquire(3);
    BOOST_TEST(!q.cancel(2).has_value());
    BOOST_TEST(q.waiting() == 1);
    auto g = q.release(0, 0);
    BOOST_TEST(g->ticket == 3u);
    // Ticket 3 holds the resource but is cancelled before it notices: the resource is free again.
    q.acquire(4);
    g = q.cancel(3);
    BOOST_REQUIRE(g.has_value());
    BOOST_TEST(g->ticket == 4u);
}

namespace
{

asio::awaitable<void> hold(resource_pool& pool,
                           virtual_clock& clock,
                           std::vector<std::pair<int, double>>& log,
                           std::chrono::milliseconds d)
{
    const int r = co_await pool.acquire();
    log.emplace_back(r, clock.now_seconds());
    co_await clock.sleep_for(d);
    pool.release(r, std::chrono::duration<double>(d).count());
}

}  // namespace

BOOST_AUTO_TEST_CASE(pool_serializes_holders_on_the_virtual_clock)
{
    asio::io_context ioc;
    virtual_clock clock(ioc);
    resource_pool pool(ioc.get_executor(), 1);
    std::vector<std::pair<int, double>> log;
    int finished = 0;
    auto done = [&](std::exception_ptr e)
    {
        BOOST_TEST(!e);
        ++finished;
    };
    for (int i = 0; i < 3; ++i)
        asio::co_spawn(ioc, hold(pool, clock, log, 100ms), done);
    BOOST_REQUIRE(clock.run_until([&] { return finished == 3; }));
    BOOST_REQUIRE_EQUAL(log.size(), 3u);
    BOOST_TEST(std::abs(log[0].second - 0.0) < 1e-9);
    BOOST_TEST(std::abs(log[1].second - 0.1) < 1e-9);
    BOOST_TEST(std::abs(log[2].second - 0.2) < 1e-9);
    BOOST_TEST(pool.state().busy_seconds(0) == 0.3, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(a_cancelled_waiter_leaves_the_queue)
{
    asio::io_context ioc;
    virtual_clock clock(ioc);
    resource_pool pool(ioc.get_executor(), 1);
    std::vector<std::pair<int, double>> log;
    int finished = 0;
    bool aborted = false;
    asio::co_spawn(ioc, hold(pool, clock, log, 100ms), [&](std::exception_ptr) { ++finished; });
    asio::cancellation_signal sig;
    auto waiter = [&](std::exception_ptr e)
    {
        aborted = e != nullptr;
        ++finished;
    };
    asio::co_spawn(ioc, hold(pool, clock, log, 100ms), asio::bind_cancellation_slot(sig.slot(), waiter));
    ioc.poll();
    BOOST_TEST(pool.state().waiting() == 1);
    sig.emit(asio::cancellation_type::terminal);
    BOOST_REQUIRE(clock.run_until([&] { return finished == 2; }));
    BOOST_TEST(aborted);
    BOOST_TEST(log.size() == 1u);
    BOOST_TEST(pool.state().waiting() == 0);
    BOOST_TEST(!pool.state().in_use(0));
}

BOOST_AUTO_TEST_CASE(virtual_clock_orders_sleepers_and_supports_cancellation)
{
    asio::io_context ioc;
    virtual_clock clock(ioc);
    std::vector<std::pair<int, double>> woke;
    int done = 0;
    auto sleeper = [&](int id, std::chrono::milliseconds d) -> asio::awaitable<void>
    {
        co_await clock.sleep_for(d);
        woke.emplace_back(id, clock.now_seconds());
    };
    asio::co_spawn(ioc, sleeper(1, 300ms), [&](std::exception_ptr) { ++done; });
    asio::co_spawn(ioc, sleeper(2, 100ms), [&](std::exception_ptr) { ++done; });
    asio::cancellation_signal sig;
    std::exception_ptr cancelled;
    asio::co_spawn(ioc,
                   sleeper(3, 200ms),
                   asio::bind_cancellation_slot(sig.slot(),
                                                [&](std::exception_ptr e)
                                                {
                                                    cancelled = e;
                                                    ++done;
                                                }));
    ioc.poll();
    sig.emit(asio::cancellation_type::terminal);
    BOOST_REQUIRE(clock.run_until([&] { return done == 3; }));
    BOOST_REQUIRE_EQUAL(woke.size(), 2u);
    BOOST_TEST(woke[0].first == 2);
    BOOST_TEST(woke[1].first == 1);
    BOOST_TEST(std::abs(woke[1].second - 0.3) < 1e-9);
    BOOST_REQUIRE(cancelled);
    BOOST_CHECK_THROW(std::rethrow_exception(cancelled), boost::system::system_error);
    // Nothing runs, nobody sleeps, the condition never holds: a deadlock is reported, not a hang.
    BOOST_TEST(!clock.run_until([] { return false; }));
}

BOOST_AUTO_TEST_SUITE_END()
