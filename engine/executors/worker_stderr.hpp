#pragma once

// The stderr of a worker process (worker_process.cpp): a detached reader keeps the last lines for
// error messages and logs every line at debug level.

#include "harness/core/log.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

namespace warpsmith
{

inline constexpr std::size_t max_stderr_line = 4096;
inline constexpr std::size_t stderr_tail_lines = 40;

/// The child's stderr, read by a detached coroutine that owns this state through a shared_ptr, so
/// the reader may finish after the worker_process is gone (closing the pipe only cancels its read).
struct stderr_state
{
    explicit stderr_state(const boost::asio::any_io_executor& ex) : pipe(ex), eof_signal(ex) {}

    boost::asio::readable_pipe pipe;
    std::string label;
    std::deque<std::string> tail;
    bool done = false;
    /// Never expires on its own; cancelled when the reader reaches EOF, so that code which wants
    /// the child's last words can wait briefly for them.
    boost::asio::steady_timer eof_signal;

    void add(std::string line)
    {
        log(log_level::debug, "[" + label + "] " + line);
        tail.push_back(std::move(line));
        while (tail.size() > stderr_tail_lines)
            tail.pop_front();
    }
};

/// Reads the child's stderr until EOF or an error, line by line (lines longer than max_stderr_line
/// are cut); then sets `done` and cancels `eof_signal`.
boost::asio::awaitable<void> read_stderr(std::shared_ptr<stderr_state> s);

}  // namespace warpsmith
