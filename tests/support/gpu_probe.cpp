#include "tests/support/gpu_probe.hpp"

#include <dlfcn.h>

namespace warpsmith::test
{

bool gpu_available(std::string& why)
{
    void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
    {
        why = "libcuda.so.1 not found (no NVIDIA driver)";
        return false;
    }
    using init_fn = int (*)(unsigned);
    using count_fn = int (*)(int*);
    auto init = reinterpret_cast<init_fn>(::dlsym(lib, "cuInit"));
    auto count = reinterpret_cast<count_fn>(::dlsym(lib, "cuDeviceGetCount"));
    if (!init || !count)
    {
        why = "libcuda.so.1 lacks cuInit/cuDeviceGetCount (a stub library?)";
        return false;
    }
    if (int rc = init(0); rc != 0)
    {
        why = "cuInit failed with CUresult " + std::to_string(rc);
        return false;
    }
    int n = 0;
    if (count(&n) != 0 || n <= 0)
    {
        why = "no CUDA device";
        return false;
    }
    return true;
}

}  // namespace warpsmith::test
