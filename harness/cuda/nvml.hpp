#pragma once

// Current SM and memory clocks through NVML, loaded with dlopen("libnvidia-ml.so.1") so that it is
// optional: without the library, without the device in NVML (some containers), or on any NVML
// error, readings are simply absent (null in JSON). NVML is matched to the CUDA device by PCI bus
// id, because NVML's and CUDA's device orders may differ (CUDA_VISIBLE_DEVICES, FASTEST_FIRST).
// nvml.h is not needed: the four entry points used are declared here with their documented ABI.

#include <optional>
#include <string>

namespace warpsmith::cuda
{

struct clock_reading
{
    std::optional<int> sm_mhz;
    std::optional<int> mem_mhz;
};

class nvml_clocks
{
public:
    /// pci_bus_id as returned by cuDeviceGetPCIBusId ("0000:65:00.0"). Never throws.
    explicit nvml_clocks(const std::string& pci_bus_id);
    ~nvml_clocks();
    nvml_clocks(const nvml_clocks&) = delete;
    nvml_clocks& operator=(const nvml_clocks&) = delete;

    bool available() const { return device_ != nullptr; }
    /// Current clocks; fields are nullopt when NVML is unavailable or a query fails.
    clock_reading read() const;
    /// Why NVML is unavailable ("" when it is available).
    const std::string& unavailable_reason() const { return why_; }

private:
    void* lib_ = nullptr;
    void* device_ = nullptr;
    bool initialised_ = false;
    std::string why_;
    int (*get_clock_)(void*, int, unsigned*) = nullptr;
    int (*shutdown_)() = nullptr;
};

}  // namespace warpsmith::cuda
