#include "engine/executors/gpu_executor.hpp"

#include "engine/executors/async_semaphore.hpp"
#include "engine/executors/worker_error_text.hpp"
#include "engine/executors/worker_process.hpp"
#include "harness/core/elapsed.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/json/lenient.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json/array.hpp>
#include <boost/system/system_error.hpp>

#include <stdexcept>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace
{

/// One evaluate request sent to a worker: its response, or why none came.
struct evaluate_attempt
{
    std::optional<json::object> response;
    std::string died_kind;     ///< "hang" or "worker_crash" when no response came.
    std::string died_message;  ///< One line for the synthesized result and the log.
    bool exited = false;       ///< The worker exited (or its launcher did) without answering.
};

}  // namespace

struct gpu_executor::impl
{
    impl(asio::io_context& io, worker_launch l, int dev, gpu_executor_options o)
        : ioc(io),
          launch(std::move(l)),
          device(dev),
          opts(o),
          gate(io.get_executor(), 1),
          label("gpu" + std::to_string(dev))
    {
    }

    asio::io_context& ioc;
    worker_launch launch;
    int device;
    gpu_executor_options opts;
    async_semaphore gate;
    std::string label;
    std::unique_ptr<worker_process> worker;
    json::object hello;
    std::optional<json::value> workload_json;
    std::uint64_t hidden_seed = 0;
    int queued = 0;
    bool busy = false;
    double busy_seconds = 0;
    int restarts = 0;
    bool stopping = false;

    /// Waits for the GPU (FIFO) and returns the permit; the wait is counted in queued().
    asio::awaitable<async_semaphore::permit> enter()
    {
        ++queued;
        struct dec
        {
            int& n;
            ~dec() { --n; }
        } d{queued};
        try
        {
            co_await gate.acquire();
        }
        catch (const boost::system::system_error&)
        {
            if (stopping)
                throw_system_error(errc::cancelled, label + ": executor is stopping");
            throw;
        }
        async_semaphore::permit p(gate);
        if (stopping)
            throw_system_error(errc::cancelled, label + ": executor is stopping");
        co_return p;
    }

    /// One request to the worker, with busy-time accounting.
    asio::awaitable<json::object> timed_request(json::object req,
                                                std::chrono::milliseconds deadline,
                                                double& elapsed_ms)
    {
        busy = true;
        auto t0 = steady::now();
        struct account
        {
            impl& self;
            steady::time_point t0;
            double& elapsed;
            ~account()
            {
                elapsed = ms_since(t0);
                self.busy_seconds += elapsed / 1000.0;
                self.busy = false;
            }
        } acc{*this, t0, elapsed_ms};
        co_return co_await worker->request(std::move(req), deadline);
    }

    /// Starts a fresh worker and exchanges hello. Failures to start are user errors (no GPU, no
    /// worker binary, a launcher that cannot reach its host).
    asio::awaitable<void> start_worker()
    {
        auto argv = launch.gpu_argv(device);
        worker = std::make_unique<worker_process>(ioc.get_executor(), argv, label);
        try
        {
            hello = co_await worker->start(opts.start_deadline);
        }
        catch (const boost::system::system_error& e)
        {
            if (is_cancellation(e.code()))
                throw;
            throw user_error(std::string(e.what()));
        }
    }

    asio::awaitable<json::object> send_load()
    {
        json::object req = load_workload_message(*workload_json, hidden_seed, opts.launch_timeout);
        double ms = 0;
        json::object resp;
        try
        {
            resp = co_await timed_request(std::move(req), opts.request_deadline, ms);
        }
        catch (const boost::system::system_error& e)
        {
            if (is_cancellation(e.code()))
                throw;
            throw user_error(label + ": loading the workload failed: " + e.what());
        }
        if (!worker_ok(resp))
            throw user_error(label + ": loading the workload failed (" + worker_error_text(resp) + ")");
        co_return resp;
    }

    /// Replaces a dead or poisoned worker: start, hello, and the same workload with the same hidden
    /// seed, so the next candidate sees exactly the inputs the last one did. Returns the time taken.
    asio::awaitable<double> restart(std::string_view reason)
    {
        auto t0 = steady::now();
        if (worker)
        {
            // After a fault the worker exits by itself (code 3); give it a moment, then insist.
            int code = co_await worker->wait_exit(5s);
            if (code < 0)
            {
                worker->kill();
                co_await worker->wait_exit(10s);
            }
            worker.reset();
        }
        if (++restarts > opts.max_restarts)
            throw std::runtime_error(label + ": the worker was restarted " + std::to_string(restarts - 1) +
                                     " times; giving up");
        log(log_level::info, label + ": restarting the worker after " + std::string(reason));
        co_await start_worker();
        if (workload_json)
            co_await send_load();
        co_return ms_since(t0);
    }

    /// One evaluate request on the current worker. Busy time adds to busy_ms. When the worker does
    /// not answer, the outcome says why (it is not restarted here).
    asio::awaitable<evaluate_attempt> evaluate_once(const evaluate_request& req, int attempt, double& busy_ms)
    {
        evaluate_attempt a;
        json::object msg = evaluate_message(req);
        double elapsed_ms = 0;
        try
        {
            a.response = co_await timed_request(std::move(msg), opts.request_deadline, elapsed_ms);
        }
        catch (const boost::system::system_error& e)
        {
            auto code = worker_errc(e);
            if (!code)
                throw;
            if (*code == errc::worker_timeout)
            {
                a.died_kind = "hang";
                a.died_message = "no answer within " + std::to_string(opts.request_deadline.count()) +
                                 " ms (the worker was killed; a kernel that never finishes?)";
            }
            else if (*code == errc::worker_protocol)
            {
                a.died_kind = "worker_crash";
                a.died_message = std::string("the worker broke the protocol while evaluating ") + req.name +
                                 ": " + e.what();
            }
            else
            {
                a.died_kind = "worker_crash";
                a.exited = true;
                a.died_message = std::string(attempt > 1 ? "the restarted worker died too while evaluating "
                                                         : "the worker died while evaluating ") +
                                 req.name + " (" + worker->exit_description() + ")";
                std::string tail = worker->stderr_tail();
                if (!tail.empty())
                {
                    // The last line the worker wrote usually names the cause (an abort message).
                    tail.pop_back();
                    auto nl = tail.rfind('\n');
                    a.died_message += ": " + tail.substr(nl == std::string::npos ? 0 : nl + 1);
                }
            }
        }
        busy_ms += elapsed_ms;
        co_return a;
    }

    /// A worker that died while idle is replaced before the next request, blamed on nobody.
    asio::awaitable<void> ensure_worker()
    {
        if (!worker)
        {
            co_await start_worker();
            if (workload_json)
                co_await send_load();
            co_return;
        }
        if (!worker->running())
            co_await restart("an exit while idle (" + worker->exit_description() + ")");
    }
};

gpu_executor::gpu_executor(asio::io_context& ioc, worker_launch launch, int device, gpu_executor_options opts)
    : impl_(std::make_unique<impl>(ioc, std::move(launch), device, opts))
{
}

gpu_executor::~gpu_executor() = default;

asio::awaitable<json::object> gpu_executor::start()
{
    auto& d = *impl_;
    auto permit = co_await d.enter();
    if (!d.worker || !d.worker->running())
    {
        d.worker.reset();
        co_await d.start_worker();
    }
    co_return d.hello;
}

asio::awaitable<json::object> gpu_executor::load(const workload& w, std::uint64_t hidden_seed)
{
    auto& d = *impl_;
    // Serialized before waiting: the caller's workload may not outlive a long queue.
    json::value wj = w.to_json();
    auto permit = co_await d.enter();
    d.workload_json = std::move(wj);
    d.hidden_seed = hidden_seed;
    if (!d.worker || !d.worker->running())
    {
        d.worker.reset();
        co_await d.start_worker();
    }
    co_return co_await d.send_load();
}

asio::awaitable<gpu_evaluation> gpu_executor::evaluate(evaluate_request req)
{
    auto& d = *impl_;
    gpu_evaluation out;
    out.device = d.device;

    auto t_queue = steady::now();
    auto permit = co_await d.enter();
    out.queued_ms = ms_since(t_queue);
    co_await d.ensure_worker();

    // A worker that exits without answering may have lost its way to the GPU rather than met a bad
    // kernel: an ssh connection dropped, a Slurm step cancelled or preempted (docs/executors.md,
    // "Scale-out"). So the candidate goes once more to the restarted worker, and only a second death
    // is held against it, as the compile pool does with compiles. A hang is not retried (it already
    // cost a whole deadline), nor is a broken protocol (the stream, not the transport, went wrong).
    json::object resp;
    for (int attempt = 1;; ++attempt)
    {
        evaluate_attempt a = co_await d.evaluate_once(req, attempt, out.busy_ms);
        if (a.response)
        {
            resp = std::move(*a.response);
            break;
        }
        const bool retry = a.exited && attempt == 1;
        log(log_level::warn,
            d.label + ": " + req.name + ": " + a.died_message +
                (retry ? "; evaluating it again on a new worker" : ""));
        out.worker_restarted = true;
        out.restart_reason = a.died_kind;
        out.restart_ms += co_await d.restart(a.died_kind);
        if (!retry)
        {
            out.result = protocol::evaluation_result::invalid(a.died_kind, a.died_message, out.busy_ms);
            co_return out;
        }
    }

    if (!worker_ok(resp))
    {
        // The worker refused the request (bad_request, no_workload) or failed outside the kernel
        // (internal): the candidate is recorded as invalid with the worker's reason. When that
        // failure lost the CUDA context the answer also says "worker_restart", and the worker is
        // replaced now, not found dead by the next candidate.
        out.result =
            protocol::evaluation_result::invalid("worker_error", worker_error_text(resp), out.busy_ms);
    }
    else if (const json::value* r = lenient::value_at(resp, "result"))
    {
        try
        {
            out.result = protocol::evaluation_result::from_json(*r);
        }
        catch (const protocol::format_error& e)
        {
            out.result = protocol::evaluation_result::invalid(
                "worker_error",
                std::string("the worker's result is malformed: result.") + e.what(),
                out.busy_ms);
        }
    }
    else
        out.result = protocol::evaluation_result::invalid(
            "worker_error", "the worker's response carries no 'result'", out.busy_ms);

    if (worker_restarting(resp))
    {
        std::string kind = out.result.failure ? out.result.failure->kind : "fault";
        out.worker_restarted = true;
        out.restart_reason = kind;
        out.restart_ms += co_await d.restart(kind);
    }
    co_return out;
}

asio::awaitable<protocol::interleaved_result> gpu_executor::time_interleaved(
    std::vector<std::pair<std::string, evaluate_request>> entries, int rounds)
{
    auto& d = *impl_;
    json::object msg;
    msg["op"] = "time_interleaved";
    msg["rounds"] = rounds;
    json::array list;
    for (const auto& [key, req] : entries)
    {
        json::object e;
        e["key"] = key;
        e["candidate"] = candidate_json(req);
        list.emplace_back(std::move(e));
    }
    msg["entries"] = std::move(list);
    msg["timing"] = entries.empty() ? timing_options{}.to_json() : entries.front().second.timing.to_json();

    auto permit = co_await d.enter();
    co_await d.ensure_worker();
    double ms = 0;
    json::object resp;
    std::string failed;
    try
    {
        resp = co_await d.timed_request(std::move(msg), d.opts.request_deadline, ms);
    }
    catch (const boost::system::system_error& e)
    {
        if (!worker_errc(e))
            throw;
        failed = d.label + ": time_interleaved failed: " + e.what();
    }
    if (!failed.empty())
    {
        co_await d.restart("a failed time_interleaved");
        throw std::runtime_error(failed);
    }
    // A fault during interleaved timing is answered with "worker_restart" (and possibly ok:false):
    // the worker exits after that line, so restart it before looking at anything else.
    if (worker_restarting(resp))
        co_await d.restart("a fault during time_interleaved");
    if (!worker_ok(resp))
        throw std::runtime_error(d.label + ": time_interleaved refused (" + worker_error_text(resp) + ")");
    try
    {
        co_return protocol::interleaved_result::from_json(resp);
    }
    catch (const protocol::format_error& e)
    {
        throw std::runtime_error(d.label + ": a malformed time_interleaved answer: " + e.what());
    }
}

asio::awaitable<json::object> gpu_executor::device_info(bool measure)
{
    auto& d = *impl_;
    json::object msg;
    msg["op"] = "device_info";
    msg["measure"] = measure;
    auto permit = co_await d.enter();
    co_await d.ensure_worker();
    double ms = 0;
    json::object resp;
    try
    {
        resp = co_await d.timed_request(std::move(msg), d.opts.request_deadline, ms);
    }
    catch (const boost::system::system_error& e)
    {
        if (!worker_errc(e))
            throw;
        throw user_error(d.label + ": device_info failed: " + e.what());
    }
    if (!worker_ok(resp))
        throw user_error(d.label + ": device_info failed (" + worker_error_text(resp) + ")");
    if (const json::object* dev = lenient::object_at(resp, "device"))
        co_return *dev;
    throw user_error(d.label + ": device_info response carries no 'device'");
}

asio::awaitable<void> gpu_executor::exclusive(std::function<asio::awaitable<void>()> body)
{
    auto& d = *impl_;
    auto permit = co_await d.enter();
    const auto t0 = steady::now();
    d.busy = true;
    std::exception_ptr error;
    try
    {
        co_await body();
    }
    catch (...)
    {
        error = std::current_exception();
    }
    d.busy = false;
    d.busy_seconds += ms_since(t0) / 1000.0;
    if (error)
        std::rethrow_exception(error);
}

asio::awaitable<baseline_outcome> gpu_executor::baseline(baseline_request req)
{
    auto& d = *impl_;
    json::object msg;
    msg["op"] = "baseline";
    msg["name"] = req.name;
    msg["kind"] = req.kind;
    msg["math"] = req.math;
    msg["timing"] = req.timing.to_json();
    if (!req.cases.empty())
    {
        json::array cases;
        for (const auto& c : req.cases)
            cases.emplace_back(c);
        msg["cases"] = std::move(cases);
    }
    auto permit = co_await d.enter();
    co_await d.ensure_worker();
    baseline_outcome out;
    json::object resp;
    std::string died;
    try
    {
        resp = co_await d.timed_request(std::move(msg), d.opts.request_deadline, out.busy_ms);
    }
    catch (const boost::system::system_error& e)
    {
        auto code = worker_errc(e);
        if (!code)
            throw;
        died = *code == errc::worker_timeout ? "hang" : "worker_crash";
        out.message = d.label + ": baseline " + req.name + " (" + req.math + "): " + e.what();
    }
    if (!died.empty())
    {
        log(log_level::warn, out.message);
        out.error_kind = died;
        out.worker_restarted = true;
        co_await d.restart("a failed baseline");
        co_return out;
    }
    if (worker_restarting(resp))
    {
        out.worker_restarted = true;
        co_await d.restart("a fault during a baseline");
    }
    if (!worker_ok(resp))
    {
        const std::string text = worker_error_text(resp);
        const auto colon = text.find(": ");
        out.error_kind = text.substr(0, colon);
        out.message = colon == std::string::npos ? text : text.substr(colon + 2);
        co_return out;
    }
    if (const json::value* b = lenient::value_at(resp, "baseline"))
    {
        try
        {
            out.baseline = protocol::baseline_result::from_json(*b);
        }
        catch (const protocol::format_error& e)
        {
            out.error_kind = "worker_error";
            out.message = std::string("the worker's baseline is malformed: ") + e.what();
        }
    }
    else
    {
        out.error_kind = "worker_error";
        out.message = "the worker's response carries no 'baseline'";
    }
    co_return out;
}

asio::awaitable<void> gpu_executor::stop()
{
    auto& d = *impl_;
    d.stopping = true;
    // Requests still queued fail with errc::cancelled; the one running finishes first (SPEC §4:
    // the GPU finishes the current evaluation).
    d.gate.abort_waiters();
    co_await d.gate.acquire();
    async_semaphore::permit permit(d.gate);
    if (d.worker)
        co_await d.worker->stop(5s);
}

int gpu_executor::device() const
{
    return impl_->device;
}

const json::object& gpu_executor::hello() const
{
    return impl_->hello;
}

int gpu_executor::queued() const
{
    return impl_->queued;
}

bool gpu_executor::busy() const
{
    return impl_->busy;
}

double gpu_executor::busy_seconds() const
{
    return impl_->busy_seconds;
}

int gpu_executor::restarts() const
{
    return impl_->restarts;
}

}  // namespace warpsmith
