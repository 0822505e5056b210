#pragma once

// An evaluation backend without workers or GPUs, for the engine tests and bench/pipeline: compiles
// and evaluations take simulated time on a clock_source (a virtual clock in tests, the steady
// clock in the benchmark), compile workers and GPUs are modelled as serialized resources, and
// results are deterministic, chosen by the same source markers as the fake worker
// (tests/engine/executors/fake_worker.cpp):
//
//   FAKE: median_us=X       median of every timed case (default 100 µs)
//   FAKE: confirm_median_us=X   median in time_interleaved (the final confirmation) instead
//   FAKE: confirm_invalid[=KIND]  time_interleaved lists it in "invalid" (default kind
//                           timed_output_mismatch), with no timings
//   FAKE: evaluate_ms=N     this evaluation's GPU time (default: options.gpu_latency)
//   FAKE: compile_ms=N      this compile's time (default: options.compile_latency)
//   FAKE: compile_error     does not compile
//   FAKE: invalid=KIND      fails validation with failure kind KIND on the first case
//   FAKE: fault | FAKE: launch_hang | FAKE: hang | FAKE: crash
//                           invalid (fault / hang / hang / worker_crash), worker restarted
//
// Vendor baselines (baseline()) of a workload that declares them take gpu_latency on the GPU and
// answer like the worker's `baseline` op with fixed medians (options below): FP32 within the
// tolerance, TF32 outside it with a larger error; or no_baseline when baselines_available is off.
//
// Every compile and GPU request is recorded as start/end events with simulated timestamps, which
// is what the overlap tests assert on.

#include "engine/search/clock.hpp"
#include "engine/search/evaluation_backend.hpp"
#include "engine/search/resource_pool.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct simulated_backend_options
{
    int gpus = 1;
    int compile_workers = 4;
    clock_source::duration compile_latency = std::chrono::milliseconds(100);
    clock_source::duration gpu_latency = std::chrono::milliseconds(200);
    clock_source::duration load_latency = std::chrono::milliseconds(0);
    /// Per entry and round of time_interleaved.
    clock_source::duration interleaved_latency = std::chrono::milliseconds(1);
    std::string gpu_name = "Simulated GPU";
    std::string arch = "sm_90";
    bool baselines_available = true;      ///< false: baseline() answers no_baseline (no cuBLAS).
    double baseline_median_us = 50;       ///< Every timed case of an FP32 baseline.
    double baseline_tf32_median_us = 25;  ///< Every timed case of a TF32 baseline.
};

struct sim_event
{
    double t = 0;      ///< Seconds on the backend's clock.
    std::string kind;  ///< compile_start, compile_end, gpu_start, gpu_end, interleaved_start, interleaved_end
    std::string name;  ///< Candidate id / request name.
    int resource = -1;  ///< GPU index, or compile worker index.
};

/// Markers "FAKE: key" / "FAKE: key=value" of a source: the value of key, if present ("" for a bare key).
std::optional<std::string> fake_marker(std::string_view source, std::string_view key);

class simulated_backend final : public evaluation_backend
{
public:
    simulated_backend(boost::asio::io_context& ioc, clock_source& clock, simulated_backend_options opts);

    boost::asio::awaitable<void> start(const workload& w, std::uint64_t hidden_seed) override;
    boost::asio::awaitable<compile_output> compile(compile_request request) override;
    boost::asio::awaitable<gpu_evaluation> evaluate(int gpu, evaluate_request request) override;
    boost::asio::awaitable<protocol::interleaved_result> time_interleaved(
        int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds) override;
    boost::asio::awaitable<baseline_outcome> baseline(int gpu, baseline_request request) override;
    boost::asio::awaitable<void> stop() override;

    int gpu_count() const override { return opts_.gpus; }
    const boost::json::object& device_info(int gpu) const override { return devices_.at(gpu); }
    gpu_status status(int gpu) const override;
    int compiles_in_flight() const override { return compiles_in_flight_; }

    const std::vector<sim_event>& events() const { return events_; }
    /// The name compile events carry: every candidate compiles as "kernel.cu" (one cache key per
    /// candidate, whoever compiles it), so events name the source by its digest instead.
    static std::string compile_label(const std::string& source);
    int evaluations() const { return evaluations_; }
    int compiles() const { return compiles_; }
    /// baseline() calls so far, as "name/math" in order.
    const std::vector<std::string>& baseline_requests() const { return baseline_requests_; }

private:
    void record(std::string kind, std::string name, int resource);
    /// The result the worker would give: medians from the source's markers, the timing's stop
    /// (adaptive, dominated, fixed) from the request's timing options.
    protocol::evaluation_result result_for(const std::string& source,
                                           const timing_options& t,
                                           std::string& restart_reason) const;

    clock_source& clock_;
    simulated_backend_options opts_;
    std::vector<boost::json::object> devices_;
    resource_pool compile_slots_;
    std::vector<std::unique_ptr<resource_pool>> gpu_slots_;
    std::vector<gpu_status> gpu_state_;
    std::vector<sim_event> events_;
    std::optional<workload> work_;
    int compiles_in_flight_ = 0;
    int evaluations_ = 0;
    int compiles_ = 0;
    std::vector<std::string> baseline_requests_;
};

}  // namespace warpsmith
