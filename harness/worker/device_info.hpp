#pragma once

// device_info (docs/worker-protocol.md): the device's properties as JSON, and, on request, two
// measured ceilings for rooflines (SPEC §6): device-to-device copy bandwidth (bytes read + written
// per second, a buffer far larger than the L2) and the FP32 FMA rate (16 independent FMA chains per
// thread, so issue, not latency, is the limit). Each is the median of several event-timed runs.
// Beside them, the cold copy curve: copies of 1 MiB to 512 MiB each way, each timed as the timer's
// cold mode times a launch (output poisoned, L2 overwritten, outside the events), so a roofline can
// say how close a memory-bound case is to a copy of its own bytes under the same timing.

#include "harness/worker/comparator_kernels.hpp"
#include "harness/worker/gpu_device.hpp"

#include <boost/json/object.hpp>

#include <chrono>

namespace warpsmith::worker
{

/// Every field listed for device_info, free memory read now, clocks from NVML (null without it).
boost::json::object device_info_json(const gpu_device& device);

/// {"copy_bandwidth_gbps", "fp32_tflops", "measure_ms", "copy_bytes", "fp32_flops_per_launch",
/// "cold_copy": [{"bytes": read + written, "gbps"}, ...] by increasing size}.
boost::json::object measure_device(gpu_device& device,
                                   const helper_kernels& helpers,
                                   std::chrono::milliseconds timeout);

}  // namespace warpsmith::worker
