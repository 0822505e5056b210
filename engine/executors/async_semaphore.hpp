#pragma once

// A counting semaphore for coroutines on one executor, granting units in strict FIFO order. The GPU
// executor uses it with one unit (an async mutex: requests reach the worker in the order they
// arrived); the compile pool with N units (at most N compiles at once, the rest wait in order).
//
// Threading: not thread-safe; acquire() and release() must run on the executor given at
// construction (the io_context thread). Waiters are parked on timers that never expire on their
// own; release() hands the unit to the oldest waiter and wakes it by cancelling its timer.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <deque>
#include <memory>

namespace warpsmith
{

class async_semaphore
{
public:
    async_semaphore(boost::asio::any_io_executor ex, int units);

    /// Waits for a unit (FIFO). Completes on the executor given at construction. Supports
    /// terminal, partial and total cancellation: a cancelled waiter leaves the queue and the call
    /// throws boost::system::system_error(operation_aborted). Pair with release(), e.g. through
    /// async_semaphore::permit.
    boost::asio::awaitable<void> acquire();

    /// Returns a unit: the oldest waiter gets it, else it becomes available.
    void release();

    /// Fails every current waiter with operation_aborted (shutdown); units held stay held.
    void abort_waiters();

    int available() const { return available_; }
    int waiting() const { return static_cast<int>(waiters_.size()); }

    /// Releases one unit on destruction (move-only).
    class permit
    {
    public:
        explicit permit(async_semaphore& s) : s_(&s) {}
        permit(permit&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
        permit& operator=(permit&&) = delete;
        ~permit()
        {
            if (s_)
                s_->release();
        }

    private:
        async_semaphore* s_;
    };

private:
    struct waiter;

    boost::asio::any_io_executor ex_;
    int available_;
    std::deque<std::shared_ptr<waiter>> waiters_;
};

}  // namespace warpsmith
