#pragma once

// A short-lived helper program run to completion from a coroutine, its stdout and stderr
// captured: e.g. `ncu --version` or `ncu --import R.ncu-rep --csv` (engine/profile). Not for
// workers, which speak a protocol (worker_process.hpp).

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace warpsmith
{

struct command_result
{
    int exit_code = -1;      ///< -1 when it could not start or was killed at the timeout.
    bool timed_out = false;  ///< Killed after `timeout`.
    std::string out;         ///< Everything it wrote to stdout.
    std::string err;         ///< Everything it wrote to stderr.
};

/// Runs argv (argv[0] a path or a name on PATH) with stdin from /dev/null. Completes on `ex`;
/// never throws for the program's failures (a program that cannot start has exit_code -1 and the
/// reason in err). The wait polls every few milliseconds, so it suits programs that run for
/// tens of milliseconds or more.
boost::asio::awaitable<command_result> run_command(boost::asio::any_io_executor ex,
                                                   std::vector<std::string> argv,
                                                   std::chrono::milliseconds timeout);

}  // namespace warpsmith
