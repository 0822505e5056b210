#pragma once

// Everything GPU mode keeps between requests: the device (context + stream), the helper kernels,
// the loaded workload (case_store), and reusable timing resources (event pairs, the L2 scrub
// buffer). Created on the first request that needs the GPU; lives until the worker exits. All of
// it is used from the worker's single thread, on which the context is current.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/protocol/evaluation_result.hpp"
#include "harness/worker/case_store.hpp"
#include "harness/worker/comparator_kernels.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/worker/launch_hygiene.hpp"
#include "harness/worker/timer.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>

namespace warpsmith::worker
{

class gpu_session
{
public:
    /// Opens the device and compiles (or fetches from the cache) and loads the helper kernels.
    /// Throws user_error when there is no driver or device.
    gpu_session(int ordinal, const nvrtc_compiler& compiler);
    gpu_session(const gpu_session&) = delete;
    gpu_session& operator=(const gpu_session&) = delete;

    gpu_device& device() { return device_; }
    const helper_kernels& helpers() const { return *helpers_; }
    const launch_hygiene& hygiene() const { return *hygiene_; }
    const nvrtc_compiler& compiler() const { return compiler_; }
    event_pool& events() { return events_; }
    l2_scrubber& scrubber() { return scrubber_; }

    /// The loaded workload; throws request_error(no_workload) when none is loaded.
    case_store& store();

    /// load_workload: frees the previous workload first (so two never coexist on the device), then
    /// builds the new one. Returns the response fields.
    boost::json::object load_workload(const boost::json::object& request);

    /// A fresh seed for the shared-memory scrubber.
    std::uint32_t next_scrub_seed() { return static_cast<std::uint32_t>(rng_()); }

    /// The "environment" object of results (clocks added by the caller).
    protocol::environment_info environment() const;

private:
    const nvrtc_compiler& compiler_;
    gpu_device device_;
    std::unique_ptr<helper_kernels> helpers_;
    std::unique_ptr<launch_hygiene> hygiene_;
    std::unique_ptr<case_store> store_;
    event_pool events_;
    l2_scrubber scrubber_;
    std::mt19937_64 rng_;
};

}  // namespace warpsmith::worker
