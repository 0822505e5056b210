#include "engine/executors/worker_process.hpp"

#include "engine/executors/command_line.hpp"
#include "engine/executors/line_framer.hpp"
#include "engine/executors/worker_error_text.hpp"
#include "engine/executors/worker_stderr.hpp"
#include "harness/compile/compile_sandbox.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/core/secret_redaction.hpp"
#include "harness/json/json_location.hpp"
#include "harness/json/lenient.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <sys/wait.h>
#include <unistd.h>

namespace warpsmith
{

namespace asio = boost::asio;
namespace bp = boost::process::v2;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace
{

/// A protocol line may carry an evaluation result for many cases, but never more than this; a child
/// that writes megabytes without a newline is broken, and we stop buffering.
constexpr std::size_t max_response_line = 64u << 20;

/// Writing to a pipe whose reader died raises SIGPIPE, which would kill warpsmith itself; with it
/// ignored the write fails with EPIPE and the worker is treated as exited.
void ignore_sigpipe_once()
{
    static std::once_flag once;
    std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

/// Runs in the child between fork and exec: a process group of its own, so that stopping a worker
/// reaches everything a `--worker-cmd` shell started (ssh, srun), and so that the terminal's Ctrl-C
/// goes to warpsmith alone, which then decides how to stop its workers (SPEC §4 "Cancellation").
struct new_process_group
{
    template <typename Launcher>
    bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*&)
    {
        if (::setpgid(0, 0) != 0)
            return bp::error_code(errno, boost::system::system_category());
        return {};
    }
};

/// The child's environment and working directory (worker_spawn_options). (Boost 1.81's
/// bp::process_environment leaves its POSIX on_setup undefined in header-only builds.)
struct environment_and_dir
{
    std::vector<const char*> env;  // Points into the strings of the worker_spawn_options; null-terminated.
    std::string dir;

    template <typename Launcher>
    bp::error_code on_setup(Launcher& launcher, const bp::filesystem::path&, const char* const*)
    {
        launcher.env = env.data();
        return {};
    }

    template <typename Launcher>
    bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*&)
    {
        if (!dir.empty() && ::chdir(dir.c_str()) != 0)
            return bp::error_code(errno, boost::system::system_category());
        return {};
    }
};

system_error make_error(errc e, const std::string& what)
{
    return system_error(make_error_code(e), what);
}

std::string excerpt(std::string_view text, std::size_t n = 120)
{
    if (text.size() <= n)
        return std::string(text);
    return std::string(text.substr(0, n)) + "...";
}

}  // namespace

std::optional<errc> worker_errc(const boost::system::system_error& e)
{
    if (e.code().category() == warpsmith_category())
        return static_cast<errc>(e.code().value());
    return std::nullopt;
}

struct worker_process::impl
{
    impl(asio::any_io_executor executor,
         std::vector<std::string> args,
         std::string name,
         worker_spawn_options s)
        : ex(std::move(executor)),
          argv(std::move(args)),
          label(std::move(name)),
          spawn(std::move(s)),
          in(ex),
          out(ex),
          err(std::make_shared<stderr_state>(ex)),
          framer(max_response_line)
    {
        err->label = label;
    }

    ~impl()
    {
        boost::system::error_code ec;
        in.close(ec);
        out.close(ec);
        err->pipe.close(ec);
        if (proc && !exited)
            signal_group(SIGKILL);
        // ~process() then reaps the killed child (terminate_if_running: kill + waitpid).
    }

    asio::any_io_executor ex;
    std::vector<std::string> argv;
    std::string label;
    worker_spawn_options spawn;
    asio::writable_pipe in;
    asio::readable_pipe out;
    std::shared_ptr<stderr_state> err;
    std::optional<bp::process> proc;
    line_framer framer;
    std::array<char, 65536> read_buf;
    json::object hello;
    std::int64_t next_id = 0;
    bool busy = false;
    bool exited = false;
    int code = -1;
    int native_status = 0;

    void signal_group(int sig)
    {
        if (!proc || exited)
            return;
        pid_t pid = proc->id();
        if (pid <= 0)
            return;
        if (::kill(-pid, sig) != 0)
            ::kill(pid, sig);
    }

    void record_exit(int native)
    {
        exited = true;
        native_status = native;
        if (WIFEXITED(native))
            code = WEXITSTATUS(native);
        else if (WIFSIGNALED(native))
            code = 128 + WTERMSIG(native);
        else
            code = native;
    }

    std::string describe_exit() const
    {
        if (!exited)
            return "running";
        if (WIFSIGNALED(native_status))
            return "killed by signal " + std::to_string(WTERMSIG(native_status));
        return "exit code " + std::to_string(code);
    }

    std::string last_stderr_line() const
    {
        for (auto it = err->tail.rbegin(); it != err->tail.rend(); ++it)
            if (!it->empty())
                return *it;
        return {};
    }

    /// Polls without blocking; reaps an exited child.
    bool poll_running()
    {
        if (!proc || exited)
            return false;
        boost::system::error_code ec;
        bool r = proc->running(ec);
        if (ec)
            return false;
        if (!r)
            record_exit(proc->native_exit_code());
        return r;
    }

    /// Waits up to timeout for the child to exit; true when it did (and it is reaped).
    asio::awaitable<bool> wait_exit_for(std::chrono::milliseconds timeout)
    {
        if (!proc || exited)
            co_return true;
        if (!poll_running())
            co_return true;
        asio::steady_timer timer(ex, timeout);
        auto wait_op = proc->async_wait(asio::deferred);
        auto timer_op = timer.async_wait(asio::deferred);
        auto [order, wait_ec, status, timer_ec] =
            co_await asio::experimental::make_parallel_group(std::move(wait_op), std::move(timer_op))
                .async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
        (void)status;
        (void)timer_ec;
        if (order[0] == 0 && !wait_ec)
        {
            record_exit(proc->native_exit_code());
            co_return true;
        }
        co_return !poll_running();
    }

    /// Kills the child (whole group) and reaps it.
    asio::awaitable<void> kill_and_reap()
    {
        signal_group(SIGKILL);
        // SIGKILL cannot be ignored, but a child inside a driver call may take a moment to die.
        for (;;)
        {
            bool gone = co_await wait_exit_for(10s);
            if (gone)
                break;
            signal_group(SIGKILL);
        }
    }

    /// Gives the stderr reader a moment to deliver the child's last lines.
    asio::awaitable<void> drain_stderr()
    {
        if (err->done)
            co_return;
        err->eof_signal.expires_after(300ms);
        co_await err->eof_signal.async_wait(asio::as_tuple(asio::use_awaitable));
    }

    /// The child closed stdout or its stdin: collect its exit and throw worker_exited.
    asio::awaitable<void> throw_exited(std::string_view during)
    {
        bool gone = co_await wait_exit_for(2s);
        if (!gone)
            co_await kill_and_reap();
        co_await drain_stderr();
        std::string what =
            label + ": worker exited (" + describe_exit() + ") during '" + std::string(during) + "'";
        if (auto last = last_stderr_line(); !last.empty())
            what += ": " + excerpt(last, 200);
        log(log_level::warn, what);
        throw make_error(errc::worker_exited, what);
    }

    json::object check_response(const std::string& line, std::int64_t id, std::string_view op)
    {
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        if (ec || !v.is_object())
            throw make_error(errc::worker_protocol,
                             label + ": '" + std::string(op) +
                                 "' answered with a line that is not a JSON object: " + excerpt(line));
        auto& o = v.get_object();
        worker_envelope envelope;
        try
        {
            envelope = worker_envelope_of(o, op);
        }
        catch (const json_error& e)
        {
            throw make_error(errc::worker_protocol, label + ": " + e.what() + ": " + excerpt(line));
        }
        if (envelope.id != id)
            throw make_error(errc::worker_protocol,
                             label + ": response id does not match request " + std::to_string(id) + " ('" +
                                 std::string(op) + "'): " + excerpt(line));
        return std::move(o);
    }

    /// Writes one request line and reads its response line. Throws like request().
    asio::awaitable<json::object> exchange(std::string line, std::int64_t id, std::string op)
    {
        auto [wec, wn] =
            co_await asio::async_write(in, asio::buffer(line), asio::as_tuple(asio::use_awaitable));
        (void)wn;
        if (wec == asio::error::operation_aborted)
            throw_system_error(wec, label + ": '" + op + "' cancelled");
        if (wec)
        {
            // EPIPE: the child is gone. Whatever it wrote before dying is not an answer.
            co_await throw_exited(op);
        }
        for (;;)
        {
            while (auto resp = framer.next_line())
            {
                if (resp->empty())
                    continue;
                co_return check_response(*resp, id, op);
            }
            if (framer.overflowed())
                throw make_error(errc::worker_protocol,
                                 label + ": response to '" + op + "' exceeds " +
                                     std::to_string(max_response_line) + " bytes");
            auto [ec, n] =
                co_await out.async_read_some(asio::buffer(read_buf), asio::as_tuple(asio::use_awaitable));
            if (ec == asio::error::eof)
                co_await throw_exited(op);
            if (ec)
                throw_system_error(ec, label + ": reading the response to '" + op + "'");
            framer.feed(std::string_view(read_buf.data(), n));
        }
    }

    asio::awaitable<json::object> request(json::object req, std::chrono::milliseconds deadline)
    {
        if (!proc || exited)
            throw make_error(errc::worker_exited,
                             label + ": worker is not running (" + describe_exit() + ")");
        if (busy)
            throw std::logic_error(label +
                                   ": worker_process::request called while another request is in flight");
        busy = true;
        struct busy_reset
        {
            bool& flag;
            ~busy_reset() { flag = false; }
        } reset{busy};

        std::int64_t id = ++next_id;
        req["id"] = id;
        std::string op = lenient::string_or(req, "op", "?");
        std::string line = to_json_text(req);
        line += '\n';

        asio::steady_timer timer(ex, deadline);
        auto exchange_op = asio::co_spawn(ex, exchange(std::move(line), id, op), asio::deferred);
        auto timer_op = timer.async_wait(asio::deferred);
        auto [order, eptr, resp, timer_ec] =
            co_await asio::experimental::make_parallel_group(std::move(exchange_op), std::move(timer_op))
                .async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
        (void)timer_ec;

        if (order[0] == 1)
        {
            // The deadline passed first; the exchange was cancelled, so the child may be stuck in
            // a kernel or a driver call. It cannot be trusted with another request.
            co_await kill_and_reap();
            std::string what = label + ": no answer to '" + op + "' within " +
                               std::to_string(deadline.count()) + " ms; worker killed";
            log(log_level::warn, what);
            throw make_error(errc::worker_timeout, what);
        }
        if (eptr)
        {
            bool exited_already = false;
            bool cancelled = false;
            try
            {
                std::rethrow_exception(eptr);
            }
            catch (const boost::system::system_error& e)
            {
                exited_already = worker_errc(e) == errc::worker_exited;
                cancelled = e.code() == asio::error::operation_aborted;
            }
            catch (...)
            {
            }
            // A protocol violation or a cancelled exchange leaves the stream mid-message; the only
            // safe continuation is a new worker. When our caller was cancelled, every further
            // co_await would throw, so the child is only signalled here and reaped later (by
            // running(), stop() or the destructor).
            if (cancelled)
                signal_group(SIGKILL);
            else if (!exited_already)
                co_await kill_and_reap();
            std::rethrow_exception(eptr);
        }
        co_return std::move(resp);
    }
};

worker_process::worker_process(asio::any_io_executor ex,
                               std::vector<std::string> argv,
                               std::string label,
                               worker_spawn_options spawn)
    : impl_(std::make_unique<impl>(std::move(ex), std::move(argv), std::move(label), std::move(spawn)))
{
    if (impl_->argv.empty())
        throw std::invalid_argument("worker_process: empty argv");
}

worker_process::~worker_process() = default;

namespace
{

/// A worker that compiles outside the Landlock sandbox (its hello's "compile_sandbox") is said once
/// per process: its compiles rely on the include policy and a clean environment alone.
void warn_unsandboxed_compiles(const json::object& hello, const std::string& label)
{
    static std::atomic<bool> warned{false};
    const json::object* sandbox = lenient::object_at(hello, "compile_sandbox");
    const auto status = lenient::string_at(sandbox, "status");
    if (!status || *status == "applied" || *status == "not requested" || warned.exchange(true))
        return;
    const std::string detail = lenient::string_or(sandbox, "detail");
    log(log_level::warn,
        label + ": compiles run without the Landlock file-system sandbox (" + *status +
            (detail.empty() ? "" : ": " + detail) +
            "); what stops a kernel from reading host files there is the include policy alone "
            "(docs/hardening.md)");
}

}  // namespace

asio::awaitable<json::object> worker_process::start(std::chrono::milliseconds deadline)
{
    auto& d = *impl_;
    if (d.proc)
        throw std::logic_error(d.label + ": worker_process::start called twice");
    ignore_sigpipe_once();
    auto program = resolve_program(d.argv.front());
    if (!program)
        throw user_error("cannot start worker '" + d.argv.front() + "': not found or not executable");
    std::vector<std::string> args(d.argv.begin() + 1, d.argv.end());
    try
    {
        bp::process_stdio stdio{d.in, d.out, d.err->pipe};
        // The child's environment when given; otherwise ours without credentials: a worker runs
        // and compiles candidates' code and needs no key (docs/hardening.md, "No key in a worker").
        const std::vector<std::string> env =
            d.spawn.environment ? *d.spawn.environment : environment_without_secrets(current_environment());
        environment_and_dir setup;
        for (const auto& e : env)
            setup.env.push_back(e.c_str());
        setup.env.push_back(nullptr);
        setup.dir = d.spawn.start_dir.value_or("");
        d.proc.emplace(
            d.ex, bp::filesystem::path(program->string()), args, stdio, new_process_group{}, setup);
    }
    catch (const boost::system::system_error& e)
    {
        throw user_error("cannot start worker '" + d.argv.front() + "': " + e.code().message());
    }
    log(log_level::debug, d.label + ": started pid " + std::to_string(d.proc->id()));
    asio::co_spawn(d.ex, read_stderr(d.err), asio::detached);

    json::object hello_req;
    hello_req["op"] = "hello";
    json::object resp = co_await d.request(std::move(hello_req), deadline);
    if (!worker_ok(resp))
    {
        const worker_refusal why = worker_refusal_of(resp);
        co_await stop(2s);
        throw user_error(d.label + ": worker refused to start (" + why.kind + "): " + why.message);
    }
    d.hello = resp;
    warn_unsandboxed_compiles(resp, d.label);
    co_return resp;
}

asio::awaitable<json::object> worker_process::request(json::object req, std::chrono::milliseconds deadline)
{
    return impl_->request(std::move(req), deadline);
}

asio::awaitable<void> worker_process::stop(std::chrono::milliseconds grace)
{
    auto& d = *impl_;
    if (!d.proc || d.exited)
        co_return;
    boost::system::error_code ec;
    if (!d.busy && d.poll_running())
    {
        json::object req;
        req["op"] = "shutdown";
        try
        {
            co_await d.request(std::move(req), grace);
        }
        catch (const system_error&)
        {
            // Already gone or killed by the request's deadline: nothing more to ask. Asio's own
            // cancellation (a plain boost::system::system_error) ends stop() as before.
        }
    }
    // EOF on stdin means shutdown too (protocol), for a worker that missed the request.
    d.in.close(ec);
    bool gone = co_await d.wait_exit_for(grace);
    if (gone)
        co_return;
    log(log_level::warn, d.label + ": worker ignored shutdown; sending SIGTERM");
    d.signal_group(SIGTERM);
    gone = co_await d.wait_exit_for(grace);
    if (gone)
        co_return;
    log(log_level::warn, d.label + ": worker ignored SIGTERM; sending SIGKILL");
    co_await d.kill_and_reap();
}

void worker_process::kill()
{
    impl_->signal_group(SIGKILL);
}

asio::awaitable<int> worker_process::wait_exit(std::chrono::milliseconds timeout)
{
    bool gone = co_await impl_->wait_exit_for(timeout);
    if (!gone)
        co_return -1;
    co_return impl_->code;
}

bool worker_process::running() const
{
    return impl_->poll_running();
}

int worker_process::exit_code() const
{
    return impl_->exited ? impl_->code : -1;
}

std::string worker_process::exit_description() const
{
    return impl_->describe_exit();
}

int worker_process::pid() const
{
    return impl_->proc ? impl_->proc->id() : -1;
}

const json::object& worker_process::hello() const
{
    return impl_->hello;
}

const std::string& worker_process::label() const
{
    return impl_->label;
}

std::string worker_process::stderr_tail() const
{
    std::string out;
    for (const auto& line : impl_->err->tail)
    {
        out += line;
        out += '\n';
    }
    return out;
}

}  // namespace warpsmith
