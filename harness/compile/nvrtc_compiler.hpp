#pragma once

// NVRTC straight to a cubin for one architecture (never PTX left to the driver), with -lineinfo
// and ptxas -v always on, options checked against the allow-list, resource usage parsed from the
// ptxas report, and an optional on-disk cache (compile_cache.hpp) consulted first.
//
// NVRTC serializes compiles inside one process on the H200 host (SPEC §1), so one nvrtc_compiler
// per process is enough; scale-out is by processes (warpsmith-worker --compile). compile() is
// thread-safe.

#include "harness/compile/compile_cache.hpp"
#include "harness/compile/compile_request.hpp"

#include <optional>
#include <string>

namespace warpsmith {

/// NVRTC's version as "13.0".
std::string nvrtc_version();

class nvrtc_compiler
{
public:
    /// Without a cache every call compiles.
    explicit nvrtc_compiler(std::optional<compile_cache> cache = std::nullopt);

    /// Compiles (or fetches from the cache). A kernel that does not compile, refused options or a
    /// missing entry come back as compiled == false with the reason; only a failure of NVRTC
    /// itself throws (std::system_error with errc::nvrtc_failure).
    compile_output compile(const compile_request& request) const;

    /// The cache key: SHA-256 over source, sorted options, arch and NVRTC version.
    static std::string cache_key(const compile_request& request);

private:
    std::optional<compile_cache> cache_;
};

}  // namespace warpsmith
