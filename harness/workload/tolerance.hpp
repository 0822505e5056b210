#pragma once

// How close a candidate's output must be to the reference (SPEC §3 "Trust rules": integer outputs
// are compared exactly; float tolerances default per dtype). The table of defaults lives here and
// nowhere else; docs/workload-format.md ("Tolerances") documents it and a test checks the two agree.

#include "harness/workload/dtype.hpp"

#include <cstdint>
#include <string>

namespace warpsmith
{

/// An element passes when |got - ref| <= atol + rtol*|ref|. Both zero is an exact comparison: the
/// element must equal the reference (bit-identical, or for floats the same value: -0 == +0, and a
/// NaN reference wants a NaN).
struct tolerance
{
    double rtol = 0;
    double atol = 0;

    bool exact() const { return rtol == 0 && atol == 0; }
    bool operator==(const tolerance&) const = default;
};

/// The tolerance of an output of type t that neither the output nor the workload sets:
///
///   float16   rtol 1e-3,  atol 1e-3   (about one unit in the last place, 2^-10, plus a little)
///   bfloat16  rtol 1e-2,  atol 1e-2   (about one unit in the last place, 2^-7)
///   float32   rtol 1e-5,  atol 1e-5   (room for a different summation order)
///   float64   rtol 1e-10, atol 1e-10
///   integers  exact
tolerance default_tolerance(dtype t);

/// What a failure message says about `mismatches` of `elements` output elements of type t that miss
/// tol: "3 of 1237 elements outside atol=0.0001 + rtol=0.0001*|ref|", or for an exact comparison
/// "3 of 1237 elements differ from the reference (int32, compared exactly)". With against_previous
/// the comparison was with the candidate's own first run ("first run" instead of the reference).
std::string mismatch_text(
    const tolerance& tol, dtype t, std::uint64_t mismatches, std::uint64_t elements, bool against_previous);

}  // namespace warpsmith
