#pragma once

// NVRTC straight to a cubin for one architecture (never PTX left to the driver), with -lineinfo
// and ptxas -v always on, options checked against the allow-list, resource usage parsed from the
// ptxas report, and an optional on-disk cache (compile_cache.hpp) consulted first. See
// docs/compile.md.
//
// NVRTC serializes compiles inside one process on the H200 host (SPEC §1), so one nvrtc_compiler
// per process is enough; scale-out is by processes (warpsmith-worker --compile). compile() is
// thread-safe.

#include "harness/compile/compile_cache.hpp"
#include "harness/compile/compile_limits.hpp"
#include "harness/compile/compile_request.hpp"
#include "harness/compile/compile_thread.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// True when PTX text names the local state space anywhere (".local": declarations such as
/// __local_depot, ld/st/atom.local, cvta.local, cvta.to.local, isspacep.local). PTX identifiers
/// cannot contain '.', so the token is only ever a state space; a mention in a comment errs on the
/// side of wiping.
bool ptx_addresses_local_memory(std::string_view ptx);

/// Why a kernel whose PTX addresses parameter space through a register must not run, or nullopt:
/// `cvta.param` / `cvta.to.param` (a generic address of a parameter, which reaches the parameter
/// memory of other queued launches), or `ld.param` / `st.param` at a register address (which
/// reaches the driver's words beside the launch's parameters in its constant bank: the launch's
/// local and shared windows among them). Kernels of a workload signature (scalars and pointers)
/// never need either; NVRTC emits them for a __grid_constant__ parameter whose address is taken.
std::optional<std::string> ptx_parameter_space_refusal(std::string_view ptx);

/// NVRTC's version as "13.0".
std::string nvrtc_version();

/// The CUDA toolkit include directory handed to NVRTC as -I so that kernels can include
/// <cuda_fp16.h> and <cuda_bf16.h>: the first of $CUDA_HOME/include, $CUDA_PATH/include, the
/// include directory next to the loaded libnvrtc, the build's toolkit, /usr/local/cuda/include
/// that holds cuda_fp16.h. nullopt when none does (NVRTC's builtin headers are all there is).
/// Resolved once per process.
const std::optional<std::filesystem::path>& cuda_include_dir();

/// The include directories handed to NVRTC: cuda_include_dir() and, when the toolkit has it, its
/// cccl/ directory (libcu++: <cuda/std/...>, <cuda/pipeline>, <cuda/barrier>; CUDA 13 keeps them
/// there). Empty when there is no cuda_include_dir().
std::vector<std::filesystem::path> cuda_include_dirs();

/// The options every compile gets before the request's own: -arch=<arch>, -lineinfo,
/// --ptxas-options=-v, -std=c++17 and -I<dir> for each of cuda_include_dirs().
std::vector<std::string> fixed_compile_options(const std::string& arch);

class nvrtc_compiler
{
public:
    /// Without a cache every call compiles. A cubin above max_cubin_bytes is refused
    /// (compile_limits.hpp).
    explicit nvrtc_compiler(std::optional<compile_cache> cache = std::nullopt,
                            std::size_t max_cubin_bytes = default_max_cubin_bytes);

    /// Compiles (or fetches from the cache). A kernel that does not compile, refused options, a
    /// refused architecture, a source that breaks the include policy (include_policy.hpp) or a
    /// missing entry come back as compiled == false with the reason in error, and so does a cubin
    /// above max_cubin_bytes; only a failure of NVRTC itself throws (system_error with
    /// errc::nvrtc_failure). Refused requests never reach NVRTC or the cache; every NVRTC outcome
    /// is cached except a cubin refused for its size (a cache of that size is what the limit is
    /// there to prevent). The log and the error are redacted
    /// of registered secrets (secret_redaction.hpp). In a compile worker started by the compile
    /// pool, the first call enters the compile sandbox (compile_sandbox.hpp) before anything else.
    /// With a compile thread (compile_on), every compile runs there, inside its sandbox.
    compile_output compile(const compile_request& request) const;

    /// Runs every later compile on `thread` (compile_thread.hpp), so that a process which cannot
    /// sandbox itself (the GPU worker, the CLI) still compiles where only the toolkit is readable.
    /// Copies of this compiler share the thread.
    void compile_on(std::shared_ptr<compile_thread> thread) { thread_ = std::move(thread); }
    const std::shared_ptr<compile_thread>& thread() const { return thread_; }

    /// The cache key: SHA-256 over a format tag, the file name, source, entry, options in the
    /// order given (a later -DNAME=V redefines an earlier one, so order is meaningful), arch and
    /// NVRTC version.
    static std::string cache_key(const compile_request& request);

    const std::optional<compile_cache>& cache() const { return cache_; }

private:
    std::optional<compile_cache> cache_;
    std::size_t max_cubin_bytes_;
    std::shared_ptr<compile_thread> thread_;
};

}  // namespace warpsmith
