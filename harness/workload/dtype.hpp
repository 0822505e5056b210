#pragma once

// The element types a workload buffer or scalar may have (SPEC §2).

#include <cstddef>
#include <optional>
#include <string_view>

namespace warpsmith
{

enum class dtype
{
    float16,
    bfloat16,
    float32,
    float64,
    int8,
    uint8,
    int16,
    int32,
    uint32,
    int64,
    uint64,
};

/// "float32" -> dtype::float32; nullopt for an unknown name.
std::optional<dtype> parse_dtype(std::string_view name);
std::string_view to_string(dtype t);
std::size_t size_of(dtype t);
bool is_floating(dtype t);
bool is_signed_integer(dtype t);
/// The CUDA C++ spelling used in generated device code: "float", "__half", "__nv_bfloat16", "int", ...
std::string_view cuda_type_name(dtype t);

/// IEEE half / bfloat16 conversions (round to nearest even), used by input generation and by
/// host-side checks. Bit patterns are returned and taken as uint16.
unsigned short float_to_half_bits(float f);
float half_bits_to_float(unsigned short h);
unsigned short float_to_bfloat16_bits(float f);
float bfloat16_bits_to_float(unsigned short b);
/// The same roundings taken directly from a double, rounded once (no double rounding through float).
/// Input generation computes in double and uses these.
unsigned short double_to_half_bits(double d);
unsigned short double_to_bfloat16_bits(double d);

}  // namespace warpsmith
