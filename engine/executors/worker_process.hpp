#pragma once

// One warpsmith-worker child process speaking JSON lines over stdin/stdout
// (docs/worker-protocol.md), driven from coroutines (Boost.Process v2 + Asio pipes).
//
// Not thread-safe: use one worker_process from one strand / the io_context thread. Requests are
// strictly serial; request() must not be called again before the previous one completed.

#include "harness/core/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

/// How a child is started beyond its argv: by default it inherits warpsmith's environment and
/// working directory. Compile workers get an environment without credentials and an empty
/// directory of their own (compile_pool.cpp, harness/compile/compile_sandbox.hpp).
struct worker_spawn_options
{
    /// NAME=VALUE, replacing the whole environment; without it, ours without credentials
    /// (environment_without_secrets).
    std::optional<std::vector<std::string>> environment;
    std::optional<std::string> start_dir;  ///< Working directory of the child.
};

class worker_process
{
public:
    /// argv[0] is the program; label names the worker in logs ("gpu0", "compile3").
    worker_process(boost::asio::any_io_executor ex,
                   std::vector<std::string> argv,
                   std::string label,
                   worker_spawn_options spawn = {});
    ~worker_process();  ///< Kills the child if still running.
    worker_process(const worker_process&) = delete;
    worker_process& operator=(const worker_process&) = delete;

    /// Spawns the child and exchanges `hello`. Completes on the executor given at construction.
    /// Throws system_error (errc::worker_exited / worker_timeout / worker_protocol), or
    /// user_error when the program cannot be started (one line naming it).
    boost::asio::awaitable<boost::json::object> start(std::chrono::milliseconds deadline);

    /// Sends one request (an "id" is assigned) and returns the response object ("ok" true or false)
    /// with the same id. Throws system_error: errc::worker_exited when the child ends first
    /// (exit code available from exit_code()), errc::worker_timeout past the deadline (the child is
    /// killed), errc::worker_protocol on a malformed line. Supports terminal cancellation (kills).
    boost::asio::awaitable<boost::json::object> request(boost::json::object req,
                                                        std::chrono::milliseconds deadline);

    /// Asks politely (shutdown request, then SIGTERM, then SIGKILL after grace).
    boost::asio::awaitable<void> stop(std::chrono::milliseconds grace);
    /// SIGKILL now (the whole process group: a `--worker-cmd` shell and what it started).
    void kill();

    /// Waits up to `timeout` for the child to exit (e.g. after a response carrying
    /// "worker_restart": true) and reaps it. Returns the exit code, or -1 when it is still running.
    /// Completes on the executor given at construction; does not kill.
    boost::asio::awaitable<int> wait_exit(std::chrono::milliseconds timeout);

    bool running() const;
    int exit_code() const;  ///< -1 while running or unknown; 128+N after signal N.
    /// "exit code 3", "killed by signal 9", or "running".
    std::string exit_description() const;
    int pid() const;  ///< -1 before start.
    const boost::json::object& hello() const;
    const std::string& label() const;
    /// The last lines the child wrote to stderr (kept for diagnosis of crashes).
    std::string stderr_tail() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// The warpsmith errc carried by an exception thrown by worker_process (worker_exited,
/// worker_timeout, worker_protocol), if it carries one.
std::optional<errc> worker_errc(const boost::system::system_error& e);

}  // namespace warpsmith
