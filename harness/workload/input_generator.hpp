#pragma once

// Deterministic, declarative input generation (SPEC §2; docs/input-generation.md). The same case
// seed and buffer name give the same bytes on any host, in any process, in any order: element i of
// a buffer is a pure function of (buffer seed, i), computed with SplitMix64 as documented. No
// generated host code is ever executed to make inputs.
//
// The generator, exactly (d(k) = stream_draw(buffer seed, k); element i of a buffer):
//   uniform   floats: u = (d(i) >> 11) * 2^-53 in [0,1); v = lo + (hi - lo) * u in double, then
//             rounded to the dtype (nearest even). Integer dtypes: as randint with lo, hi rounded.
//   normal    u1 = ((d(2i) >> 11) + 1) * 2^-53 in (0,1], u2 = (d(2i+1) >> 11) * 2^-53;
//             v = mean + stddev * sqrt(-2 ln u1) * cos(2 pi u2) in double, then rounded.
//   randint   v = lo + (d(i) mod (hi - lo + 1)) for integers lo <= hi (as int64), then cast; for
//             float dtypes the integer is converted exactly.
//   iota      v = start + i * step in double, then rounded / cast.
//   const     v = value.
//   file      raw little-endian elements of the dtype, exactly count * size_of(dtype) bytes.
// Conversions to integer dtypes of out-of-range values are errors naming the buffer. uniform,
// randint, iota and const are bit-exact on every IEEE-754 host; normal relies on libm's log, cos
// and sqrt, which glibc rounds correctly.

#include "harness/workload/workload.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace warpsmith
{

/// SplitMix64 finalizer (Steele, Lea, Flood 2014): the mixing function of the generator.
std::uint64_t splitmix64_mix(std::uint64_t z);

/// 64-bit FNV-1a of a name.
std::uint64_t fnv1a64(std::string_view s);

/// The seed of one buffer: splitmix64_mix(case_seed ^ fnv1a64(buffer_name)).
std::uint64_t buffer_seed(std::uint64_t case_seed, std::string_view buffer_name);

/// The k-th raw 64-bit draw of a buffer's stream: splitmix64_mix(seed + (k+1) * 0x9E3779B97F4A7C15).
std::uint64_t stream_draw(std::uint64_t seed, std::uint64_t k);

/// The stated seed of a case when it has no explicit "seed":
/// splitmix64_mix(workload_seed ^ fnv1a64(case_name)).
std::uint64_t derived_case_seed(std::uint64_t workload_seed, std::string_view case_name);

/// Generates `count` elements of type t per spec, as little-endian bytes (size count*size_of(t)).
/// For input_kind::file the file must hold at least count elements; extra bytes are an error too.
/// Throws user_error naming the buffer on a bad spec or file.
std::string generate_input(
    dtype t, const input_spec& spec, std::uint64_t seed, std::int64_t count, std::string_view buffer_name);

/// Generates the bytes of every input and inout buffer of a case, keyed by parameter name, using
/// the given case seed (the stated seed or a hidden one). Output-only buffers are absent.
std::map<std::string, std::string> generate_case_inputs(const workload& w,
                                                        const workload_case& c,
                                                        std::uint64_t case_seed);

}  // namespace warpsmith
