#include "engine/search/resource_pool.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <algorithm>

namespace warpsmith
{

namespace asio = boost::asio;

resource_queue::resource_queue(int resources)
    : holder_(static_cast<std::size_t>(std::max(1, resources))), busy_(holder_.size(), 0.0)
{
}

std::optional<int> resource_queue::acquire(std::uint64_t ticket)
{
    int best = -1;
    for (int i = 0; i < size(); ++i)
        if (!holder_[i] && (best < 0 || busy_[i] < busy_[best]))
            best = i;
    if (best < 0)
    {
        waiting_.push_back(ticket);
        return std::nullopt;
    }
    holder_[best] = ticket;
    return best;
}

std::optional<resource_queue::grant> resource_queue::release(int resource, double busy_seconds)
{
    auto& h = holder_.at(resource);
    if (!h)
        return std::nullopt;
    h.reset();
    busy_[resource] += std::max(0.0, busy_seconds);
    if (waiting_.empty())
        return std::nullopt;
    const auto next = waiting_.front();
    waiting_.pop_front();
    h = next;
    return grant{next, resource};
}

std::optional<resource_queue::grant> resource_queue::cancel(std::uint64_t ticket)
{
    if (auto it = std::find(waiting_.begin(), waiting_.end(), ticket); it != waiting_.end())
    {
        waiting_.erase(it);
        return std::nullopt;
    }
    for (int i = 0; i < size(); ++i)
        if (holder_[i] == ticket)
            return release(i, 0);
    return std::nullopt;
}

struct resource_pool::waiter
{
    explicit waiter(asio::any_io_executor ex) : ch(ex, 1) {}
    asio::experimental::channel<void(boost::system::error_code, int)> ch;
};

resource_pool::resource_pool(asio::any_io_executor ex, int resources) : ex_(std::move(ex)), queue_(resources)
{
}

resource_pool::~resource_pool() = default;

void resource_pool::hand_over(std::optional<resource_queue::grant> g)
{
    if (!g)
        return;
    if (auto it = waiters_.find(g->ticket); it != waiters_.end())
        it->second->ch.try_send(boost::system::error_code{}, g->resource);
}

asio::awaitable<int> resource_pool::acquire()
{
    const auto ticket = next_ticket_++;
    if (auto r = queue_.acquire(ticket))
        co_return *r;
    auto w = std::make_shared<waiter>(ex_);
    waiters_.emplace(ticket, w);
    auto [ec, resource] = co_await w->ch.async_receive(asio::as_tuple(asio::use_awaitable));
    waiters_.erase(ticket);
    if (ec)
    {
        // Cancelled while waiting; if the grant raced with the cancellation, pass it on.
        hand_over(queue_.cancel(ticket));
        throw boost::system::system_error(asio::error::operation_aborted);
    }
    co_return resource;
}

void resource_pool::release(int resource, double busy_seconds)
{
    hand_over(queue_.release(resource, busy_seconds));
}

}  // namespace warpsmith
