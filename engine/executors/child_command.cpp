#include "engine/executors/child_command.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>

#include <cstdio>
#include <memory>
#include <optional>

namespace warpsmith
{

namespace asio = boost::asio;
namespace bp = boost::process::v2;
using namespace std::chrono_literals;

namespace
{

struct file_closer
{
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

std::string read_all(std::FILE* f)
{
    std::string text;
    std::rewind(f);
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        text.append(buf, n);
    return text;
}

}  // namespace

asio::awaitable<command_result> run_command(asio::any_io_executor ex,
                                            std::vector<std::string> argv,
                                            std::chrono::milliseconds timeout)
{
    command_result result;
    if (argv.empty())
    {
        result.err = "run_command: empty argv";
        co_return result;
    }
    bp::filesystem::path program = argv.front();
    if (argv.front().find('/') == std::string::npos)
        program = bp::environment::find_executable(argv.front());
    if (program.empty())
    {
        result.err = argv.front() + ": not found on PATH";
        co_return result;
    }
    // Files rather than pipes: the output may be megabytes, and nothing has to be read while it runs.
    file_ptr out(std::tmpfile());
    file_ptr err(std::tmpfile());
    if (!out || !err)
    {
        result.err = "run_command: cannot create a temporary file";
        co_return result;
    }
    std::vector<std::string> args(argv.begin() + 1, argv.end());
    std::optional<bp::process> proc;
    try
    {
        bp::process_stdio stdio{nullptr, out.get(), err.get()};
        proc.emplace(ex, program, args, stdio);
    }
    catch (const boost::system::system_error& e)
    {
        result.err = "cannot start " + argv.front() + ": " + e.code().message();
        co_return result;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    asio::steady_timer timer(ex);
    boost::system::error_code ec;
    while (proc->running(ec))
    {
        if (std::chrono::steady_clock::now() >= deadline)
        {
            proc->terminate(ec);
            result.timed_out = true;
            break;
        }
        timer.expires_after(10ms);
        co_await timer.async_wait(asio::use_awaitable);
    }
    if (!result.timed_out)
        result.exit_code = proc->exit_code();
    result.out = read_all(out.get());
    result.err = read_all(err.get());
    co_return result;
}

}  // namespace warpsmith
