#include "harness/cuda/driver_api.hpp"

#include "harness/core/error.hpp"

#include <atomic>
#include <dlfcn.h>
#include <memory>
#include <mutex>

namespace warpsmith::cuda
{
namespace
{

#define WARPSMITH_CUDA_STRINGIFY_EXPANDED(x) #x
#define WARPSMITH_CUDA_STRINGIFY(x) WARPSMITH_CUDA_STRINGIFY_EXPANDED(x)

// Resolves every entry point. The macro argument is expanded before stringification, so the
// symbol looked up is the versioned one (cuMemAlloc -> "cuMemAlloc_v2").
void resolve_all(void* lib, driver_api& api)
{
#define WARPSMITH_CUDA_RESOLVE(fn)                                                           \
    {                                                                                        \
        const char* symbol = WARPSMITH_CUDA_STRINGIFY(fn);                                   \
        void* address = ::dlsym(lib, symbol);                                                \
        if (!address)                                                                        \
            throw user_error(std::string("the CUDA driver (libcuda.so.1) lacks ") + symbol + \
                             ": the driver is too old for this build (CUDA " +               \
                             format_cuda_version(CUDA_VERSION) + " headers)");               \
        api.fn = reinterpret_cast<decltype(api.fn)>(address);                                \
    }
    WARPSMITH_CUDA_DRIVER_FUNCTIONS(WARPSMITH_CUDA_RESOLVE)
#undef WARPSMITH_CUDA_RESOLVE
}

// The driver stays loaded for the life of the process: unloading libcuda while contexts or
// static destructors may still call into it is never safe.
struct loaded_driver
{
    driver_api api;
};

std::mutex g_load_mutex;
std::unique_ptr<loaded_driver> g_driver;  // Set once, never reset.

const driver_api& load_locked()
{
    if (g_driver)
        return g_driver->api;
    void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        throw user_error("no CUDA driver found (libcuda.so.1): this command needs an NVIDIA GPU");
    auto loaded = std::make_unique<loaded_driver>();
    resolve_all(lib, loaded->api);
    if (CUresult rc = loaded->api.cuInit(0); rc != CUDA_SUCCESS)
    {
        // cuInit failing with CUDA_ERROR_NO_DEVICE is the common "driver but no GPU" case (e.g. a
        // container without devices): name it plainly.
        const char* name = nullptr;
        loaded->api.cuGetErrorName(rc, &name);
        if (rc == CUDA_ERROR_NO_DEVICE)
            throw user_error(
                "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE): this command needs "
                "an NVIDIA GPU");
        throw user_error(std::string("the CUDA driver failed to initialise (cuInit: ") +
                         (name ? name : ("CUresult " + std::to_string(rc)).c_str()) + ")");
    }
    loaded->api.cuDriverGetVersion(&loaded->api.driver_version);
    g_driver = std::move(loaded);
    return g_driver->api;
}

const driver_api* loaded_or_null()
{
    std::lock_guard lock(g_load_mutex);
    return g_driver ? &g_driver->api : nullptr;
}

}  // namespace

const driver_api& driver()
{
    // Fast path without the lock once loaded: g_driver is written once under the mutex and never
    // changes afterwards, and the acquire below pairs with the release of the unlock.
    static std::atomic<const driver_api*> cached{nullptr};
    if (const driver_api* api = cached.load(std::memory_order_acquire))
        return *api;
    std::lock_guard lock(g_load_mutex);
    const driver_api& api = load_locked();
    cached.store(&api, std::memory_order_release);
    return api;
}

bool driver_available(std::string* why)
{
    try
    {
        driver();
        return true;
    }
    catch (const user_error& e)
    {
        if (why)
            *why = e.what();
        return false;
    }
}

int device_count()
{
    int n = 0;
    CUresult rc = driver().cuDeviceGetCount(&n);
    if (rc != CUDA_SUCCESS)
        return 0;
    return n;
}

std::string format_cuda_version(int version)
{
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string error_name(CUresult result)
{
    if (const driver_api* api = loaded_or_null())
    {
        const char* name = nullptr;
        if (api->cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
            return name;
    }
    switch (result)
    {
        case CUDA_SUCCESS:
            return "CUDA_SUCCESS";
        case CUDA_ERROR_INVALID_VALUE:
            return "CUDA_ERROR_INVALID_VALUE";
        case CUDA_ERROR_OUT_OF_MEMORY:
            return "CUDA_ERROR_OUT_OF_MEMORY";
        case CUDA_ERROR_NOT_INITIALIZED:
            return "CUDA_ERROR_NOT_INITIALIZED";
        case CUDA_ERROR_NO_DEVICE:
            return "CUDA_ERROR_NO_DEVICE";
        case CUDA_ERROR_INVALID_DEVICE:
            return "CUDA_ERROR_INVALID_DEVICE";
        case CUDA_ERROR_INVALID_IMAGE:
            return "CUDA_ERROR_INVALID_IMAGE";
        case CUDA_ERROR_NOT_FOUND:
            return "CUDA_ERROR_NOT_FOUND";
        case CUDA_ERROR_NOT_READY:
            return "CUDA_ERROR_NOT_READY";
        case CUDA_ERROR_ILLEGAL_ADDRESS:
            return "CUDA_ERROR_ILLEGAL_ADDRESS";
        case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
            return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
        case CUDA_ERROR_LAUNCH_TIMEOUT:
            return "CUDA_ERROR_LAUNCH_TIMEOUT";
        case CUDA_ERROR_ASSERT:
            return "CUDA_ERROR_ASSERT";
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
            return "CUDA_ERROR_HARDWARE_STACK_ERROR";
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
            return "CUDA_ERROR_ILLEGAL_INSTRUCTION";
        case CUDA_ERROR_MISALIGNED_ADDRESS:
            return "CUDA_ERROR_MISALIGNED_ADDRESS";
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
            return "CUDA_ERROR_INVALID_ADDRESS_SPACE";
        case CUDA_ERROR_INVALID_PC:
            return "CUDA_ERROR_INVALID_PC";
        case CUDA_ERROR_LAUNCH_FAILED:
            return "CUDA_ERROR_LAUNCH_FAILED";
        case CUDA_ERROR_ECC_UNCORRECTABLE:
            return "CUDA_ERROR_ECC_UNCORRECTABLE";
        default:
            return "CUresult " + std::to_string(static_cast<int>(result));
    }
}

std::string error_description(CUresult result)
{
    if (const driver_api* api = loaded_or_null())
    {
        const char* text = nullptr;
        if (api->cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
            return text;
    }
    return {};
}

}  // namespace warpsmith::cuda
