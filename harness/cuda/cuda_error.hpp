#pragma once

// Every CUresult is checked and a failure becomes a cuda_error: a warpsmith::system_error (the
// infrastructure family, harness/core/error.hpp) in the "cuda" category (value = the CUresult)
// that carries the error's NAME (CUDA_ERROR_ILLEGAL_ADDRESS, the string the engine and the model
// see) and the call that failed.
//
// Some errors are sticky: they poison the context for good and every later call in the process
// returns them again. A worker that sees one can only report it and exit (docs/worker-protocol.md,
// "Restart after a fault or hang"); is_sticky() tells which.

#include "harness/core/error.hpp"

#include <cuda.h>
#include <string>

namespace warpsmith::cuda
{

/// The "cuda" error category: value is a CUresult, message is "NAME (description)".
const boost::system::error_category& cuda_category() noexcept;

/// True for errors after which the context is unusable: illegal address, illegal instruction,
/// misaligned address, invalid address space, invalid PC, hardware stack error, device-side
/// assert, launch failed, launch timeout, uncorrectable ECC, and CUDA_ERROR_UNKNOWN (which the
/// driver returns for faults it cannot classify).
bool is_sticky(CUresult result) noexcept;

class cuda_error : public warpsmith::system_error
{
public:
    /// what() reads "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
    cuda_error(CUresult result, std::string call);

    CUresult result() const noexcept { return result_; }
    /// "CUDA_ERROR_OUT_OF_MEMORY".
    const std::string& name() const noexcept { return name_; }
    /// The driver call that failed, as written in source ("cuMemAlloc").
    const std::string& call() const noexcept { return call_; }
    bool is_sticky() const noexcept { return cuda::is_sticky(result_); }

private:
    CUresult result_;
    std::string name_;
    std::string call_;
};

/// Throws cuda_error(result, call) unless result is CUDA_SUCCESS.
inline void check(CUresult result, const char* call)
{
    if (result != CUDA_SUCCESS)
        throw cuda_error(result, call);
}

}  // namespace warpsmith::cuda

/// Calls a driver entry point through the dlopen'ed table and checks the result, naming the call:
/// WARPSMITH_CU(cuMemAlloc, &ptr, bytes). The name in messages is the unversioned one.
#define WARPSMITH_CU(fn, ...) ::warpsmith::cuda::check(::warpsmith::cuda::driver().fn(__VA_ARGS__), #fn)
