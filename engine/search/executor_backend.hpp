#pragma once

// The real evaluation backend: a compile_pool (persistent `warpsmith-worker --compile` processes,
// or in-process NVRTC) and one gpu_executor per selected GPU, each owning one
// `warpsmith-worker --device K` (engine/executors). GPU indices of the backend are positions in
// the selected device list; device_info(g)["index"] is the physical device.

#include "engine/executors/compile_pool.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "engine/search/evaluation_backend.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>
#include <vector>

namespace warpsmith
{

struct executor_backend_options
{
    std::vector<int> devices{0};  ///< Physical GPU indices (--gpus).
    worker_launch launch;
    compile_pool_options compile;
    gpu_executor_options gpu;
    /// Ask every worker for measured ceilings (device_info {"measure": true}: copy bandwidth, FP32
    /// rate) once at start, for the roofline; --no-measure turns it off (datasheet figures then).
    bool measure = true;
};

class executor_backend final : public evaluation_backend
{
public:
    executor_backend(boost::asio::io_context& ioc, executor_backend_options opts);
    ~executor_backend() override;

    /// Starts every GPU worker, measures its ceilings (unless opts.measure is off; a measurement
    /// that fails is logged and the device keeps its datasheet figures) and loads the workload on
    /// each, all GPUs at once. device_info(g)["measured"] holds the measurements.
    boost::asio::awaitable<void> start(const workload& w, std::uint64_t hidden_seed) override;
    boost::asio::awaitable<compile_output> compile(compile_request request) override;
    boost::asio::awaitable<gpu_evaluation> evaluate(int gpu, evaluate_request request) override;
    boost::asio::awaitable<protocol::interleaved_result> time_interleaved(
        int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds) override;
    boost::asio::awaitable<baseline_outcome> baseline(int gpu, baseline_request request) override;
    boost::asio::awaitable<profile_outcome> profile(int gpu,
                                                    profiler_options options,
                                                    profile_job job) override;
    boost::asio::awaitable<void> stop() override;

    int gpu_count() const override { return static_cast<int>(gpus_.size()); }
    const boost::json::object& device_info(int gpu) const override { return devices_.at(gpu); }
    gpu_status status(int gpu) const override;
    int compiles_in_flight() const override;

private:
    boost::asio::awaitable<void> start_one(int gpu, const workload& w, std::uint64_t hidden_seed);

    executor_backend_options opts_;
    std::unique_ptr<compile_pool> pool_;
    std::vector<std::unique_ptr<gpu_executor>> gpus_;
    std::vector<boost::json::object> devices_;
    const workload* workload_ = nullptr;
    std::uint64_t hidden_seed_ = 0;
};

}  // namespace warpsmith
