#pragma once

// The allow-list of NVRTC options a candidate may ask for (SPEC §3): --use_fast_math,
// --maxrregcount=N (1..255), -DNAME=V (NAME an identifier, V an integer or identifier), -DNAME, and
// --extra-device-vectorization. Anything else (include paths, -rdc, host options, --gpu-architecture
// overrides) is refused with a one-line reason. "-lineinfo" and the architecture are always added
// by the compiler itself. See docs/compile.md.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

/// The longest macro name a -D option or a candidate's define may have.
inline constexpr std::size_t max_macro_name_bytes = 128;

/// nullopt when every option is allowed, else one line naming the first refused option.
std::optional<std::string> check_compile_options(const std::vector<std::string>& options);

/// nullopt when arch names a real architecture NVRTC can compile to a cubin ("sm_90", "sm_90a",
/// "sm_100"), else one line saying why not ("compute_90" is PTX, which we never hand the driver).
std::optional<std::string> check_arch(const std::string& arch);

/// "-DNAME=V" options for the given defines, in name order.
std::vector<std::string> define_options(const std::map<std::string, std::int64_t>& defines);

}  // namespace warpsmith
