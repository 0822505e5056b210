#include "engine/cli/cli_app.hpp"

#include "engine/cli/build_info.hpp"
#include "harness/core/data_directory.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/core/private_memory.hpp"
#include "harness/core/terminal_text.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/signal_set.hpp>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace warpsmith
{

namespace asio = boost::asio;

namespace
{

void print_error(std::string_view message)
{
    std::string line = "warpsmith: " + one_line(message) + "\n";
    std::fflush(stdout);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

spdlog::level::level_enum to_spdlog(log_level l)
{
    switch (l)
    {
        case log_level::debug:
            return spdlog::level::debug;
        case log_level::info:
            return spdlog::level::info;
        case log_level::warn:
            return spdlog::level::warn;
        case log_level::error:
            return spdlog::level::err;
    }
    return spdlog::level::info;
}

log_level parse_level(const std::string& name)
{
    if (name == "debug")
        return log_level::debug;
    if (name == "info")
        return log_level::info;
    if (name == "error")
        return log_level::error;
    return log_level::warn;
}

/// The library's log seam goes to spdlog on stderr (stdout carries tables and JSON only).
void bind_logging(log_level min)
{
    static std::shared_ptr<spdlog::logger> logger = []
    {
        auto l = spdlog::stderr_color_mt("warpsmith");
        l->set_pattern("%^[%H:%M:%S.%e %l]%$ %v");
        l->set_level(spdlog::level::debug);
        return l;
    }();
    auto sink = [](log_level level, std::string_view message)
    { logger->log(to_spdlog(level), "{}", terminal_text(message)); };
    set_log_sink(sink, min);
}

constexpr const char* main_footer = R"(Examples:
  warpsmith device-info
  warpsmith compile kernel.cu --arch sm_90
  warpsmith eval bench/workloads/sgemm --kernel my_sgemm.cu
  warpsmith run results/eval-001/requests/odd-small.json

Exit codes: 0 success, 1 the kernel failed (compile error, invalid result) or an internal error,
2 bad input (a flag, a file, no GPU). Documentation: docs/cli.md.)";

}  // namespace

std::string one_line(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    bool pending_break = false;
    for (char c : text)
    {
        if (c == '\n' || c == '\r')
        {
            pending_break = true;
            continue;
        }
        if (pending_break && (c == ' ' || c == '\t'))
            continue;
        if (pending_break && !out.empty())
        {
            while (!out.empty() && out.back() == ' ')
                out.pop_back();
            out += (!out.empty() && (out.back() == ':' || out.back() == ';')) ? " " : "; ";
        }
        pending_break = false;
        out += c == '\t' ? ' ' : c;
    }
    return terminal_text(out);
}

void exit_with(int code)
{
    if (code != 0)
        throw CLI::RuntimeError(code);
}

int cli_main(int argc, char** argv, const std::function<void(CLI::App&)>& add_commands)
{
    bind_logging(log_level::warn);
    // Before any command reads the API key: no core file, no /proc/<pid>/environ or mem for other
    // processes of this user (docs/hardening.md, "The CLI's memory").
    if (const auto privacy = keep_memory_private(); !privacy.ok())
        log_warn("the process's memory is not private: " + privacy.problem);
    CLI::App app{"warpsmith: an agentic CUDA kernel optimizer.", "warpsmith"};
    app.set_version_flag(
        "--version", version_text, "Print the version, the source commit, and where the worker and data are");
    app.footer(main_footer);
    app.require_subcommand(1);
    app.fallthrough();
    std::string level = "warn";
    auto on_level = [](const std::string& value) { bind_logging(parse_level(value)); };
    app.add_option("--log-level", level, "Diagnostics on stderr: debug, info, warn (default), error")
        ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
        ->each(on_level);
    add_commands(app);

    try
    {
        app.parse(argc, argv);
        return 0;
    }
    catch (const CLI::CallForHelp& e)
    {
        return app.exit(e);
    }
    catch (const CLI::CallForAllHelp& e)
    {
        return app.exit(e);
    }
    catch (const CLI::CallForVersion& e)
    {
        return app.exit(e);
    }
    catch (const CLI::RuntimeError& e)
    {
        return e.get_exit_code();
    }
    catch (const CLI::ParseError& e)
    {
        print_error(std::string(e.what()) + " (see 'warpsmith --help')");
        return 2;
    }
    catch (const user_error& e)
    {
        print_error(e.what());
        return 2;
    }
    catch (const std::exception& e)
    {
        print_error(std::string("error: ") + e.what());
        return 1;
    }
    catch (...)
    {
        print_error("error: unknown exception");
        return 1;
    }
}

int run_async(const std::function<asio::awaitable<int>(asio::io_context&)>& body,
              graceful_interrupt* graceful)
{
    asio::io_context ioc;
    asio::signal_set signals(ioc, SIGINT, SIGTERM);
    asio::cancellation_signal cancel;
    int result = 0;
    std::exception_ptr error;
    bool interrupted = false;

    std::function<void(const boost::system::error_code&, int)> on_signal;
    on_signal = [&](const boost::system::error_code& ec, int sig)
    {
        if (ec)
            return;
        if (interrupted)
        {
            if (graceful && !graceful->abort_notice.empty())
                std::fputs(("\nwarpsmith: " + graceful->abort_notice + "\n").c_str(), stderr);
            std::_Exit(130);
        }
        interrupted = true;
        if (graceful)
        {
            log_warn(graceful->notice);
            if (graceful->stop)
                graceful->stop();
        }
        else
        {
            log_warn(std::string("interrupted (") + ::strsignal(sig) +
                     "); stopping the workers. Again to abort at once.");
            cancel.emit(asio::cancellation_type::terminal);
        }
        signals.async_wait(on_signal);
    };
    signals.async_wait(on_signal);

    auto on_done = [&](std::exception_ptr e, int value)
    {
        error = std::move(e);
        result = value;
        boost::system::error_code ignored;
        signals.cancel(ignored);
    };
    asio::co_spawn(ioc, body(ioc), asio::bind_cancellation_slot(cancel.slot(), on_done));
    ioc.run();
    if (interrupted && !graceful)
    {
        print_error("interrupted");
        throw CLI::RuntimeError(130);
    }
    if (error)
        std::rethrow_exception(error);
    return interrupted && result == 0 ? 130 : result;
}

CLI::Validator number_check(double min, bool strict)
{
    auto check = [min, strict](std::string& text) -> std::string
    {
        double x = 0;
        try
        {
            std::size_t used = 0;
            x = std::stod(text, &used);
            if (used != text.size())
                return "not a number: " + text;
        }
        catch (const std::exception&)
        {
            return "not a number: " + text;
        }
        if (strict ? x > min : x >= min)
            return {};
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", min);
        return std::string(strict ? "must be greater than " : "must be at least ") + buf + ", got " + text;
    };
    return CLI::Validator(check, "", "");
}

CLI::Validator bundled_workload()
{
    auto resolve = [](std::string& text) -> std::string
    {
        std::error_code ec;
        if (text.empty() || text.find('/') != std::string::npos || std::filesystem::exists(text, ec))
            return {};
        if (const auto data = data_directory())
        {
            const auto bundled = *data / "workloads" / text;
            if (std::filesystem::is_directory(bundled, ec))
                text = bundled.string();
        }
        return {};
    };
    return CLI::Validator(resolve, "", "");
}

void worker_options::add_to(CLI::App& cmd)
{
    cmd.add_option(
        "--worker", worker, "The warpsmith-worker binary (default: next to warpsmith, else on PATH)");
    cmd.add_option("--worker-cmd",
                   worker_cmd,
                   "Start the GPU worker through this command (run by /bin/sh); {device} is replaced by the "
                   "device index, else '--device K' is appended. E.g. 'ssh gpu7 warpsmith-worker'");
    cmd.add_option("--worker-arg",
                   worker_args,
                   "One more argument for the worker (repeatable; write --worker-arg=--flag for flags)");
}

worker_launch worker_options::launch() const
{
    worker_launch l;
    l.worker_binary = worker.empty() ? worker_launch::default_worker_binary() : worker;
    if (!worker_cmd.empty())
        l.command = worker_cmd;
    l.extra_args = worker_args;
    return l;
}

}  // namespace warpsmith
