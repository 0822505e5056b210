#pragma once

// The CLI framework shared by every `warpsmith` subcommand (docs/cli.md):
//  * cli_main(): global flags (--version, --log-level), the log seam bound to spdlog on stderr, and
//    the error contract: user_error -> "warpsmith: <line>" on stderr, exit 2; a bad or unknown flag
//    -> one line, exit 2; any other exception -> one line, exit 1; never a stack trace.
//  * A command callback ends with exit_with(code) (0: returns normally) or by throwing.
//  * run_async() runs a command's coroutine on a fresh io_context with Ctrl-C handling.
//  * worker_options: --worker / --worker-cmd / --worker-arg, shared by GPU commands.

#include "engine/executors/worker_launch.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace warpsmith {

/// Parses argv with the commands add_commands registers and runs the chosen one; returns the
/// process exit code.
int cli_main(int argc, char** argv, const std::function<void(CLI::App&)>& add_commands);

/// Ends the running command with this exit code (throws CLI::RuntimeError for code != 0).
void exit_with(int code);

/// Runs body on a fresh single-threaded io_context until it completes and returns its value.
/// The first SIGINT/SIGTERM cancels body (terminal cancellation: workers are killed, frames unwind)
/// and run_async then throws user_error("interrupted"); a second one exits at once with 130.
int run_async(std::function<boost::asio::awaitable<int>(boost::asio::io_context&)> body);

/// How GPU commands start warpsmith-worker (SPEC §1 "Beyond one machine").
struct worker_options
{
    std::string worker;                 ///< --worker PATH (default: next to warpsmith).
    std::string worker_cmd;             ///< --worker-cmd 'ssh gpu7 warpsmith-worker'.
    std::vector<std::string> worker_args;  ///< --worker-arg ARG (repeatable), appended to the argv.

    void add_to(CLI::App& cmd);
    worker_launch launch() const;
};

/// Claims parent/<prefix>-NNN (three digits, one past the highest existing number) with mkdir,
/// creating parent first. Throws user_error when it cannot.
std::filesystem::path claim_numbered_dir(const std::filesystem::path& parent, std::string_view prefix);

/// Creates dir (and parents) for --out; user_error naming it when that fails.
void ensure_dir(const std::filesystem::path& dir);

/// One line: newlines and tabs become "; " / " " (what() of deep errors may span lines).
std::string one_line(std::string_view text);

}  // namespace warpsmith
