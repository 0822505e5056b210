#include "harness/workload/dtype.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace warpsmith
{

namespace
{

struct dtype_info
{
    dtype type;
    std::string_view name;
    std::size_t size;
    std::string_view cuda_name;
    bool floating;
    bool is_signed;
};

constexpr std::array<dtype_info, 11> infos{{
    {dtype::float16, "float16", 2, "__half", true, true},
    {dtype::bfloat16, "bfloat16", 2, "__nv_bfloat16", true, true},
    {dtype::float32, "float32", 4, "float", true, true},
    {dtype::float64, "float64", 8, "double", true, true},
    {dtype::int8, "int8", 1, "signed char", false, true},
    {dtype::uint8, "uint8", 1, "unsigned char", false, false},
    {dtype::int16, "int16", 2, "short", false, true},
    {dtype::int32, "int32", 4, "int", false, true},
    {dtype::uint32, "uint32", 4, "unsigned int", false, false},
    {dtype::int64, "int64", 8, "long long", false, true},
    {dtype::uint64, "uint64", 8, "unsigned long long", false, false},
}};

const dtype_info& info(dtype t)
{
    return infos[static_cast<std::size_t>(t)];
}

// Rounds a double once, to nearest with ties to even, into a binary format with `mant_bits`
// explicit mantissa bits and exponent bias `bias` (half: 10, 15; bfloat16: 7, 127). Working from
// the exact integer significand of the double avoids the double rounding that going through float
// would introduce, and a float argument widens to double exactly, so the float conversions reuse
// this too.
std::uint16_t round_double_to_small_float(double d, int mant_bits, int bias)
{
    const auto bits = std::bit_cast<std::uint64_t>(d);
    const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 63) << 15);
    const int exp_field = static_cast<int>((bits >> 52) & 0x7FF);
    const std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
    const int exp_all_ones = 2 * bias + 1;
    const std::uint16_t inf_bits = static_cast<std::uint16_t>(exp_all_ones << mant_bits);
    if (exp_field == 0x7FF)
    {
        if (frac != 0)
        {
            // Every NaN becomes the canonical quiet NaN of the target, keeping its sign.
            return static_cast<std::uint16_t>(sign | inf_bits | (1u << (mant_bits - 1)));
        }
        return static_cast<std::uint16_t>(sign | inf_bits);
    }
    if (exp_field == 0 && frac == 0)
        return sign;

    // value = sig * 2^k exactly, sig < 2^53.
    std::uint64_t sig = exp_field == 0 ? frac : (frac | (std::uint64_t{1} << 52));
    int k = exp_field == 0 ? -1074 : exp_field - 1075;
    const int top = 63 - std::countl_zero(sig);  // floor(log2(sig))
    const int e_min = 1 - bias;
    int e = top + k;  // floor(log2(value))
    if (e < e_min)
        e = e_min;
    // The target quantum is 2^(e - mant_bits); drop the bits of sig below it.
    const int shift = (e - mant_bits) - k;
    std::uint64_t q;
    if (shift <= 0)
    {
        q = sig << -shift;
    }
    else if (shift > 60)
    {
        q = 0;  // sig < 2^53 is below half a quantum.
    }
    else
    {
        q = sig >> shift;
        const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1);
        const std::uint64_t half = std::uint64_t{1} << (shift - 1);
        if (rem > half || (rem == half && (q & 1) != 0))
            ++q;
    }
    const std::uint64_t hidden = std::uint64_t{1} << mant_bits;
    if (q >= 2 * hidden)
    {
        // Rounding carried into the next binade.
        q >>= 1;
        ++e;
    }
    if (q < hidden)
        return static_cast<std::uint16_t>(sign | q);  // Subnormal (or zero): exponent field 0.
    const int biased = e + bias;
    if (biased >= exp_all_ones)
        return static_cast<std::uint16_t>(sign | inf_bits);
    return static_cast<std::uint16_t>(sign | (static_cast<std::uint64_t>(biased) << mant_bits) |
                                      (q - hidden));
}

}  // namespace

std::optional<dtype> parse_dtype(std::string_view name)
{
    for (const auto& i : infos)
    {
        if (i.name == name)
            return i.type;
    }
    return std::nullopt;
}

std::string_view to_string(dtype t)
{
    return info(t).name;
}
std::size_t size_of(dtype t)
{
    return info(t).size;
}
bool is_floating(dtype t)
{
    return info(t).floating;
}
bool is_signed_integer(dtype t)
{
    return !info(t).floating && info(t).is_signed;
}
std::string_view cuda_type_name(dtype t)
{
    return info(t).cuda_name;
}

// Input generation converts every element, so the common case (a result that is a normal number)
// takes a fast path: round the double's bits to nearest even at the target's mantissa width, then
// rebias the exponent. A carry out of the mantissa bumps the exponent, which is still right. Values
// near zero, near overflow, infinities and NaNs take the general path.
unsigned short double_to_half_bits(double d)
{
    const auto bits = std::bit_cast<std::uint64_t>(d);
    const std::uint64_t magnitude = bits & 0x7FFFFFFFFFFFFFFFull;
    constexpr std::uint64_t smallest_normal = 0x3F10000000000000ull;  // 2^-14
    constexpr std::uint64_t rounds_to_inf = 0x40EFFE0000000000ull;    // 65520
    if (magnitude >= smallest_normal && magnitude < rounds_to_inf)
    {
        const std::uint64_t rounded = magnitude + ((std::uint64_t{1} << 41) - 1) + ((magnitude >> 42) & 1);
        const auto sign = static_cast<unsigned short>((bits >> 48) & 0x8000u);
        return static_cast<unsigned short>(sign | ((rounded >> 42) - (std::uint64_t{1023 - 15} << 10)));
    }
    return round_double_to_small_float(d, 10, 15);
}

unsigned short double_to_bfloat16_bits(double d)
{
    const auto bits = std::bit_cast<std::uint64_t>(d);
    const std::uint64_t magnitude = bits & 0x7FFFFFFFFFFFFFFFull;
    constexpr std::uint64_t smallest_normal = 0x3810000000000000ull;  // 2^-126
    constexpr std::uint64_t rounds_to_inf = 0x47EFF00000000000ull;    // (2 - 2^-8) * 2^127
    if (magnitude >= smallest_normal && magnitude < rounds_to_inf)
    {
        const std::uint64_t rounded = magnitude + ((std::uint64_t{1} << 44) - 1) + ((magnitude >> 45) & 1);
        const auto sign = static_cast<unsigned short>((bits >> 48) & 0x8000u);
        return static_cast<unsigned short>(sign | ((rounded >> 45) - (std::uint64_t{1023 - 127} << 7)));
    }
    return round_double_to_small_float(d, 7, 127);
}
unsigned short float_to_half_bits(float f)
{
    return double_to_half_bits(static_cast<double>(f));
}

unsigned short float_to_bfloat16_bits(float f)
{
    const auto bits = std::bit_cast<std::uint32_t>(f);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return static_cast<unsigned short>((bits >> 16) | 0x0040u);  // Quiet NaN, sign and payload top.
    // bfloat16 is the upper half of a float: adding 0x7FFF plus the lowest kept bit rounds to
    // nearest even, and a carry out of the mantissa correctly bumps the exponent (up to infinity).
    const std::uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);
    return static_cast<unsigned short>(rounded >> 16);
}

float half_bits_to_float(unsigned short h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu;
    const std::uint32_t mant = h & 0x3FFu;
    std::uint32_t bits;
    if (exp == 0x1F)
    {
        bits = sign | 0x7F800000u | (mant << 13);
    }
    else if (exp == 0)
    {
        // Subnormal half: mant * 2^-24, exact in float.
        const float magnitude = static_cast<float>(mant) * 0x1p-24f;
        bits = sign | std::bit_cast<std::uint32_t>(magnitude);
    }
    else
    {
        bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    return std::bit_cast<float>(bits);
}

float bfloat16_bits_to_float(unsigned short b)
{
    return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace warpsmith
