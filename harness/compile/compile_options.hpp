#pragma once

// The allow-list of NVRTC options a candidate may ask for (SPEC §3): --use_fast_math,
// --maxrregcount=N, -DNAME=V (NAME an identifier, V an integer or identifier), and
// --extra-device-vectorization. Anything else (include paths, -rdc, host options, --gpu-architecture
// overrides) is refused with a one-line reason. "-lineinfo" and the architecture are always added
// by the compiler itself.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith {

/// nullopt when every option is allowed, else one line naming the first refused option.
std::optional<std::string> check_compile_options(const std::vector<std::string>& options);

/// "-DNAME=V" options for the given defines, in name order.
std::vector<std::string> define_options(const std::map<std::string, std::int64_t>& defines);

}  // namespace warpsmith
