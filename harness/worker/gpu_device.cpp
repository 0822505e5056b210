#include "harness/worker/gpu_device.hpp"

#include "harness/worker/local_window.hpp"

#include <cstdio>

namespace warpsmith::worker
{
namespace
{

int attr(CUdevice d, CUdevice_attribute a)
{
    return cuda::device_attribute(d, a);
}

// Informational attributes (clocks, bus width) must never keep the worker from starting: a driver
// that stops reporting one gives 0 instead of an error.
int informational_attr(CUdevice d, CUdevice_attribute a)
{
    int value = 0;
    return cuda::driver().cuDeviceGetAttribute(&value, a, d) == CUDA_SUCCESS ? value : 0;
}

std::string format_uuid(const CUuuid& u)
{
    // The nvidia-smi spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
    std::string out = "GPU-";
    char hex[3];
    for (int i = 0; i < 16; ++i)
    {
        std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(u.bytes[i]));
        out += hex;
        if (i == 3 || i == 5 || i == 7 || i == 9)
            out += '-';
    }
    return out;
}

}  // namespace

gpu_device::gpu_device(int ordinal) : context_(ordinal)
{
    // Before anything launches: the context's local allocation starts from the stack limit and
    // never shrinks (local_window.hpp).
    stack_limit_ = limit_dynamic_stack();
    const CUdevice d = context_.device();
    device_limits& l = limits_;
    l.cc_major = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    l.cc_minor = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    l.sm_count = attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    l.max_threads_per_block = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    l.max_threads_per_sm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    l.warp_size = attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    l.max_block = {attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                   attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                   attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
    l.max_grid = {attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                  attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                  attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
    l.shared_per_block = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    l.shared_per_block_optin = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    l.shared_per_sm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    l.registers_per_block = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    l.registers_per_sm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    l.l2_bytes = static_cast<std::size_t>(attr(d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
    l.clock_khz = informational_attr(d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    l.memory_clock_khz = informational_attr(d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    l.memory_bus_bits = informational_attr(d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);

    char name[256] = {};
    WARPSMITH_CU(cuDeviceGetName, name, static_cast<int>(sizeof name - 1), d);
    name_ = name;
    CUuuid uuid{};
    if (cuda::driver().cuDeviceGetUuid(&uuid, d) == CUDA_SUCCESS)
        uuid_ = format_uuid(uuid);
    char pci[64] = {};
    if (cuda::driver().cuDeviceGetPCIBusId(pci, static_cast<int>(sizeof pci - 1), d) == CUDA_SUCCESS)
        pci_bus_id_ = pci;
    WARPSMITH_CU(cuDeviceTotalMem, &total_memory_, d);
    nvml_ = std::make_unique<cuda::nvml_clocks>(pci_bus_id_);
}

std::string gpu_device::arch() const
{
    return "sm_" + std::to_string(limits_.cc_major) + std::to_string(limits_.cc_minor);
}

std::size_t gpu_device::free_memory() const
{
    std::size_t free = 0, total = 0;
    WARPSMITH_CU(cuMemGetInfo, &free, &total);
    return free;
}

std::string gpu_device::driver_version() const
{
    return cuda::format_cuda_version(cuda::driver().driver_version);
}

}  // namespace warpsmith::worker
