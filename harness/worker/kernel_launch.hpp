#pragma once

// Launching workload kernels: a loaded cubin with its entry and resource attributes, the argument
// block built in signature order, and the check of a launch configuration against the device and
// the kernel before anything is launched (so a bad plan is a clear "bad_launch" with the numbers,
// not an opaque driver error).

#include "harness/compile/cubin_symbols.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/worker/module_state.hpp"
#include "harness/workload/launch_plan.hpp"
#include "harness/workload/workload.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::worker
{

/// A module with the function to launch and the attributes launch checks need.
struct loaded_kernel
{
    cuda::module module;
    CUfunction function = nullptr;
    std::string entry;
    int max_threads_per_block = 0;  ///< The kernel's own limit (registers, __launch_bounds__).
    int static_shared_bytes = 0;
    int registers = 0;
    int local_bytes = 0;
    int dynamic_shared_limit = 48 * 1024;  ///< What CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is now.
    module_state state;                    ///< The module's globals as loaded; restored before launches.
    /// Its code can load local memory (compile_output::local_memory): the context's local window
    /// is wiped before each of its launches. True unless the compile said otherwise.
    bool local_memory = true;
    /// The parameters its cubin declares (read_kernel_params); nullopt when they cannot be read.
    std::optional<std::vector<cubin_kernel_param>> params;
};

/// Why k cannot be launched with sig's arguments, or "" when it can: each parameter the cubin
/// declares must have the size of the signature's (8 bytes for a buffer's pointer, the scalar's
/// dtype otherwise), and there must be as many. kernel_args hands the driver one 8-byte word per
/// parameter and the driver copies the size the cubin declares from it: a larger parameter would
/// copy the worker's own memory into the kernel, an extra one a pointer past the argument array.
std::string parameter_mismatch(const loaded_kernel& k, const signature& sig);

/// Loads a cubin, finds entry and captures the module's global state. Returns nullopt with why set
/// when the driver rejects the image (CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_NO_BINARY_FOR_GPU, ...),
/// when the module may not run (device-side heap, __managed__ variables, module data that cannot be
/// restored: module_state.hpp) -- *image_rejected is set in both cases -- or when the entry is
/// absent. Sticky errors throw.
std::optional<loaded_kernel> load_kernel(std::string_view cubin,
                                         const std::string& entry,
                                         std::string& why,
                                         bool* image_rejected = nullptr);

/// Empty when the kernel's local frame is one the harness can wipe between launches, which it then
/// records (note_local_frame); otherwise why it is refused.
std::string refuse_local_frame(const loaded_kernel& k);

/// Checks a launch against the device and kernel limits and raises the kernel's dynamic shared
/// memory limit when the launch needs more than it allows now. Returns "" when launchable, else
/// one line with the numbers: "block 32x32x2 = 2048 threads exceeds the device maximum of 1024
/// threads per block".
std::string prepare_launch(loaded_kernel& k, const launch_dims& d, const device_limits& limits);

/// Kernel parameters in signature order: scalars by value in their dtype (integers from the case's
/// values, floats from float_values, half/bfloat16 rounded to nearest even), buffers as CUdeviceptr.
/// The storage never moves, so data() stays valid for the object's lifetime.
class kernel_args
{
public:
    /// buffer_ptrs[i] is the device pointer for the i-th *buffer* parameter in signature order.
    /// Throws user_error naming the case and parameter when a scalar value is missing or does not
    /// fit its dtype.
    kernel_args(const signature& sig, const workload_case& c, const std::vector<CUdeviceptr>& buffer_ptrs);
    kernel_args(const kernel_args&) = delete;
    kernel_args& operator=(const kernel_args&) = delete;

    void** data() { return pointers_.data(); }

private:
    std::unique_ptr<std::uint64_t[]> storage_;
    std::vector<void*> pointers_;
};

/// cuLaunchKernel. Returns CUDA_SUCCESS or a non-sticky launch error (e.g.
/// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) as a value; a sticky error throws cuda_error.
CUresult launch_kernel(const loaded_kernel& k, const launch_dims& d, void** args, CUstream s);

/// "[4,3,1]".
std::string format_dims(const std::array<std::int64_t, 3>& d);

}  // namespace warpsmith::worker
