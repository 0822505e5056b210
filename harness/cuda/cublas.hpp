#pragma once

// cuBLAS, loaded at run time like libcuda (SPEC §6: the vendor GEMM is timed next to the
// candidates, but never linked, so a machine without cuBLAS builds, tests and runs everything
// else; the worker then answers its `baseline` op with `no_baseline`).
//
// libcublasLt is loaded first, then libcublas, trying .so.13 before .so.12: each by name (the
// loader's search path and the program's RUNPATH to the CUDA toolkit), then in the toolkit's library
// directory this build was configured with. Loading libcublasLt first matters because libcublas
// needs it and a loader that found libcublas through our RUNPATH would not find its dependency
// on its own; once loaded, the dependency is satisfied by its soname.
//
// cublas_api.h supplies types and constants only. cuBLAS carries the CUDA runtime inside it, and
// the runtime uses the context current on the calling thread: in the worker that is the device's
// primary context, which the runtime shares, so cuBLAS works on the worker's buffers and stream.

#include "harness/core/error.hpp"

#include <cublas_api.h>
#include <cuda.h>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warpsmith::cuda
{

/// The cuBLAS entry points the worker uses.
struct cublas_api
{
    cublasStatus_t (*create)(cublasHandle_t*) = nullptr;                      // cublasCreate_v2
    cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;                      // cublasDestroy_v2
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;     // cublasSetStream_v2
    cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t) = nullptr;  // cublasSetMathMode
    cublasStatus_t (*get_property)(libraryPropertyType, int*) = nullptr;      // cublasGetProperty
    const char* (*status_name)(cublasStatus_t) = nullptr;  // cublasGetStatusName (optional)
    cublasStatus_t (*gemm_ex)(cublasHandle_t,
                              cublasOperation_t,
                              cublasOperation_t,
                              int,
                              int,
                              int,
                              const void*,
                              const void*,
                              cudaDataType,
                              int,
                              const void*,
                              cudaDataType,
                              int,
                              const void*,
                              void*,
                              cudaDataType,
                              int,
                              cublasComputeType_t,
                              cublasGemmAlgo_t) = nullptr;  // cublasGemmEx

    std::string library;  ///< What was loaded: "libcublas.so.13" or a full path.
    std::string version;  ///< "13.0.2" (cublasGetProperty).
};

/// cuBLAS could not be loaded; what() is one line naming what was tried.
class cublas_unavailable : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// The "cublas" error category: cublasStatus_t values, messages "CUBLAS_STATUS_EXECUTION_FAILED".
const boost::system::error_category& cublas_category() noexcept;

/// A cuBLAS call failed; what() reads "cublasGemmEx: CUBLAS_STATUS_EXECUTION_FAILED". One of the
/// project's infrastructure errors (code() in cublas_category()).
class cublas_error : public warpsmith::system_error
{
public:
    cublas_error(cublasStatus_t status, const std::string& call);
    cublasStatus_t status() const noexcept { return status_; }

private:
    cublasStatus_t status_;
};

/// cuBLAS, loaded at first use; thread-safe. Throws cublas_unavailable (retried on the next call).
const cublas_api& cublas();

/// Loads cuBLAS without throwing; on failure returns false with the one-line reason in *why.
bool cublas_available(std::string* why = nullptr);

/// "CUBLAS_STATUS_NOT_SUPPORTED" (cuBLAS's own name when it is loaded, else a built-in table).
std::string cublas_status_name(cublasStatus_t status);

/// The arithmetic of a float32 GEMM.
enum class gemm_math
{
    fp32,  ///< CUBLAS_COMPUTE_32F with CUBLAS_DEFAULT_MATH: FP32 multiplies and accumulation.
    tf32,  ///< CUBLAS_COMPUTE_32F_FAST_TF32 with CUBLAS_TF32_TENSOR_OP_MATH: inputs rounded to TF32
           ///< (10-bit mantissa) on the tensor cores, FP32 accumulation.
};

std::string_view to_string(gemm_math m);

/// A cuBLAS handle bound to one stream. Like the driver handles (handles.hpp) it assumes the
/// context is current on the calling thread, and its destructor leaks instead of calling cuBLAS
/// once the context is lost.
class cublas_handle
{
public:
    /// cublasCreate, then cublasSetStream(s). Throws cublas_unavailable or cublas_error.
    cublas_handle(CUstream s, gemm_math math);
    ~cublas_handle();
    cublas_handle(const cublas_handle&) = delete;
    cublas_handle& operator=(const cublas_handle&) = delete;

    gemm_math math() const { return math_; }

    /// Queues the row-major product C = A * B (alpha 1, beta 0) on the handle's stream: A is m x k,
    /// B is k x n, C is m x n, all dense float32. cuBLAS is column-major, and a row-major matrix is
    /// its transpose in column-major order, so this computes C^T = B^T * A^T: cublasGemmEx with
    /// (m, n, k) = (n, m, k), B first with leading dimension n, then A with k, C with n. With beta
    /// 0, C is only written (its old contents, poison included, are never read). Throws cublas_error.
    void sgemm_row_major(int m, int n, int k, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) const;

private:
    cublasHandle_t handle_ = nullptr;
    gemm_math math_;
};

}  // namespace warpsmith::cuda
