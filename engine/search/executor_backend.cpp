#include "engine/search/executor_backend.hpp"

#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/json/lenient.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;

executor_backend::executor_backend(asio::io_context& ioc, executor_backend_options opts)
    : opts_(std::move(opts))
{
    if (opts_.devices.empty())
        throw user_error("no GPU selected (--gpus)");
    pool_ = std::make_unique<compile_pool>(ioc, opts_.launch, opts_.compile);
    for (int d : opts_.devices)
    {
        gpus_.push_back(std::make_unique<gpu_executor>(ioc, opts_.launch, d, opts_.gpu));
        devices_.push_back(json::object{{"index", d}});
    }
}

executor_backend::~executor_backend() = default;

asio::awaitable<void> executor_backend::start_one(int gpu, const workload& w, std::uint64_t hidden_seed)
{
    auto hello = co_await gpus_[gpu]->start();
    // The worker's hello and device_info (docs/worker-protocol.md) describe the device as they can:
    // what is absent or of another kind is simply not shown.
    if (const json::object* dev = lenient::object_at(hello, "device"))
        devices_[gpu] = *dev;
    devices_[gpu]["index"] = opts_.devices[gpu];
    for (const char* key : {"driver_version", "nvrtc_version", "worker_version"})
        if (const json::value* v = lenient::value_at(hello, key))
            devices_[gpu][key] = *v;
    // Before the workload is loaded, so the measurement has the memory and the GPU to itself.
    if (opts_.measure)
    {
        std::string failed;
        try
        {
            auto dev = co_await gpus_[gpu]->device_info(true);
            if (const json::object* m = lenient::object_at(dev, "measured"))
                devices_[gpu]["measured"] = *m;
        }
        catch (const user_error& e)
        {
            failed = e.what();
        }
        if (!failed.empty())
            log_warn("GPU " + std::to_string(opts_.devices[gpu]) + ": measuring the ceilings failed (" +
                     failed + "); the roofline uses datasheet figures");
    }
    co_await gpus_[gpu]->load(w, hidden_seed);
}

asio::awaitable<void> executor_backend::start(const workload& w, std::uint64_t hidden_seed)
{
    workload_ = &w;
    hidden_seed_ = hidden_seed;
    auto ex = co_await asio::this_coro::executor;
    using op_type = decltype(asio::co_spawn(ex, start_one(0, w, 0), asio::deferred));
    std::vector<op_type> ops;
    ops.reserve(static_cast<std::size_t>(gpu_count()));
    for (int g = 0; g < gpu_count(); ++g)
        ops.push_back(asio::co_spawn(ex, start_one(g, w, hidden_seed), asio::deferred));
    auto group = asio::experimental::make_parallel_group(std::move(ops));
    auto [order, errors] = co_await group.async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    (void)order;
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
}

asio::awaitable<compile_output> executor_backend::compile(compile_request request)
{
    co_return co_await pool_->compile(std::move(request));
}

asio::awaitable<gpu_evaluation> executor_backend::evaluate(int gpu, evaluate_request request)
{
    co_return co_await gpus_.at(gpu)->evaluate(std::move(request));
}

asio::awaitable<protocol::interleaved_result> executor_backend::time_interleaved(
    int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds)
{
    co_return co_await gpus_.at(gpu)->time_interleaved(std::move(entries), rounds);
}

asio::awaitable<baseline_outcome> executor_backend::baseline(int gpu, baseline_request request)
{
    co_return co_await gpus_.at(gpu)->baseline(std::move(request));
}

asio::awaitable<profile_outcome> executor_backend::profile(int gpu, profiler_options options, profile_job job)
{
    job.w = workload_;
    job.hidden_seed = hidden_seed_;
    job.launch = opts_.launch;
    job.device = opts_.devices.at(gpu);
    options.launch_timeout = opts_.gpu.launch_timeout;
    profile_outcome out;
    // Held like an evaluation: the GPU's queue waits while ncu runs its own worker on it.
    auto body = [&]() -> asio::awaitable<void>
    { out = co_await run_profile(co_await asio::this_coro::executor, options, std::move(job)); };
    co_await gpus_.at(gpu)->exclusive(body);
    co_return out;
}

asio::awaitable<void> executor_backend::stop()
{
    for (auto& g : gpus_)
        co_await g->stop();
    co_await pool_->stop();
}

gpu_status executor_backend::status(int gpu) const
{
    const auto& g = *gpus_.at(gpu);
    gpu_status s;
    s.queued = g.queued();
    s.busy = g.busy();
    s.busy_seconds = g.busy_seconds();
    s.restarts = g.restarts();
    return s;
}

int executor_backend::compiles_in_flight() const
{
    return pool_->in_flight();
}

}  // namespace warpsmith
