// The worker's helper kernels on a real device, on crafted data whose answers are known exactly:
// classification (unwritten / non-finite / outside tolerance, NaN and Inf rules, integer poison
// that the reference legitimately produces, 64-bit integers beyond 2^53), maxima, the first-bad
// and worst-element searches, byte diffs, guard checks, poison patterns, reference statistics, the
// shared-memory scrubber and the FP32 rate kernel.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/worker/check_area.hpp"
#include "harness/worker/comparator_kernels.hpp"
#include "harness/worker/device_buffers.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/workload/dtype.hpp"
#include "harness/workload/tolerance.hpp"

#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

using namespace warpsmith;
using namespace warpsmith::worker;
using namespace std::chrono_literals;

namespace
{

struct helpers_fixture
{
    gpu_device device{0};
    std::unique_ptr<helper_kernels> helpers;
    check_area area{8, 3};

    helpers_fixture()
    {
        const nvrtc_compiler compiler;
        const compile_output out = compiler.compile(helper_kernels_request(device.arch()));
        BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
        helpers = std::make_unique<helper_kernels>(
            out.cubin, device.limits().sm_count, device.limits().shared_per_block_optin);
    }

    CUstream s() const { return device.stream(); }

    template <class T>
    cuda::device_buffer upload(const std::vector<T>& v) const
    {
        cuda::device_buffer b(v.size() * sizeof(T));
        b.upload(v.data(), v.size() * sizeof(T));
        return b;
    }

    void sync() const { WARPSMITH_CU(cuStreamSynchronize, s()); }

    compare_counters compare(dtype t,
                             const cuda::device_buffer& got,
                             const cuda::device_buffer& ref,
                             std::uint64_t n,
                             double atol,
                             double rtol)
    {
        area.clear(0, s());
        helpers->compare(s(), t, got.ptr(), ref.ptr(), n, atol, rtol, area.compare(0, 0));
        area.fetch(0, s());
        sync();
        return area.host_compare(0, 0);
    }

    std::vector<std::uint64_t> bad_indices(dtype t,
                                           const cuda::device_buffer& got,
                                           const cuda::device_buffer& ref,
                                           std::uint64_t n,
                                           double atol,
                                           double rtol)
    {
        std::vector<std::uint64_t> out;
        std::uint64_t start = 0;
        while (start < n)
        {
            auto i = area.find_index(
                s(),
                10s,
                [&](CUdeviceptr r)
                { helpers->first_bad(s(), t, got.ptr(), ref.ptr(), n, start, atol, rtol, r); });
            if (!i)
                break;
            out.push_back(*i);
            start = *i + 1;
        }
        return out;
    }
};

double as_double(std::uint64_t bits)
{
    return std::bit_cast<double>(bits);
}

std::uint32_t f32_bits(float f)
{
    return std::bit_cast<std::uint32_t>(f);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(comparator_gpu, helpers_fixture)

BOOST_AUTO_TEST_CASE(float32_classification)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::uint32_t poison = static_cast<std::uint32_t>(poison_for(dtype::float32).element_bits);
    const std::vector<float> ref_f{1, 2, 3, 4, nan, inf, 0, 5, 1e-6f, 7};
    std::vector<std::uint32_t> got{f32_bits(1),
                                   f32_bits(2 + 1e-6f),
                                   f32_bits(3.1f),
                                   poison,
                                   f32_bits(nan),
                                   f32_bits(inf),
                                   f32_bits(-0.0f),
                                   f32_bits(nan),
                                   f32_bits(0.0f),
                                   f32_bits(-inf)};
    std::vector<std::uint32_t> ref;
    for (float f : ref_f)
        ref.push_back(f32_bits(f));
    auto g = upload(got), r = upload(ref);
    const compare_counters c = compare(dtype::float32, g, r, got.size(), 1e-5, 1e-5);
    BOOST_TEST(c.unwritten == 1u);   // [3]
    BOOST_TEST(c.nonfinite == 2u);   // [7] NaN and [9] -Inf where the reference is finite
    BOOST_TEST(c.mismatches == 1u);  // [2]
    const double worst = static_cast<double>(3.1f) - 3.0;
    BOOST_TEST(as_double(c.max_abs_bits) == worst);
    BOOST_TEST(as_double(c.max_rel_bits) == 1.0);  // [8]: |0 - 1e-6| / 1e-6
    const std::vector<std::uint64_t> expected{2, 3, 7, 9};
    BOOST_TEST(bad_indices(dtype::float32, g, r, got.size(), 1e-5, 1e-5) == expected,
               boost::test_tools::per_element());
    auto at = area.find_index(
        s(),
        10s,
        [&](CUdeviceptr out)
        { helpers->find_abs_error(s(), dtype::float32, g.ptr(), r.ptr(), got.size(), c.max_abs_bits, out); });
    BOOST_TEST_REQUIRE(at.has_value());
    BOOST_TEST(*at == 2u);
    // A reference NaN needs a NaN; a number there is a mismatch.
    std::vector<std::uint32_t> g2{f32_bits(1.0f)}, r2{f32_bits(nan)};
    auto g2d = upload(g2), r2d = upload(r2);
    BOOST_TEST(compare(dtype::float32, g2d, r2d, 1, 1e-5, 1e-5).mismatches == 1u);
}

BOOST_AUTO_TEST_CASE(large_arrays_count_exactly)
{
    // Many blocks and grid-stride loops: every 1000th element is off.
    const std::size_t n = 5'000'003;
    std::vector<float> ref(n), got(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        ref[i] = static_cast<float>(i % 1000) * 0.5f;
        got[i] = ref[i] + (i % 1000 == 999 ? 1.0f : 0.0f);
    }
    auto g = upload(got), r = upload(ref);
    const compare_counters c = compare(dtype::float32, g, r, n, 1e-3, 0);
    BOOST_TEST(c.mismatches == n / 1000);
    BOOST_TEST(c.unwritten == 0u);
    BOOST_TEST(as_double(c.max_abs_bits) == 1.0);
    const auto first = bad_indices(dtype::float32, g, r, 3000, 1e-3, 0);
    BOOST_TEST(first == (std::vector<std::uint64_t>{999, 1999, 2999}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(integer_poison_that_the_reference_produces_is_not_unwritten)
{
    // 0xA5 is int8 -91: a reference may produce it. Only got == poison where ref != poison counts.
    const std::vector<std::uint8_t> ref{0xA5, 3, 3, 10};
    const std::vector<std::uint8_t> got{0xA5, 0xA5, 4, 10};
    auto g = upload(got), r = upload(ref);
    const compare_counters c = compare(dtype::int8, g, r, 4, 0.5, 0);
    BOOST_TEST(c.unwritten == 1u);
    BOOST_TEST(c.mismatches == 1u);
    BOOST_TEST(as_double(c.max_abs_bits) == 1.0);
}

BOOST_AUTO_TEST_CASE(sixty_four_bit_integers_beyond_2_pow_53_differ)
{
    const std::uint64_t big = std::uint64_t{1} << 60;
    const std::vector<std::uint64_t> ref{big, 5}, got{big + 1, 5};
    auto g = upload(got), r = upload(ref);
    const compare_counters c = compare(dtype::uint64, g, r, 2, 0.5, 0);
    BOOST_TEST(c.mismatches == 1u);
    const compare_counters i64 = compare(dtype::int64, g, r, 2, 0.5, 0);
    BOOST_TEST(i64.mismatches == 1u);
}

BOOST_AUTO_TEST_CASE(int32_off_by_one_fails_an_exact_comparison)
{
    // The default tolerance of an integer output is exact (default_tolerance): one element off by
    // one is a mismatch at any magnitude, where a relative tolerance would have let it pass.
    const tolerance exact = default_tolerance(dtype::int32);
    BOOST_TEST_REQUIRE(exact.exact());
    const std::vector<std::int32_t> ref{7, -3, 2000000000, 0, 41};
    const std::vector<std::int32_t> got{7, -3, 2000000001, 0, 41};
    auto g = upload(got), r = upload(ref);
    const compare_counters c = compare(dtype::int32, g, r, ref.size(), exact.atol, exact.rtol);
    BOOST_TEST(c.unwritten == 0u);
    BOOST_TEST(c.mismatches == 1u);
    BOOST_TEST(as_double(c.max_abs_bits) == 1.0);
    BOOST_TEST((bad_indices(dtype::int32, g, r, ref.size(), exact.atol, exact.rtol) ==
                std::vector<std::uint64_t>{2}),
               boost::test_tools::per_element());
    auto worst = area.find_index(
        s(),
        10s,
        [&](CUdeviceptr out)
        { helpers->find_abs_error(s(), dtype::int32, g.ptr(), r.ptr(), ref.size(), c.max_abs_bits, out); });
    BOOST_TEST_REQUIRE(worst.has_value());
    BOOST_TEST(*worst == 2u);
    // The old float32-like default (1e-5 relative) would have passed it: 1 <= 1e-5 * 2e9.
    BOOST_TEST(compare(dtype::int32, g, r, ref.size(), 1e-5, 1e-5).mismatches == 0u);
    // A tolerance the output sets for itself still applies to integers.
    BOOST_TEST(compare(dtype::int32, g, r, ref.size(), 1, 0).mismatches == 0u);
    // Equal outputs pass an exact comparison.
    BOOST_TEST(compare(dtype::int32, r, r, ref.size(), 0, 0).mismatches == 0u);
}

BOOST_AUTO_TEST_CASE(integer_errors_are_exact_distances)
{
    // -2^62 against 2^62: the distance 2^63 does not fit an int64 but is exact in a u64.
    const std::int64_t half = std::int64_t{1} << 62;
    const std::vector<std::int64_t> ref{half, 9}, got{-half, 9};
    auto g = upload(got), r = upload(ref);
    const compare_counters c = compare(dtype::int64, g, r, 2, 0, 0);
    BOOST_TEST(c.mismatches == 1u);
    BOOST_TEST(as_double(c.max_abs_bits) == 9223372036854775808.0);
    const std::vector<std::uint8_t> uref{250, 3}, ugot{5, 3};
    auto ug = upload(ugot), ur = upload(uref);
    const compare_counters u8 = compare(dtype::uint8, ug, ur, 2, 0, 0);
    BOOST_TEST(u8.mismatches == 1u);
    BOOST_TEST(as_double(u8.max_abs_bits) == 245.0);
}

BOOST_AUTO_TEST_CASE(half_bfloat16_and_double)
{
    const unsigned short one = float_to_half_bits(1.0f);
    const std::vector<unsigned short> ref{one, one, one, one};
    const std::vector<unsigned short> got{
        float_to_half_bits(1.0009765625f),
        float_to_half_bits(1.5f),
        static_cast<unsigned short>(poison_for(dtype::float16).element_bits),
        0x7E00};
    auto g = upload(got), r = upload(ref);
    const compare_counters h = compare(dtype::float16, g, r, 4, 1e-3, 0);
    BOOST_TEST(h.unwritten == 1u);
    BOOST_TEST(h.nonfinite == 1u);
    BOOST_TEST(h.mismatches == 1u);
    BOOST_TEST(as_double(h.max_abs_bits) == 0.5);

    const std::vector<unsigned short> bref{float_to_bfloat16_bits(2.0f), float_to_bfloat16_bits(2.0f)};
    const std::vector<unsigned short> bgot{float_to_bfloat16_bits(2.0f), float_to_bfloat16_bits(3.0f)};
    auto bg = upload(bgot), br = upload(bref);
    const compare_counters b = compare(dtype::bfloat16, bg, br, 2, 0.1, 0);
    BOOST_TEST(b.mismatches == 1u);
    BOOST_TEST(as_double(b.max_abs_bits) == 1.0);

    const std::vector<std::uint64_t> dref{std::bit_cast<std::uint64_t>(1.0),
                                          std::bit_cast<std::uint64_t>(2.0)};
    const std::vector<std::uint64_t> dgot{poison_for(dtype::float64).element_bits,
                                          std::bit_cast<std::uint64_t>(2.0 + 1e-12)};
    auto dg = upload(dgot), dr = upload(dref);
    const compare_counters d = compare(dtype::float64, dg, dr, 2, 1e-9, 0);
    BOOST_TEST(d.unwritten == 1u);
    BOOST_TEST(d.mismatches == 0u);
}

BOOST_AUTO_TEST_CASE(byte_diffs_and_reference_statistics)
{
    std::vector<std::uint8_t> a(1003, 7), b(1003, 7);
    b[0] = 1;
    b[500] = 2;
    b[1002] = 3;  // in the tail that is not a whole 32-bit word
    auto ad = upload(a), bd = upload(b);
    area.clear(0, s());
    helpers->diff_bytes(s(), ad.ptr(), bd.ptr(), a.size(), area.input_diff(0, 0));
    area.fetch(0, s());
    sync();
    BOOST_TEST(area.host_input_diff(0, 0) == 3u);

    const std::vector<float> v{0, 0, std::numeric_limits<float>::quiet_NaN(), 1};
    auto vd = upload(v);
    area.clear(0, s());
    helpers->reference_stats(s(), dtype::float32, vd.ptr(), v.size(), area.compare(0, 1));
    area.fetch(0, s());
    sync();
    const compare_counters st = area.host_compare(0, 1);
    BOOST_TEST(st.unwritten == 2u);  // the non-zero count lives in word 0
    BOOST_TEST(st.nonfinite == 1u);
}

BOOST_AUTO_TEST_CASE(guards_and_poison)
{
    guarded_buffer buf(1001 * sizeof(float));
    BOOST_TEST(buf.payload() % payload_alignment == 0u);
    BOOST_TEST(buf.tail_guard() == buf.payload() + 1001 * sizeof(float));
    BOOST_TEST(buf.tail_guard_bytes() >= guard_bytes);
    buf.poison(s(), dtype::float32);
    const std::vector<guard_range> ranges{{buf.base(), guard_bytes, 0, 0},
                                          {buf.tail_guard(), buf.tail_guard_bytes(), 1, 0}};
    auto table = upload(ranges);

    const auto check = [&](guard_refill refill)
    {
        area.clear(0, s());
        helpers->check_guards(
            s(), table.ptr(), 2, buf.tail_guard_bytes(), guard_fill, area.guard_counter(0, 0, 0), refill);
        area.fetch(0, s());
        sync();
        return std::pair{area.host_guard(0, 0, 0), area.host_guard(0, 0, 1)};
    };
    // The first refill puts the fill byte wherever the allocation held another.
    (void)check(guard_refill::yes);
    BOOST_TEST(check(guard_refill::no).first == 0u);
    BOOST_TEST(check(guard_refill::no).second == 0u);
    // One byte just past the end, two bytes well before the start, and the tail guard's last
    // 16-byte vector (the end of the 2 MiB-page allocation).
    WARPSMITH_CU(cuMemsetD8Async, buf.tail_guard(), 0, 1, s());
    WARPSMITH_CU(cuMemsetD8Async, buf.base() + 100, 0, 2, s());
    WARPSMITH_CU(cuMemsetD8Async, buf.tail_guard() + buf.tail_guard_bytes() - 16, 0, 16, s());
    {
        auto [before, after] = check(guard_refill::no);
        BOOST_TEST(before == 2u);
        BOOST_TEST(after == 17u);
    }
    {
        // A check without refill leaves them changed; one with refill counts them and puts them back.
        auto [before, after] = check(guard_refill::yes);
        BOOST_TEST(before == 2u);
        BOOST_TEST(after == 17u);
    }
    BOOST_TEST(check(guard_refill::no).first == 0u);
    BOOST_TEST(check(guard_refill::no).second == 0u);

    std::vector<std::uint32_t> host(1001);
    sync();
    WARPSMITH_CU(cuMemcpyDtoH, host.data(), buf.payload(), host.size() * 4);
    for (std::uint32_t x : host)
        BOOST_TEST_REQUIRE(x == 0x7FA5A5A5u);

    guarded_buffer d(3 * sizeof(double));
    d.poison(s(), dtype::float64);
    guarded_buffer h(5 * 2);
    h.poison(s(), dtype::float16);
    sync();
    std::uint64_t dbits[3];
    WARPSMITH_CU(cuMemcpyDtoH, dbits, d.payload(), sizeof dbits);
    for (std::uint64_t x : dbits)
        BOOST_TEST(x == poison_for(dtype::float64).element_bits);
    unsigned short hbits[5];
    WARPSMITH_CU(cuMemcpyDtoH, hbits, h.payload(), sizeof hbits);
    for (unsigned short x : hbits)
        BOOST_TEST(x == 0x7CA5);
}

BOOST_AUTO_TEST_CASE(scrubber_and_fp32_rate_kernel_run)
{
    helpers->scrub_shared_memory(s(), 1234);
    helpers->scrub_shared_memory(s(), 5678);
    cuda::device_buffer out(static_cast<std::size_t>(device.limits().sm_count) * 256 * sizeof(float));
    const double flops = helpers->fp32_fma(s(), device.limits().sm_count, 16, out.ptr());
    sync();
    BOOST_TEST(flops == 2.0 * 64 * 16 * device.limits().sm_count * 256);
}

BOOST_AUTO_TEST_SUITE_END()
