#pragma once

// Time for the search loop and the simulated backend, real or virtual. The engine measures
// durations and sleeps (wall-time budget, grace period) only through a clock_source, so the same
// code runs on the steady clock in production and on a virtual clock in tests, where a simulated
// 2 s model call costs no real time and every overlap is decided by simulated timestamps, never by
// how busy the test machine is.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>

namespace warpsmith
{

class clock_source
{
public:
    using duration = std::chrono::nanoseconds;

    virtual ~clock_source() = default;
    /// Time since the clock started.
    virtual duration now() const = 0;
    /// Suspends for d. Completes on the awaiting coroutine's executor. Supports terminal
    /// cancellation: throws boost::system::system_error (operation_aborted).
    virtual boost::asio::awaitable<void> sleep_for(duration d) = 0;

    double now_seconds() const { return std::chrono::duration<double>(now()).count(); }
};

/// std::chrono::steady_clock and Asio steady timers.
class steady_clock_source final : public clock_source
{
public:
    steady_clock_source();
    duration now() const override;
    boost::asio::awaitable<void> sleep_for(duration d) override;

private:
    std::chrono::steady_clock::time_point start_;
};

/// A discrete-event clock: time stands still while handlers are ready and jumps to the earliest
/// sleeper's deadline once none is. Drive the io_context with run_until(), not run(). Single
/// threaded: use it from the io_context's one thread.
class virtual_clock final : public clock_source
{
public:
    explicit virtual_clock(boost::asio::io_context& ioc);
    ~virtual_clock();

    duration now() const override { return now_; }
    boost::asio::awaitable<void> sleep_for(duration d) override;

    /// Runs ready handlers until done() holds, advancing time whenever nothing is ready. Returns
    /// false when nothing is ready, nobody sleeps and done() is still false (a deadlock), or when
    /// virtual time passes limit.
    bool run_until(const std::function<bool()>& done, duration limit = std::chrono::hours(24 * 365));

private:
    struct sleeper
    {
        std::uint64_t id;
        boost::asio::any_completion_handler<void(boost::system::error_code)> handler;
    };
    template <class Token>
    auto async_sleep(duration d, Token&& token)
    {
        auto init = [this, d](auto handler) {
            start_sleep(
                boost::asio::any_completion_handler<void(boost::system::error_code)>(std::move(handler)), d);
        };
        return boost::asio::async_initiate<Token, void(boost::system::error_code)>(init, token);
    }
    void start_sleep(boost::asio::any_completion_handler<void(boost::system::error_code)> h, duration d);
    void finish(std::multimap<duration, sleeper>::iterator it, boost::system::error_code ec, bool from_slot);

    boost::asio::io_context& ioc_;
    duration now_{0};
    std::uint64_t next_id_ = 1;
    std::multimap<duration, sleeper> sleepers_;
};

}  // namespace warpsmith
