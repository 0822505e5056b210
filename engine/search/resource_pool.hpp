#pragma once

// Serialized resources handed out one holder at a time: the GPUs of a run (a candidate's whole
// evaluation runs on one GPU, and nothing else runs there meanwhile) and the simulated compile
// workers. resource_queue holds the decisions (sans-I/O); resource_pool is its coroutine shell.
//
// Assignment rule: a request is granted a free resource at once when there is one, the free
// resource with the least accumulated busy time (then the lowest index), so that work spreads
// over idle GPUs; otherwise it waits in FIFO order and takes the first resource released. Because
// a request only waits when every resource is busy, a candidate never waits for one GPU while
// another is idle.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace warpsmith
{

class resource_queue
{
public:
    explicit resource_queue(int resources);

    struct grant
    {
        std::uint64_t ticket = 0;
        int resource = 0;
    };

    /// Grants a free resource now, or queues the ticket and returns nullopt.
    std::optional<int> acquire(std::uint64_t ticket);
    /// Frees a resource (adding the busy time it was used for) and returns the next waiter's grant.
    std::optional<grant> release(int resource, double busy_seconds);
    /// Withdraws a ticket: a waiting one leaves the queue; one that holds a resource releases it
    /// (with no busy time) and the next waiter's grant is returned.
    std::optional<grant> cancel(std::uint64_t ticket);

    int size() const { return static_cast<int>(holder_.size()); }
    int waiting() const { return static_cast<int>(waiting_.size()); }
    bool in_use(int resource) const { return holder_.at(resource).has_value(); }
    double busy_seconds(int resource) const { return busy_.at(resource); }

private:
    std::vector<std::optional<std::uint64_t>> holder_;
    std::vector<double> busy_;
    std::deque<std::uint64_t> waiting_;
};

class resource_pool
{
public:
    resource_pool(boost::asio::any_io_executor ex, int resources);
    ~resource_pool();

    /// Waits for a resource and returns its index. Completes on the pool's executor. Supports
    /// terminal cancellation while waiting (throws system_error operation_aborted; a grant that
    /// raced with the cancellation is given back). All calls from one thread (the io_context).
    boost::asio::awaitable<int> acquire();
    /// Gives a resource back; the next waiter, if any, gets it.
    void release(int resource, double busy_seconds = 0);

    const resource_queue& state() const { return queue_; }

private:
    struct waiter;
    void hand_over(std::optional<resource_queue::grant> g);

    boost::asio::any_io_executor ex_;
    resource_queue queue_;
    std::uint64_t next_ticket_ = 1;
    std::map<std::uint64_t, std::shared_ptr<waiter>> waiters_;
};

}  // namespace warpsmith
