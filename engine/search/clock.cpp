#include "engine/search/clock.hpp"

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

namespace warpsmith
{

namespace asio = boost::asio;

steady_clock_source::steady_clock_source() : start_(std::chrono::steady_clock::now()) {}

clock_source::duration steady_clock_source::now() const
{
    return std::chrono::duration_cast<duration>(std::chrono::steady_clock::now() - start_);
}

asio::awaitable<void> steady_clock_source::sleep_for(duration d)
{
    asio::steady_timer timer(co_await asio::this_coro::executor);
    timer.expires_after(d);
    co_await timer.async_wait(asio::use_awaitable);
}

virtual_clock::virtual_clock(asio::io_context& ioc) : ioc_(ioc) {}

virtual_clock::~virtual_clock()
{
    // Sleepers still waiting belong to coroutines that are being torn down with the io_context;
    // their handlers are destroyed without being called.
    sleepers_.clear();
}

void virtual_clock::finish(std::multimap<duration, sleeper>::iterator it,
                           boost::system::error_code ec,
                           bool from_slot)
{
    auto h = std::move(it->second.handler);
    sleepers_.erase(it);
    // The slot's handler must not be destroyed while it runs (a cancellation); a stale handler left
    // behind finds no sleeper with its id and does nothing.
    auto slot = asio::get_associated_cancellation_slot(h);
    if (!from_slot && slot.is_connected())
        slot.clear();
    // Everything runs on the io_context's one thread, which is also every sleeper's executor.
    asio::post(ioc_, [h = std::move(h), ec]() mutable { std::move(h)(ec); });
}

void virtual_clock::start_sleep(asio::any_completion_handler<void(boost::system::error_code)> h, duration d)
{
    const auto id = next_id_++;
    auto slot = asio::get_associated_cancellation_slot(h);
    auto it = sleepers_.emplace(now_ + std::max(d, duration::zero()), sleeper{id, std::move(h)});
    if (slot.is_connected())
    {
        slot.assign(
            [this, id](asio::cancellation_type type)
            {
                if ((type & asio::cancellation_type::terminal) == asio::cancellation_type::none &&
                    (type & asio::cancellation_type::partial) == asio::cancellation_type::none &&
                    (type & asio::cancellation_type::total) == asio::cancellation_type::none)
                    return;
                for (auto s = sleepers_.begin(); s != sleepers_.end(); ++s)
                    if (s->second.id == id)
                    {
                        finish(s, asio::error::operation_aborted, true);
                        return;
                    }
            });
    }
    (void)it;
}

asio::awaitable<void> virtual_clock::sleep_for(duration d)
{
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await async_sleep(d, token);
    if (ec)
        throw boost::system::system_error(ec);
}

bool virtual_clock::run_until(const std::function<bool()>& done, duration limit)
{
    while (!done())
    {
        if (ioc_.stopped())
            ioc_.restart();
        if (ioc_.poll() > 0)
            continue;
        if (done())
            break;
        if (sleepers_.empty() || sleepers_.begin()->first > limit)
            return false;
        now_ = sleepers_.begin()->first;
        while (!sleepers_.empty() && sleepers_.begin()->first <= now_)
            finish(sleepers_.begin(), {}, false);
    }
    return true;
}

}  // namespace warpsmith
