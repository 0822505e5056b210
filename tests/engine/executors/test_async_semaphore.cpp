// FIFO grants and cancellation of the coroutine semaphore behind the GPU executor and compile pool.

#include "engine/executors/async_semaphore.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/detached.hpp>

#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using warpsmith::async_semaphore;
using warpsmith::test::pause;

namespace
{

asio::awaitable<void> hold(async_semaphore& s,
                           std::vector<std::string>& events,
                           std::string name,
                           std::chrono::milliseconds d)
{
    co_await s.acquire();
    async_semaphore::permit p(s);
    events.push_back(name + "+");
    co_await pause(d);
    events.push_back(name + "-");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(async_semaphore_suite)

BOOST_AUTO_TEST_CASE(one_unit_grants_in_fifo_order_without_overlap)
{
    asio::io_context ioc;
    async_semaphore s(ioc.get_executor(), 1);
    std::vector<std::string> events;
    for (const char* n : {"a", "b", "c", "d"})
        asio::co_spawn(ioc, hold(s, events, n, 5ms), asio::detached);
    ioc.run_for(5s);
    BOOST_TEST(ioc.stopped());
    BOOST_TEST(events == (std::vector<std::string>{"a+", "a-", "b+", "b-", "c+", "c-", "d+", "d-"}));
    BOOST_TEST(s.available() == 1);
    BOOST_TEST(s.waiting() == 0);
}

BOOST_AUTO_TEST_CASE(two_units_overlap_two_at_a_time)
{
    asio::io_context ioc;
    async_semaphore s(ioc.get_executor(), 2);
    std::vector<std::string> events;
    asio::co_spawn(ioc, hold(s, events, "a", 10ms), asio::detached);
    asio::co_spawn(ioc, hold(s, events, "b", 300ms), asio::detached);
    asio::co_spawn(ioc, hold(s, events, "c", 1ms), asio::detached);
    ioc.run_for(5s);
    // a and b start at once; c waits for the first unit to come back (a's), not for b.
    BOOST_TEST(events == (std::vector<std::string>{"a+", "b+", "a-", "c+", "c-", "b-"}));
    BOOST_TEST(s.available() == 2);
}

BOOST_AUTO_TEST_CASE(cancelled_waiter_leaves_the_queue)
{
    asio::io_context ioc;
    async_semaphore s(ioc.get_executor(), 1);
    std::vector<std::string> events;
    asio::cancellation_signal cancel_b;
    bool b_aborted = false;
    asio::co_spawn(ioc, hold(s, events, "a", 30ms), asio::detached);
    auto on_b = [&](std::exception_ptr e) { b_aborted = e != nullptr; };
    asio::co_spawn(ioc, hold(s, events, "b", 1ms), asio::bind_cancellation_slot(cancel_b.slot(), on_b));
    asio::co_spawn(ioc, hold(s, events, "c", 1ms), asio::detached);
    ioc.run_for(10ms);
    BOOST_TEST(s.waiting() == 2);
    cancel_b.emit(asio::cancellation_type::terminal);
    ioc.run_for(5s);
    BOOST_TEST(b_aborted);
    BOOST_TEST(events == (std::vector<std::string>{"a+", "a-", "c+", "c-"}));
    BOOST_TEST(s.available() == 1);
}

BOOST_AUTO_TEST_CASE(abort_fails_every_waiter)
{
    asio::io_context ioc;
    async_semaphore s(ioc.get_executor(), 1);
    std::vector<std::string> events;
    int aborted = 0;
    auto count = [&](std::exception_ptr e) { aborted += e != nullptr; };
    asio::co_spawn(ioc, hold(s, events, "a", 20ms), asio::detached);
    asio::co_spawn(ioc, hold(s, events, "b", 1ms), count);
    asio::co_spawn(ioc, hold(s, events, "c", 1ms), count);
    ioc.run_for(5ms);
    s.abort_waiters();
    ioc.run_for(5s);
    BOOST_TEST(aborted == 2);
    BOOST_TEST(events == (std::vector<std::string>{"a+", "a-"}));
    BOOST_TEST(s.available() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
