#pragma once

// libcuda, loaded with dlopen("libcuda.so.1") at first use (SPEC §1 "No driver needed to start").
//
// cuda.h is used for types and prototypes only. Many driver entry points are versioned through
// macros in cuda.h (cuMemAlloc -> cuMemAlloc_v2, cuEventElapsedTime -> cuEventElapsedTime_v2), and
// the unversioned symbol still exported by libcuda keeps its old ABI. Every function below is
// therefore declared and resolved through the macro: a member named `cuMemAlloc` in source is
// really `cuMemAlloc_v2`, its type is decltype(&::cuMemAlloc_v2), and the symbol looked up is the
// stringified expansion "cuMemAlloc_v2". Calls read naturally (`driver().cuMemAlloc(&p, n)`) and
// always reach the ABI that cuda.h describes.

#include <cuda.h>
#include <cudaProfiler.h>
#include <string>

namespace warpsmith::cuda
{

// clang-format off
#define WARPSMITH_CUDA_DRIVER_FUNCTIONS(X)                                                          \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                           \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)                    \
    X(cuDeviceTotalMem) X(cuDeviceGetUuid) X(cuDeviceGetPCIBusId)                                    \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                                         \
    X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize) X(cuCtxSetLimit) X(cuCtxGetLimit)      \
    X(cuMemAlloc) X(cuMemFree) X(cuMemAllocHost) X(cuMemFreeHost) X(cuMemGetInfo)                    \
    X(cuMemGetAddressRange)                                                                          \
    X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)  \
    X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async)                                       \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuModuleGetGlobal)                 \
    X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel)                                    \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamQuery) X(cuStreamSynchronize)                     \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize)        \
    X(cuEventElapsedTime) X(cuProfilerStart) X(cuProfilerStop)
// clang-format on

/// Function pointers into libcuda, one per entry point listed above.
struct driver_api
{
// fn names a member being declared, which parentheses would not make clearer.
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define WARPSMITH_CUDA_DECLARE_MEMBER(fn) decltype(&::fn) fn = nullptr;
    WARPSMITH_CUDA_DRIVER_FUNCTIONS(WARPSMITH_CUDA_DECLARE_MEMBER)
#undef WARPSMITH_CUDA_DECLARE_MEMBER

    int driver_version = 0;  ///< cuDriverGetVersion, e.g. 13000.
};

/// The driver, loaded and initialised (cuInit(0)) at first use; thread-safe. Throws user_error
/// with one line when libcuda is absent ("no CUDA driver found (libcuda.so.1): this command needs
/// an NVIDIA GPU"), lacks an entry point, or cuInit fails (e.g. no device). A failed load is retried
/// on the next call.
const driver_api& driver();

/// Loads the driver without throwing; on failure returns false with the one-line reason in *why.
bool driver_available(std::string* why = nullptr);

/// The number of CUDA devices (0 when cuInit reports none); throws like driver() otherwise.
int device_count();

/// "13.0" for a driver_version of 13000.
std::string format_cuda_version(int version);

/// "CUDA_ERROR_ILLEGAL_ADDRESS" for 700 (via cuGetErrorName when the driver is loaded; a built-in
/// table otherwise, so names are right even in messages about a driver that failed to load).
std::string error_name(CUresult result);

/// The driver's description of an error ("an illegal memory access was encountered"), or "".
std::string error_description(CUresult result);

}  // namespace warpsmith::cuda
