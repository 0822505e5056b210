#include "engine/executors/async_semaphore.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <algorithm>

namespace warpsmith
{

namespace asio = boost::asio;

struct async_semaphore::waiter
{
    explicit waiter(const asio::any_io_executor& ex) : timer(ex, asio::steady_timer::time_point::max()) {}

    asio::steady_timer timer;
    bool granted = false;
    bool aborted = false;
};

async_semaphore::async_semaphore(asio::any_io_executor ex, int units) : ex_(std::move(ex)), available_(units)
{
}

asio::awaitable<void> async_semaphore::acquire()
{
    if (available_ > 0 && waiters_.empty())
    {
        --available_;
        co_return;
    }
    auto w = std::make_shared<waiter>(ex_);
    waiters_.push_back(w);
    auto [ec] = co_await w->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
    // The timer never expires, so any completion is a wake-up: a grant from release(), an abort,
    // or our own cancellation. A grant wins even if a cancellation raced with it; the caller's
    // permit then returns the unit.
    if (w->granted)
        co_return;
    auto it = std::find(waiters_.begin(), waiters_.end(), w);
    if (it != waiters_.end())
        waiters_.erase(it);
    throw boost::system::system_error(asio::error::operation_aborted,
                                      w->aborted ? "semaphore shut down" : "semaphore wait cancelled");
}

void async_semaphore::release()
{
    while (!waiters_.empty())
    {
        auto w = std::move(waiters_.front());
        waiters_.pop_front();
        if (w->aborted)
            continue;
        w->granted = true;
        w->timer.cancel();
        return;
    }
    ++available_;
}

void async_semaphore::abort_waiters()
{
    auto waiters = std::move(waiters_);
    waiters_.clear();
    for (auto& w : waiters)
    {
        w->aborted = true;
        w->timer.cancel();
    }
}

}  // namespace warpsmith
