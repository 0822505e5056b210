// dtype names, sizes and CUDA spellings; half and bfloat16 conversions at their edges.

#include "harness/workload/dtype.hpp"

#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace warpsmith;

namespace
{

float bits_float(std::uint32_t b)
{
    return std::bit_cast<float>(b);
}

// Correct rounding by brute force, as a check on the bit manipulation: binary search for the largest
// finite target value not above |d| (positive bit patterns are ordered like their values), then
// pick the nearer neighbour, the even one on a tie. Differences of doubles this close are exact.
unsigned short reference_rounding(double d,
                                  float (*decode)(unsigned short),
                                  unsigned short largest_finite,
                                  unsigned short infinity)
{
    const double a = std::fabs(d);
    const unsigned short sign = std::signbit(d) ? 0x8000 : 0;
    unsigned lo = 0, hi = largest_finite;
    if (a >= decode(largest_finite))
    {
        lo = largest_finite;
    }
    else
    {
        while (lo < hi)
        {
            const unsigned mid = (lo + hi + 1) / 2;
            if (decode(static_cast<unsigned short>(mid)) <= a)
                lo = mid;
            else
                hi = mid - 1;
        }
    }
    const double below = decode(static_cast<unsigned short>(lo));
    // Above the largest finite value the next step up is where infinity would sit.
    const double above = lo == largest_finite ? 2.0 * below - decode(static_cast<unsigned short>(lo - 1))
                                              : decode(static_cast<unsigned short>(lo + 1));
    unsigned result = lo;
    if (a - below > above - a || (a - below == above - a && (lo & 1) != 0))
        result = lo + 1;
    if (result > largest_finite)
        result = infinity;
    return static_cast<unsigned short>(sign | result);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dtype_suite)

BOOST_AUTO_TEST_CASE(names_sizes_and_cuda_spellings)
{
    struct row
    {
        const char* name;
        std::size_t size;
        const char* cuda;
        bool floating;
        bool signed_int;
    };
    const row rows[] = {
        {"float16", 2, "__half", true, false},
        {"bfloat16", 2, "__nv_bfloat16", true, false},
        {"float32", 4, "float", true, false},
        {"float64", 8, "double", true, false},
        {"int8", 1, "signed char", false, true},
        {"uint8", 1, "unsigned char", false, false},
        {"int16", 2, "short", false, true},
        {"int32", 4, "int", false, true},
        {"uint32", 4, "unsigned int", false, false},
        {"int64", 8, "long long", false, true},
        {"uint64", 8, "unsigned long long", false, false},
    };
    for (const auto& r : rows)
    {
        BOOST_TEST_CONTEXT(r.name)
        {
            const auto t = parse_dtype(r.name);
            BOOST_REQUIRE(t.has_value());
            BOOST_TEST(to_string(*t) == r.name);
            BOOST_TEST(size_of(*t) == r.size);
            BOOST_TEST(cuda_type_name(*t) == r.cuda);
            BOOST_TEST(is_floating(*t) == r.floating);
            BOOST_TEST(is_signed_integer(*t) == r.signed_int);
        }
    }
    BOOST_TEST(!parse_dtype("float").has_value());
    BOOST_TEST(!parse_dtype("Float32").has_value());
    BOOST_TEST(!parse_dtype("").has_value());
    BOOST_TEST(!parse_dtype("half").has_value());
}

BOOST_AUTO_TEST_CASE(half_from_float_exact_and_rounded)
{
    BOOST_TEST(float_to_half_bits(1.0f) == 0x3C00);
    BOOST_TEST(float_to_half_bits(-2.0f) == 0xC000);
    BOOST_TEST(float_to_half_bits(0.0f) == 0x0000);
    BOOST_TEST(float_to_half_bits(-0.0f) == 0x8000);
    BOOST_TEST(float_to_half_bits(0.1f) == 0x2E66);
    BOOST_TEST(float_to_half_bits(65504.0f) == 0x7BFF);  // largest finite half
    BOOST_TEST(float_to_half_bits(0x1p-14f) == 0x0400);  // smallest normal
    // Ties go to the even mantissa: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
    BOOST_TEST(float_to_half_bits(1.0f + 0x1p-11f) == 0x3C00);
    BOOST_TEST(float_to_half_bits(1.0f + 3 * 0x1p-11f) == 0x3C02);
    BOOST_TEST(float_to_half_bits(1.0f + 0x1p-11f + 0x1p-20f) == 0x3C01);  // just above the tie
    BOOST_TEST(float_to_half_bits(2049.0f) == 0x6800);  // tie between 2048 and 2050 -> 2048
    BOOST_TEST(float_to_half_bits(2051.0f) == 0x6802);  // tie between 2050 and 2052 -> 2052
}

BOOST_AUTO_TEST_CASE(half_overflow_and_specials)
{
    BOOST_TEST(float_to_half_bits(65519.0f) == 0x7BFF);  // below the halfway point to 65536
    BOOST_TEST(float_to_half_bits(65520.0f) == 0x7C00);  // the tie rounds to even: infinity
    BOOST_TEST(float_to_half_bits(1e10f) == 0x7C00);
    BOOST_TEST(float_to_half_bits(-1e10f) == 0xFC00);
    BOOST_TEST(float_to_half_bits(std::numeric_limits<float>::infinity()) == 0x7C00);
    BOOST_TEST(float_to_half_bits(-std::numeric_limits<float>::infinity()) == 0xFC00);
    const unsigned short nan = float_to_half_bits(std::numeric_limits<float>::quiet_NaN());
    BOOST_TEST((nan & 0x7C00) == 0x7C00);
    BOOST_TEST((nan & 0x03FF) != 0);
    const unsigned short neg_nan = float_to_half_bits(-std::numeric_limits<float>::quiet_NaN());
    BOOST_TEST((neg_nan & 0x8000) == 0x8000);
    BOOST_TEST(std::isnan(half_bits_to_float(nan)));
    // A signalling NaN with only low payload bits must not turn into infinity.
    const unsigned short snan = float_to_half_bits(bits_float(0x7F800001u));
    BOOST_TEST((snan & 0x03FF) != 0);
}

BOOST_AUTO_TEST_CASE(half_subnormals)
{
    BOOST_TEST(float_to_half_bits(0x1p-24f) == 0x0001);         // smallest subnormal
    BOOST_TEST(float_to_half_bits(1023 * 0x1p-24f) == 0x03FF);  // largest subnormal
    BOOST_TEST(float_to_half_bits(0x1p-25f) == 0x0000);         // tie with 0 -> 0 (even)
    BOOST_TEST(float_to_half_bits(-0x1p-25f) == 0x8000);
    BOOST_TEST(float_to_half_bits(0x1p-25f * 1.0000001f) == 0x0001);
    BOOST_TEST(float_to_half_bits(3 * 0x1p-25f) == 0x0002);  // tie between 1 and 2 -> 2
    BOOST_TEST(float_to_half_bits(5 * 0x1p-25f) == 0x0002);  // tie between 2 and 3 -> 2
    BOOST_TEST(float_to_half_bits(0x1p-26f) == 0x0000);
    BOOST_TEST(float_to_half_bits(1e-40f) == 0x0000);  // a float subnormal
    // The largest subnormal plus half a step rounds up into the smallest normal.
    BOOST_TEST(float_to_half_bits(1023.5f * 0x1p-24f) == 0x0400);
    BOOST_TEST(half_bits_to_float(0x0001) == 0x1p-24f);
    BOOST_TEST(half_bits_to_float(0x03FF) == 1023 * 0x1p-24f);
    BOOST_TEST(half_bits_to_float(0x8001) == -0x1p-24f);
}

BOOST_AUTO_TEST_CASE(half_to_float_and_exhaustive_round_trip)
{
    BOOST_TEST(half_bits_to_float(0x3C00) == 1.0f);
    BOOST_TEST(half_bits_to_float(0x7BFF) == 65504.0f);
    BOOST_TEST(half_bits_to_float(0xC000) == -2.0f);
    BOOST_TEST(std::isinf(half_bits_to_float(0x7C00)));
    BOOST_TEST(half_bits_to_float(0xFC00) == -std::numeric_limits<float>::infinity());
    BOOST_TEST(std::isnan(half_bits_to_float(0x7E00)));
    BOOST_TEST(std::isnan(half_bits_to_float(0x7C01)));
    BOOST_TEST(std::signbit(half_bits_to_float(0x8000)));
    int mismatches = 0;
    for (std::uint32_t h = 0; h <= 0xFFFF; ++h)
    {
        const bool is_nan = (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
        if (is_nan)
            continue;
        const auto back = float_to_half_bits(half_bits_to_float(static_cast<unsigned short>(h)));
        mismatches += back != h;
        mismatches += double_to_half_bits(half_bits_to_float(static_cast<unsigned short>(h))) != h;
    }
    BOOST_TEST(mismatches == 0);
}

BOOST_AUTO_TEST_CASE(bfloat16_conversions)
{
    BOOST_TEST(float_to_bfloat16_bits(1.0f) == 0x3F80);
    BOOST_TEST(float_to_bfloat16_bits(-2.0f) == 0xC000);
    BOOST_TEST(float_to_bfloat16_bits(0.1f) == 0x3DCD);
    BOOST_TEST(float_to_bfloat16_bits(-0.0f) == 0x8000);
    BOOST_TEST(float_to_bfloat16_bits(1.0f + 0x1p-8f) == 0x3F80);      // tie -> even
    BOOST_TEST(float_to_bfloat16_bits(1.0f + 3 * 0x1p-8f) == 0x3F82);  // tie -> even (up)
    BOOST_TEST(float_to_bfloat16_bits(1.0f + 0x1p-8f + 0x1p-20f) == 0x3F81);
    // Overflow: the largest float rounds past the largest bfloat16 (0x7F7F) to infinity.
    BOOST_TEST(float_to_bfloat16_bits(std::numeric_limits<float>::max()) == 0x7F80);
    BOOST_TEST(float_to_bfloat16_bits(bits_float(0x7F7F7FFFu)) == 0x7F7F);
    BOOST_TEST(float_to_bfloat16_bits(bits_float(0x7F7F8000u)) == 0x7F80);  // tie -> even = inf
    BOOST_TEST(float_to_bfloat16_bits(-std::numeric_limits<float>::infinity()) == 0xFF80);
    // Subnormals keep their upper bits, rounded.
    BOOST_TEST(float_to_bfloat16_bits(bits_float(0x00000001u)) == 0x0000);
    BOOST_TEST(float_to_bfloat16_bits(bits_float(0x00008000u)) == 0x0000);  // tie -> even
    BOOST_TEST(float_to_bfloat16_bits(bits_float(0x00018000u)) == 0x0002);  // tie -> even (up)
    BOOST_TEST(float_to_bfloat16_bits(bits_float(0x00010001u)) == 0x0001);
    const unsigned short nan = float_to_bfloat16_bits(bits_float(0x7F800001u));
    BOOST_TEST(std::isnan(bfloat16_bits_to_float(nan)));
    BOOST_TEST(std::isnan(bfloat16_bits_to_float(double_to_bfloat16_bits(std::nan("")))));
    BOOST_TEST(bfloat16_bits_to_float(0x3F80) == 1.0f);
    BOOST_TEST(bfloat16_bits_to_float(0x0001) == bits_float(0x00010000u));
    int mismatches = 0;
    for (std::uint32_t b = 0; b <= 0xFFFF; ++b)
    {
        const bool is_nan = (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0;
        if (is_nan)
            continue;
        const float f = bfloat16_bits_to_float(static_cast<unsigned short>(b));
        mismatches += float_to_bfloat16_bits(f) != b;
        mismatches += double_to_bfloat16_bits(f) != b;
    }
    BOOST_TEST(mismatches == 0);
}

BOOST_AUTO_TEST_CASE(double_conversions_round_once)
{
    // Just above a half tie in double, but exactly on the tie once narrowed to float: rounding
    // through float would round twice and go to even (down); rounding once goes up.
    const double d = 1.0 + 0x1p-11 + 0x1p-40;
    BOOST_TEST(double_to_half_bits(d) == 0x3C01);
    BOOST_TEST(float_to_half_bits(static_cast<float>(d)) == 0x3C00);
    const double e = 1.0 + 0x1p-8 + 0x1p-40;
    BOOST_TEST(double_to_bfloat16_bits(e) == 0x3F81);
    BOOST_TEST(float_to_bfloat16_bits(static_cast<float>(e)) == 0x3F80);
    BOOST_TEST(double_to_half_bits(1e300) == 0x7C00);
    BOOST_TEST(double_to_bfloat16_bits(-1e300) == 0xFF80);
    BOOST_TEST(double_to_half_bits(1e-300) == 0x0000);
    BOOST_TEST(double_to_half_bits(-4.9e-324) == 0x8000);  // a double subnormal
    BOOST_TEST(double_to_half_bits(0x1p-24) == 0x0001);

    // For float inputs the float and double routes agree (a float widens to double exactly).
    std::mt19937 rng(12345);
    int mismatches = 0;
    for (int i = 0; i < 200000; ++i)
    {
        const float f = bits_float(static_cast<std::uint32_t>(rng()));
        if (std::isnan(f))
            continue;
        mismatches += float_to_half_bits(f) != double_to_half_bits(f);
        mismatches += float_to_bfloat16_bits(f) != double_to_bfloat16_bits(f);
    }
    BOOST_TEST(mismatches == 0);
}

BOOST_AUTO_TEST_CASE(double_conversions_match_brute_force_rounding)
{
    // Random doubles across the whole range of each format, plus exact ties between neighbours.
    std::mt19937_64 rng(777);
    int half_mismatches = 0, bf16_mismatches = 0;
    for (int i = 0; i < 200000; ++i)
    {
        const std::uint64_t mantissa = rng() & ((std::uint64_t{1} << 52) - 1);
        const int e_half = static_cast<int>(rng() % 48) - 30;    // 2^-30 .. 2^17
        const int e_bf16 = static_cast<int>(rng() % 270) - 140;  // 2^-140 .. 2^129
        const double sign = (rng() & 1) ? -1.0 : 1.0;
        const double frac = 1.0 + static_cast<double>(mantissa) * 0x1p-52;
        const double h = sign * std::ldexp(frac, e_half);
        const double b = sign * std::ldexp(frac, e_bf16);
        half_mismatches +=
            double_to_half_bits(h) != reference_rounding(h, half_bits_to_float, 0x7BFF, 0x7C00);
        bf16_mismatches +=
            double_to_bfloat16_bits(b) != reference_rounding(b, bfloat16_bits_to_float, 0x7F7F, 0x7F80);
        // The midpoint between two neighbouring finite values.
        const auto hb = static_cast<unsigned short>(rng() % 0x7BFF);
        const double htie = (double{half_bits_to_float(hb)} + double{half_bits_to_float(hb + 1)}) / 2;
        half_mismatches +=
            double_to_half_bits(htie) != reference_rounding(htie, half_bits_to_float, 0x7BFF, 0x7C00);
        const auto bb = static_cast<unsigned short>(rng() % 0x7F7F);
        const double btie = (double{bfloat16_bits_to_float(bb)} + double{bfloat16_bits_to_float(bb + 1)}) / 2;
        bf16_mismatches +=
            double_to_bfloat16_bits(btie) != reference_rounding(btie, bfloat16_bits_to_float, 0x7F7F, 0x7F80);
    }
    BOOST_TEST(half_mismatches == 0);
    BOOST_TEST(bf16_mismatches == 0);
}

BOOST_AUTO_TEST_SUITE_END()
