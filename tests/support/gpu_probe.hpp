#pragma once

// Whether a CUDA device is usable, decided without linking libcuda: dlopen("libcuda.so.1"),
// cuInit(0) and cuDeviceGetCount() > 0. GPU test executables call this before Boost.Test starts.

#include <string>

namespace warpsmith::test
{

/// True when a CUDA device can be used; otherwise why holds the reason.
bool gpu_available(std::string& why);

}  // namespace warpsmith::test
