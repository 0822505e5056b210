#pragma once

// The worker's device: its primary context (current on the worker's only thread), the worker's
// own stream, the limits that launch plans are checked against, and NVML clocks.

#include "harness/cuda/handles.hpp"
#include "harness/cuda/nvml.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <string>

namespace warpsmith::worker
{

/// The device properties the worker uses and reports (docs/worker-protocol.md, device_info).
struct device_limits
{
    int cc_major = 0;
    int cc_minor = 0;
    int sm_count = 0;
    int max_threads_per_block = 0;
    int max_threads_per_sm = 0;
    int warp_size = 32;
    std::array<int, 3> max_block{};
    std::array<int, 3> max_grid{};
    int shared_per_block = 0;        ///< Without opt-in (48 KiB).
    int shared_per_block_optin = 0;  ///< With CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raised.
    int shared_per_sm = 0;
    int registers_per_block = 0;
    int registers_per_sm = 0;
    std::size_t l2_bytes = 0;
    int clock_khz = 0;
    int memory_clock_khz = 0;
    int memory_bus_bits = 0;
};

class gpu_device
{
public:
    /// Retains device `ordinal`'s primary context and makes it current on this thread. Throws
    /// user_error without a driver or device, cuda_error on driver failures.
    explicit gpu_device(int ordinal);

    const device_limits& limits() const { return limits_; }
    CUstream stream() const { return stream_.get(); }
    /// The context's stack limit (CU_LIMIT_STACK_SIZE), set to 0 at construction (local_window.hpp).
    std::size_t stack_limit() const { return stack_limit_; }
    int ordinal() const { return context_.ordinal(); }
    CUdevice device() const { return context_.device(); }
    const std::string& name() const { return name_; }
    const std::string& uuid() const { return uuid_; }
    const std::string& pci_bus_id() const { return pci_bus_id_; }
    /// "sm_90" (compute capability 9.0): NVRTC's target for this device.
    std::string arch() const;
    std::size_t total_memory() const { return total_memory_; }
    /// cuMemGetInfo's free bytes, now.
    std::size_t free_memory() const;
    /// The driver version as "13.0".
    std::string driver_version() const;
    /// Current clocks through NVML (fields absent without NVML).
    cuda::clock_reading clocks() const { return nvml_->read(); }

private:
    cuda::primary_context context_;
    cuda::stream stream_;
    device_limits limits_;
    std::string name_;
    std::string uuid_;
    std::string pci_bus_id_;
    std::size_t total_memory_ = 0;
    std::size_t stack_limit_ = 0;
    std::unique_ptr<cuda::nvml_clocks> nvml_;
};

}  // namespace warpsmith::worker
