#pragma once

// Reading the kernel entry points out of a cubin: a cubin is an ELF64 file whose kernels are
// FUNC symbols flagged STO_CUDA_ENTRY (0x10) in st_other. Non-inlined device functions are FUNC
// symbols without the flag and are not entries.

#include <string>
#include <string_view>
#include <vector>

namespace warpsmith {

/// Entry-point names in symbol-table order; empty when the bytes are not a little-endian ELF64
/// file or hold no kernels. Never throws on malformed input.
std::vector<std::string> cubin_entry_points(std::string_view cubin);

}  // namespace warpsmith
