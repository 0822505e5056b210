#include "engine/executors/compile_pool.hpp"

#include "engine/executors/async_semaphore.hpp"
#include "engine/executors/worker_error_text.hpp"
#include "engine/executors/worker_process.hpp"
#include "harness/compile/compile_cache.hpp"
#include "harness/compile/compile_sandbox.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/core/secret_redaction.hpp"
#include "harness/json/lenient.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace
{

int resolve_workers(int requested)
{
    if (requested > 0)
        return requested;
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

/// An empty directory of the pool's own under the system temp dir, for its compile workers to run in.
std::filesystem::path make_sandbox_dir()
{
    std::string templ = (std::filesystem::temp_directory_path() / "warpsmith-compile-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr)
        throw user_error("cannot create a temporary directory for the compile workers: " +
                         std::string(std::strerror(errno)));
    return templ;
}

/// A compile log may carry what a kernel read before the include policy or the sandbox stopped it
/// (or a secret the worker process did not know of); nothing leaves the pool unredacted.
compile_output redacted(compile_output out)
{
    out.log = redact_secrets(out.log);
    out.error = redact_secrets(out.error);
    return out;
}

compile_output failed_output(const compile_request& request, std::string error)
{
    compile_output out;
    out.compiled = false;
    out.error = std::move(error);
    out.arch = request.arch;
    return out;
}

}  // namespace

struct compile_pool::impl
{
    impl(asio::io_context& io, worker_launch l, compile_pool_options o)
        : ioc(io),
          launch(std::move(l)),
          opts(std::move(o)),
          n(resolve_workers(opts.workers)),
          slots(io.get_executor(), n)
    {
        cache_dir = opts.cache_dir ? std::filesystem::path(*opts.cache_dir) : compile_cache::default_dir();
        if (opts.in_process)
        {
            std::optional<compile_cache> cache;
            if (opts.use_cache)
                cache.emplace(cache_dir);
            compiler.emplace(std::move(cache));
            pool.emplace(static_cast<std::size_t>(n));
        }
        else
        {
            workers.resize(static_cast<std::size_t>(n));
            for (int i = n - 1; i >= 0; --i)
                idle.push_back(i);
            if (opts.use_cache)
            {
                launch.extra_args.push_back("--cache-dir");
                launch.extra_args.push_back(cache_dir.string());
            }
            else
                launch.extra_args.push_back("--no-cache");
            if (opts.memory_limit_mib > 0)
            {
                launch.extra_args.push_back("--memory-limit-mib");
                launch.extra_args.push_back(std::to_string(opts.memory_limit_mib));
            }
            sandbox_dir = make_sandbox_dir();
        }
    }

    ~impl()
    {
        if (pool)
            pool->join();
        // The workers are gone with `workers` (killed if still running); their directory goes too.
        workers.clear();
        if (!sandbox_dir.empty())
        {
            std::error_code ec;
            std::filesystem::remove_all(sandbox_dir, ec);
        }
    }

    asio::io_context& ioc;
    worker_launch launch;
    compile_pool_options opts;
    int n;
    async_semaphore slots;
    std::filesystem::path cache_dir;
    int in_flight = 0;

    // In-process mode.
    std::optional<nvrtc_compiler> compiler;
    std::atomic<bool> sandbox_warned{false};
    std::optional<asio::thread_pool> pool;

    // Process mode: one persistent compile worker per slot, started on first use.
    std::vector<std::unique_ptr<worker_process>> workers;
    std::vector<int> idle;
    std::filesystem::path sandbox_dir;

    /// Built at each start rather than once: a secret registered after the pool was made (the API
    /// key, read when the model client is set up) is kept from workers started later.
    worker_spawn_options spawn_options() const
    {
        worker_spawn_options spawn;
        spawn.environment =
            compile_worker_environment(current_environment(), sandbox_dir, opts.secret_env_names);
        spawn.start_dir = sandbox_dir.string();
        return spawn;
    }

    asio::awaitable<compile_output> compile_in_process(compile_request request)
    {
        const nvrtc_compiler* c = &*compiler;
        std::optional<std::filesystem::path> cache;
        if (opts.use_cache)
            cache = cache_dir;
        // This process holds the API key: each pool thread closes its own view of the file system
        // before its first compile (docs/hardening.md, "Model code reads no host file").
        auto job = [this, c, cache, r = std::move(request)]() -> asio::awaitable<compile_output>
        {
            const auto sandbox = enter_compile_sandbox_on_this_thread(cache);
            if (sandbox.status != sandbox_outcome::state::applied && !sandbox_warned.exchange(true))
                log(log_level::warn,
                    "no Landlock file-system sandbox for in-process compiles (" + sandbox.detail +
                        "); they rely on the include policy alone");
            co_return c->compile(r);
        };
        co_return co_await asio::co_spawn(pool->get_executor(), std::move(job), asio::use_awaitable);
    }

    /// A failure that says the compile ran out of memory (LLVM's last words in a worker's death,
    /// NVRTC_ERROR_OUT_OF_MEMORY, a "catastrophic error: out of memory") names the limit.
    std::string with_memory_limit(std::string why) const
    {
        const bool memory = why.find("out of memory") != std::string::npos ||
                            why.find("OUT_OF_MEMORY") != std::string::npos ||
                            why.find("bad_alloc") != std::string::npos;
        if (memory && opts.memory_limit_mib > 0)
            why += " (a compile worker may use " + std::to_string(opts.memory_limit_mib) +
                   " MiB: --compile-memory-mib)";
        return why;
    }

    asio::awaitable<compile_output> compile_in_worker(compile_request request)
    {
        int slot = idle.back();
        idle.pop_back();
        struct give_back
        {
            std::vector<int>& idle;
            int slot;
            ~give_back() { idle.push_back(slot); }
        } back{idle, slot};
        auto& w = workers[static_cast<std::size_t>(slot)];
        const std::string label = "compile" + std::to_string(slot);

        std::string last_failure;
        for (int attempt = 0; attempt < 2; ++attempt)
        {
            if (w && !w->running())
            {
                log(log_level::warn,
                    label + ": compile worker gone (" + w->exit_description() + "); restarting");
                w.reset();
            }
            if (!w)
            {
                auto argv = launch.compile_argv();
                w = std::make_unique<worker_process>(ioc.get_executor(), argv, label, spawn_options());
                try
                {
                    co_await w->start(opts.start_deadline);
                }
                catch (const boost::system::system_error& e)
                {
                    w.reset();
                    if (is_cancellation(e.code()))
                        throw;
                    throw user_error(std::string("cannot start a compile worker: ") + e.what());
                }
            }
            json::object msg;
            msg["op"] = "compile";
            msg["request"] = request.to_json();
            json::object resp;
            bool timed_out = false;
            try
            {
                resp = co_await w->request(std::move(msg), opts.compile_deadline);
            }
            catch (const boost::system::system_error& e)
            {
                auto code = worker_errc(e);
                if (!code)
                    throw;
                last_failure = e.what();
                timed_out = *code == errc::worker_timeout;
            }
            if (!last_failure.empty())
            {
                w.reset();
                // A compile that ran out of time would run out of time again; a crash may have
                // been the worker's (or NVRTC's) bad luck, so that one is retried once.
                if (timed_out)
                    co_return failed_output(request,
                                            "compile did not finish within " +
                                                std::to_string(opts.compile_deadline.count()) + " ms");
                if (attempt == 0)
                {
                    last_failure.clear();
                    continue;
                }
                co_return failed_output(
                    request,
                    with_memory_limit("the compile worker died twice on this kernel: " + last_failure));
            }
            if (!worker_ok(resp))
            {
                std::string message = "the compile worker refused the request";
                if (const worker_refusal why = worker_refusal_of(resp); !why.message.empty())
                    message += ": " + why.message;
                // NVRTC itself can report the limit (NVRTC_ERROR_OUT_OF_MEMORY) instead of dying.
                co_return failed_output(request, with_memory_limit(std::move(message)));
            }
            const json::value* o = lenient::value_at(resp, "output");
            if (!o)
                co_return failed_output(request, "the compile worker's response carries no 'output'");
            try
            {
                compile_output out = compile_output::from_json(*o);
                // NVRTC can also report the limit as a compile error ("catastrophic error: out of
                // memory"), which comes back as a value.
                if (!out.compiled)
                    out.error = with_memory_limit(std::move(out.error));
                co_return out;
            }
            catch (const user_error& e)
            {
                co_return failed_output(request, std::string("malformed compile output: ") + e.what());
            }
        }
        co_return failed_output(request, "unreachable");
    }
};

compile_pool::compile_pool(asio::io_context& ioc, worker_launch launch, compile_pool_options opts)
    : impl_(std::make_unique<impl>(ioc, std::move(launch), std::move(opts)))
{
}

compile_pool::~compile_pool() = default;

asio::awaitable<compile_output> compile_pool::compile(compile_request request)
{
    auto& d = *impl_;
    co_await d.slots.acquire();
    async_semaphore::permit permit(d.slots);
    ++d.in_flight;
    struct dec
    {
        int& n;
        ~dec() { --n; }
    } dec_in_flight{d.in_flight};
    if (d.compiler)
        co_return redacted(co_await d.compile_in_process(std::move(request)));
    co_return redacted(co_await d.compile_in_worker(std::move(request)));
}

asio::awaitable<void> compile_pool::stop()
{
    auto& d = *impl_;
    // Compiles still queued fail; those running finish (every unit comes back) before the
    // workers are asked to exit.
    d.slots.abort_waiters();
    std::vector<async_semaphore::permit> held;
    for (int i = 0; i < d.n; ++i)
    {
        co_await d.slots.acquire();
        held.emplace_back(d.slots);
    }
    for (auto& w : d.workers)
    {
        if (w)
            co_await w->stop(2s);
    }
    if (d.pool)
        d.pool->join();
}

int compile_pool::workers() const
{
    return impl_->n;
}

int compile_pool::in_flight() const
{
    return impl_->in_flight;
}

}  // namespace warpsmith
