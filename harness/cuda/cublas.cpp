#include "harness/cuda/cublas.hpp"

#include "harness/core/log.hpp"
#include "harness/cuda/handles.hpp"

#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <vector>

#ifndef WARPSMITH_CUDA_LIBDIR
#define WARPSMITH_CUDA_LIBDIR ""
#endif

namespace warpsmith::cuda
{
namespace
{

// Major versions tried, newest first (the CUDA 13 toolkit ships .13; a CUDA 12 host has .12).
constexpr const char* k_versions[] = {"13", "12"};

// dlopen by name, then in the toolkit directory of the build. Returns the handle and what worked.
void* open_library(const std::string& name, std::string& opened, std::string& tried)
{
    std::vector<std::string> candidates{name};
    if (std::string_view(WARPSMITH_CUDA_LIBDIR).size() > 0)
        candidates.push_back(std::string(WARPSMITH_CUDA_LIBDIR) + "/" + name);
    for (const std::string& c : candidates)
    {
        if (void* lib = ::dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL))
        {
            opened = c;
            return lib;
        }
        tried += (tried.empty() ? "" : ", ") + c;
    }
    return nullptr;
}

template <class F>
void resolve(void* lib, const char* symbol, F& out, const std::string& library, bool required = true)
{
    out = reinterpret_cast<F>(::dlsym(lib, symbol));
    if (!out && required)
        throw cublas_unavailable(library + " lacks " + symbol + " (cuBLAS too old for this build)");
}

// cuBLAS stays loaded for the life of the process, like libcuda: handles may still exist in static
// destructors, and the runtime inside it registers exit handlers.
std::mutex g_mutex;
std::unique_ptr<cublas_api> g_api;

const cublas_api& load_locked()
{
    if (g_api)
        return *g_api;
    std::string tried;
    for (const char* v : k_versions)
    {
        std::string lt_opened, opened;
        void* lt = open_library(std::string("libcublasLt.so.") + v, lt_opened, tried);
        if (!lt)
            continue;
        void* lib = open_library(std::string("libcublas.so.") + v, opened, tried);
        if (!lib)
            continue;
        auto api = std::make_unique<cublas_api>();
        api->library = opened;
        resolve(lib, "cublasCreate_v2", api->create, opened);
        resolve(lib, "cublasDestroy_v2", api->destroy, opened);
        resolve(lib, "cublasSetStream_v2", api->set_stream, opened);
        resolve(lib, "cublasSetMathMode", api->set_math_mode, opened);
        resolve(lib, "cublasGetProperty", api->get_property, opened);
        resolve(lib, "cublasGemmEx", api->gemm_ex, opened);
        resolve(lib, "cublasGetStatusName", api->status_name, opened, false);
        int major = 0, minor = 0, patch = 0;
        api->get_property(MAJOR_VERSION, &major);
        api->get_property(MINOR_VERSION, &minor);
        api->get_property(PATCH_LEVEL, &patch);
        api->version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
        log_debug("cuBLAS " + api->version + " loaded from " + opened);
        g_api = std::move(api);
        return *g_api;
    }
    throw cublas_unavailable("cuBLAS not found (tried " + tried + ")");
}

void check(cublasStatus_t status, const char* call)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw cublas_error(status, call);
}

}  // namespace

namespace
{

class cublas_category_impl final : public boost::system::error_category
{
public:
    const char* name() const noexcept override { return "cublas"; }
    std::string message(int ev) const override { return cublas_status_name(static_cast<cublasStatus_t>(ev)); }
};

}  // namespace

const boost::system::error_category& cublas_category() noexcept
{
    static const cublas_category_impl instance;
    return instance;
}

cublas_error::cublas_error(cublasStatus_t status, const std::string& call)
    : warpsmith::system_error(boost::system::error_code(static_cast<int>(status), cublas_category()), call),
      status_(status)
{
}

const cublas_api& cublas()
{
    std::lock_guard lock(g_mutex);
    return load_locked();
}

bool cublas_available(std::string* why)
{
    try
    {
        cublas();
        return true;
    }
    catch (const cublas_unavailable& e)
    {
        if (why)
            *why = e.what();
        return false;
    }
}

std::string cublas_status_name(cublasStatus_t status)
{
    {
        std::lock_guard lock(g_mutex);
        if (g_api && g_api->status_name)
            if (const char* name = g_api->status_name(status))
                return name;
    }
    switch (status)
    {
        case CUBLAS_STATUS_SUCCESS:
            return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED:
            return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED:
            return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE:
            return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH:
            return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR:
            return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED:
            return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR:
            return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED:
            return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR:
            return "CUBLAS_STATUS_LICENSE_ERROR";
        default:
            break;
    }
    return "cublasStatus " + std::to_string(static_cast<int>(status));
}

std::string_view to_string(gemm_math m)
{
    return m == gemm_math::tf32 ? "tf32" : "fp32";
}

cublas_handle::cublas_handle(CUstream s, gemm_math math) : math_(math)
{
    const cublas_api& api = cublas();
    check(api.create(&handle_), "cublasCreate");
    try
    {
        // CUstream and cudaStream_t are the same type (struct CUstream_st*).
        check(api.set_stream(handle_, s), "cublasSetStream");
        check(api.set_math_mode(handle_,
                                math == gemm_math::tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
              "cublasSetMathMode");
    }
    catch (...)
    {
        api.destroy(handle_);
        throw;
    }
}

cublas_handle::~cublas_handle()
{
    // After a sticky error cuBLAS would only fail (or wait on a poisoned context): leak instead.
    if (handle_ && !context_lost())
        cublas().destroy(handle_);
}

void cublas_handle::sgemm_row_major(int m, int n, int k, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) const
{
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const cublasComputeType_t compute =
        math_ == gemm_math::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    // Row-major C (m x n) = A (m x k) * B (k x n) is column-major C^T (n x m) = B^T (n x k) * A^T (k x m).
    check(cublas().gemm_ex(handle_,
                           CUBLAS_OP_N,
                           CUBLAS_OP_N,
                           n,
                           m,
                           k,
                           &alpha,
                           reinterpret_cast<const void*>(b),
                           CUDA_R_32F,
                           n,
                           reinterpret_cast<const void*>(a),
                           CUDA_R_32F,
                           k,
                           &beta,
                           reinterpret_cast<void*>(c),
                           CUDA_R_32F,
                           n,
                           compute,
                           CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
}

}  // namespace warpsmith::cuda
