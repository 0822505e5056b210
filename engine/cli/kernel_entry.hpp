#pragma once

// Finding a kernel's entry point in CUDA source without compiling it: the functions declared
// `extern "C" __global__` (qualifiers such as __launch_bounds__(N) allowed before or after `void`),
// with comments ignored. The block form `extern "C" { ... }` is not recognised; --entry names the
// entry then.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// Names of the extern "C" __global__ functions in source, in order of appearance, unique.
std::vector<std::string> find_extern_c_kernels(std::string_view source);

/// The entry to use: `entry` when given; else the only extern "C" kernel; else `preferred` when it
/// is among several. Otherwise throws user_error naming origin and the kernels found.
std::string choose_entry(std::string_view source,
                         const std::optional<std::string>& entry,
                         const std::string& origin,
                         const std::string& preferred = {});

}  // namespace warpsmith
