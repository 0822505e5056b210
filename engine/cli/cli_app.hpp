#pragma once

// The CLI framework shared by every `warpsmith` subcommand (docs/cli.md):
//  * cli_main(): the process made core-less and not dumpable before anything reads the API key
//    (keep_memory_private, harness/core/private_memory.hpp), global flags (--version,
//    --log-level), the log seam bound to spdlog on stderr, and
//    the error contract: user_error -> "warpsmith: <line>" on stderr, exit 2; a bad or unknown flag
//    -> one line, exit 2; any other exception -> one line, exit 1; never a stack trace.
//  * A command callback ends with exit_with(code) (0: returns normally) or by throwing.
//  * run_async() runs a command's coroutine on a fresh io_context with Ctrl-C handling: the first
//    Ctrl-C cancels it, or, for a command that finishes gracefully (optimize, tune), asks it to stop.
//  * worker_options: --worker / --worker-cmd / --worker-arg, shared by GPU commands.

#include "engine/executors/worker_launch.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI
{
class App;
class Validator;
}  // namespace CLI

namespace warpsmith
{

/// Parses argv with the commands add_commands registers and runs the chosen one; returns the
/// process exit code.
int cli_main(int argc, char** argv, const std::function<void(CLI::App&)>& add_commands);

/// Ends the running command with this exit code (throws CLI::RuntimeError for code != 0).
void exit_with(int code);

/// A command that finishes gracefully when interrupted: the first Ctrl-C calls `stop` instead of
/// cancelling the command (optimize and tune stop proposing, let the GPU finish its evaluation and
/// finalize the run). The command sets `stop` while it can stop that way and clears it after.
struct graceful_interrupt
{
    std::string notice;        ///< Logged (warn) at the first Ctrl-C.
    std::string abort_notice;  ///< Printed on stderr at the second, before exiting with 130.
    std::function<void()> stop;
};

/// Runs body on a fresh single-threaded io_context (on this thread) until it completes and returns
/// its value; body's exception is rethrown. A second SIGINT/SIGTERM exits at once with 130.
///  * Without `graceful`: the first one cancels body (terminal cancellation: workers are killed,
///    frames unwind), and run_async then prints "interrupted" and ends the command with 130.
///  * With `graceful` (it must outlive the call): the first one logs graceful->notice and calls
///    graceful->stop when set; body runs to its end, and run_async returns its value, or 130 when
///    that is 0.
int run_async(const std::function<boost::asio::awaitable<int>(boost::asio::io_context&)>& body,
              graceful_interrupt* graceful = nullptr);

/// Number checks for CLI11 options with plain messages ("--branches: must be at least 1, got 0"):
/// x >= min, or x > min when strict.
CLI::Validator number_check(double min, bool strict);

/// The WORKLOAD argument's transform: a bare name that is no path here ("sgemm") becomes the
/// bundled workload of that name (workloads/ of data_directory(), e.g.
/// /usr/share/warpsmith/workloads/sgemm) when there is one; anything else passes unchanged.
CLI::Validator bundled_workload();

/// How GPU commands start warpsmith-worker (SPEC §1 "Beyond one machine").
struct worker_options
{
    std::string worker;                    ///< --worker PATH (default: next to warpsmith).
    std::string worker_cmd;                ///< --worker-cmd 'ssh gpu7 warpsmith-worker'.
    std::vector<std::string> worker_args;  ///< --worker-arg ARG (repeatable), appended to the argv.

    void add_to(CLI::App& cmd);
    worker_launch launch() const;
};

/// One line: newlines and tabs become "; " / " " (what() of deep errors may span lines), and other
/// control characters are shown as \xNN (terminal_text: errors quote names others wrote).
std::string one_line(std::string_view text);

}  // namespace warpsmith
