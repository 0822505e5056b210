// The toolkit headers a kernel may include by name (include_policy.hpp: allowed_toolkit_header),
// checked by the include policy's scanner (include_policy.cpp).

#include "harness/compile/include_policy.hpp"

#include <algorithm>

namespace warpsmith
{

namespace
{

// ---------------------------------------------------------------------------------------------
// The allowed headers.

const std::vector<std::string> allowed_headers{
    // Single headers of the toolkit's include directory that are device code and compile under NVRTC.
    "cuda_fp16.h",
    "cuda_bf16.h",
    "cuda_fp8.h",
    "cuda_fp6.h",
    "cuda_fp4.h",
    "mma.h",
    "cooperative_groups.h",
    "cuda_pipeline.h",
    "cuda_pipeline_primitives.h",
    "cuda_awbarrier.h",
    "cuda_awbarrier_primitives.h",
    "vector_types.h",
    "vector_functions.h",
    "math_constants.h",
    "device_types.h",
    "curand_kernel.h",
    // Directories: cooperative groups, libcu++ (cuda/std/..., cuda/pipeline, cuda/barrier, cuda/ptx,
    // from the toolkit's cccl/ directory) and its nv/target. Thrust and CUB are not here: Thrust
    // includes headers named by macros a kernel could redefine.
    "cooperative_groups/",
    "cuda/",
    "nv/",
};

bool header_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '/';
}

// A relative path of plain components: no leading '/', no empty, "." or ".." component, no hidden
// file (".env"), only [A-Za-z0-9_.-].
bool plain_relative_name(std::string_view name)
{
    if (name.empty() || name.size() > 200 || name.front() == '/' || name.back() == '/')
        return false;
    if (!std::all_of(name.begin(), name.end(), header_name_char))
        return false;
    std::size_t start = 0;
    while (start <= name.size())
    {
        std::size_t slash = name.find('/', start);
        std::string_view component =
            name.substr(start, slash == std::string_view::npos ? name.npos : slash - start);
        if (component.empty() || component.front() == '.')
            return false;
        if (slash == std::string_view::npos)
            break;
        start = slash + 1;
    }
    return true;
}

}  // namespace

const std::vector<std::string>& allowed_toolkit_headers()
{
    return allowed_headers;
}

bool allowed_toolkit_header(std::string_view name)
{
    if (!plain_relative_name(name))
        return false;
    for (const auto& allowed : allowed_headers)
    {
        if (allowed.back() == '/' ? name.starts_with(allowed) && name.size() > allowed.size()
                                  : name == allowed)
            return true;
    }
    return false;
}

}  // namespace warpsmith
