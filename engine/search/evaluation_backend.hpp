#pragma once

// What the search loop needs from the machines that compile and evaluate candidates. Two
// implementations: executor_backend (the real one: compile_pool + one gpu_executor per GPU, each
// driving a warpsmith-worker) and simulated_backend (timers and deterministic fake results, for
// tests and bench/pipeline). The search loop never knows which one it drives.
//
// Threading: every member is called on the engine's io_context thread and every awaitable
// completes there. The search loop itself guarantees that at most one evaluate() or
// time_interleaved() per GPU is outstanding (resource_pool), but backends serialize per GPU on
// their own as well.

#include "engine/executors/gpu_executor.hpp"
#include "engine/profile/profiler.hpp"
#include "harness/compile/compile_request.hpp"
#include "harness/workload/workload.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpsmith
{

struct gpu_status
{
    int queued = 0;           ///< Requests waiting for this GPU inside the backend.
    bool busy = false;        ///< A request is running on it.
    double busy_seconds = 0;  ///< Total time spent on requests so far.
    int restarts = 0;         ///< Worker restarts after faults, hangs and crashes.
};

class evaluation_backend
{
public:
    virtual ~evaluation_backend() = default;

    /// Starts the workers and loads the workload on every GPU (reference compiled and run there).
    /// Throws user_error when there is no usable GPU or the reference fails on a worker.
    virtual boost::asio::awaitable<void> start(const workload& w, std::uint64_t hidden_seed) = 0;
    /// Compiles on the CPU workers; a compile error is a value (compiled == false).
    virtual boost::asio::awaitable<compile_output> compile(compile_request request) = 0;
    /// Validates and times one compiled candidate on one GPU. A fault, hang or crash is an invalid
    /// result (the worker restarted), never an exception; exceptions mean the GPU is unusable.
    /// Supports terminal cancellation.
    virtual boost::asio::awaitable<gpu_evaluation> evaluate(int gpu, evaluate_request request) = 0;
    /// The final confirmation: entries (key -> compiled candidate) timed interleaved on one GPU.
    /// Returns the worker protocol's time_interleaved answer (timings per key and case, invalid entries).
    virtual boost::asio::awaitable<protocol::interleaved_result> time_interleaved(
        int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds) = 0;
    /// Times a vendor baseline the workload declares (worker protocol `baseline`, e.g. cuBLAS SGEMM
    /// in FP32 or TF32) on one GPU with the same protocol as candidates. One that cannot be timed
    /// (no cuBLAS, a backend without vendor libraries) is an outcome with available == false,
    /// never an exception. The default is such a backend.
    virtual boost::asio::awaitable<baseline_outcome> baseline(int gpu, baseline_request request);
    /// Profiles one compiled candidate under Nsight Compute on one GPU (engine/profile), holding
    /// that GPU so that the profile overlaps no timing. job.w, launch and device are the backend's
    /// (set here); the rest is the caller's. Never throws for what ncu or the candidate do (an
    /// outcome with ok == false); the default is a backend that cannot profile.
    virtual boost::asio::awaitable<profile_outcome> profile(int gpu,
                                                            profiler_options options,
                                                            profile_job job);
    /// Stops the workers (politely, then firmly).
    virtual boost::asio::awaitable<void> stop() = 0;

    virtual int gpu_count() const = 0;
    /// The device description of one GPU (worker protocol `device_info`: name, arch, ...; with
    /// "measured" ceilings when the backend measured them).
    virtual const boost::json::object& device_info(int gpu) const = 0;
    virtual gpu_status status(int gpu) const = 0;
    /// Compiles running or waiting.
    virtual int compiles_in_flight() const = 0;
};

inline boost::asio::awaitable<baseline_outcome> evaluation_backend::baseline(int, baseline_request request)
{
    baseline_outcome out;
    out.error_kind = "no_baseline";
    out.message = "this backend cannot time vendor baselines (" + request.name + ")";
    co_return out;
}

inline boost::asio::awaitable<profile_outcome> evaluation_backend::profile(int,
                                                                           profiler_options,
                                                                           profile_job job)
{
    profile_outcome out;
    out.error_kind = "unsupported";
    out.message = "this backend cannot profile (--use-nsight needs real GPU workers)";
    out.case_name = job.case_name;
    co_return out;
}

}  // namespace warpsmith
