#pragma once

// The names a workload or candidate gives to kernels, parameters, tunables and -D defines: they end
// up in C++ source, so they must be C identifiers and not keywords.

#include <string_view>

namespace warpsmith
{

/// True for [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(std::string_view s);

/// True for C and C++ keywords that cannot name a kernel parameter or macro.
bool is_reserved_word(std::string_view s);

}  // namespace warpsmith
