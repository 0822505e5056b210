#include "harness/cuda/nvml.hpp"

#include <dlfcn.h>

namespace warpsmith::cuda
{
namespace
{

// From nvml.h (stable ABI): nvmlReturn_t is an int enum with NVML_SUCCESS = 0; nvmlDevice_t is
// an opaque pointer; nvmlClockType_t has NVML_CLOCK_SM = 1 and NVML_CLOCK_MEM = 2.
constexpr int nvml_success = 0;
constexpr int nvml_clock_sm = 1;
constexpr int nvml_clock_mem = 2;

using init_fn = int (*)();
using shutdown_fn = int (*)();
using handle_by_pci_fn = int (*)(const char*, void**);
using clock_info_fn = int (*)(void*, int, unsigned*);

}  // namespace

nvml_clocks::nvml_clocks(const std::string& pci_bus_id)
{
    lib_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_)
    {
        why_ = "libnvidia-ml.so.1 not found";
        return;
    }
    auto init = reinterpret_cast<init_fn>(::dlsym(lib_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<shutdown_fn>(::dlsym(lib_, "nvmlShutdown"));
    auto by_pci = reinterpret_cast<handle_by_pci_fn>(::dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    get_clock_ = reinterpret_cast<clock_info_fn>(::dlsym(lib_, "nvmlDeviceGetClockInfo"));
    if (!init || !shutdown_ || !by_pci || !get_clock_)
    {
        why_ = "libnvidia-ml.so.1 lacks the clock entry points";
        return;
    }
    if (int rc = init(); rc != nvml_success)
    {
        why_ = "nvmlInit failed (" + std::to_string(rc) + ")";
        return;
    }
    initialised_ = true;
    void* device = nullptr;
    if (int rc = by_pci(pci_bus_id.c_str(), &device); rc != nvml_success || !device)
    {
        why_ = "NVML does not know the device at PCI " + pci_bus_id + " (" + std::to_string(rc) + ")";
        return;
    }
    device_ = device;
}

nvml_clocks::~nvml_clocks()
{
    if (initialised_ && shutdown_)
        shutdown_();
    // The library stays mapped: NVML may have registered handlers or threads.
}

clock_reading nvml_clocks::read() const
{
    clock_reading r;
    if (!device_)
        return r;
    unsigned mhz = 0;
    if (get_clock_(device_, nvml_clock_sm, &mhz) == nvml_success)
        r.sm_mhz = static_cast<int>(mhz);
    if (get_clock_(device_, nvml_clock_mem, &mhz) == nvml_success)
        r.mem_mhz = static_cast<int>(mhz);
    return r;
}

}  // namespace warpsmith::cuda
