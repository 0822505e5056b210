#pragma once

// What one validation run reports (docs/worker-protocol.md "Validation order"): the stable failure
// kinds, the kinds of run, the elements read back from the device and their text, and run_report,
// the protocol's entry of "runs". The validator (validator.hpp) fills them.

#include "harness/protocol/evaluation_result.hpp"
#include "harness/workload/dtype.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::worker
{

/// Stable failure kinds (docs/worker-protocol.md); the engine and tests key on these strings.
namespace failure_kind
{
inline constexpr const char* compile_error = "compile_error";
inline constexpr const char* entry_not_found = "entry_not_found";
inline constexpr const char* bad_launch = "bad_launch";
inline constexpr const char* launch_failed = "launch_failed";
inline constexpr const char* unwritten = "unwritten";
inline constexpr const char* mismatch = "mismatch";
inline constexpr const char* nonfinite = "nonfinite";
inline constexpr const char* out_of_bounds_write = "out_of_bounds_write";
inline constexpr const char* input_mutated = "input_mutated";
inline constexpr const char* nondeterministic = "nondeterministic";
inline constexpr const char* timed_output_mismatch = "timed_output_mismatch";
inline constexpr const char* timing_inconsistent = "timing_inconsistent";
inline constexpr const char* fault = "fault";
inline constexpr const char* hang = "hang";
}  // namespace failure_kind

using failure = protocol::failure_report;

enum class run_kind
{
    stated,  ///< Stated inputs, fresh poison.
    hidden,  ///< Hidden-seed inputs.
    repeat,  ///< Stated inputs again; must also agree with the stated run.
    timed,   ///< A timed launch, re-validated.
};

std::string_view to_string(run_kind k);

/// One element as read back from the device.
struct element_value
{
    dtype type = dtype::float32;
    std::uint64_t bits = 0;

    bool is_poison() const;
    /// The number; "unwritten" for the poison pattern, "NaN" / "Inf" / "-Inf" for non-finite
    /// floats (JSON has no such numbers).
    protocol::element_reading to_reading() const;
    /// "0.51", "NaN", "unwritten".
    std::string to_text() const;
};

struct element_mismatch
{
    std::string buffer;
    std::uint64_t index = 0;
    element_value got;
    element_value expected;
};

/// The element listing of a failure message: "[17] got 1.5 expected 0.5, [40] got ..." ("second
/// run" / "first run" with against_previous). For the hidden inputs only the indices, "[17], [40]":
/// the hidden run says where and how much, never the values (SPEC §3 "Trust rules"); run_report's
/// JSON likewise writes "hidden" for them.
std::string list_elements(const std::vector<element_mismatch>& list, run_kind kind, bool against_previous);

/// The outcome of one validation run (one entry of "runs").
struct run_report
{
    run_kind kind = run_kind::stated;
    bool passed = true;
    std::uint64_t elements = 0;  ///< Output elements compared (all outputs).
    std::uint64_t mismatches = 0;
    std::uint64_t unwritten = 0;
    std::uint64_t nonfinite = 0;
    double max_abs_error = 0;
    double max_rel_error = 0;
    std::vector<element_mismatch> first_mismatches;
    bool guards_intact = true;
    bool inputs_intact = true;
    bool agrees_with_first = true;  ///< repeat runs only.
    float kernel_ms = 0;            ///< Event time of the launch (validation runs).
    std::optional<failure> fail;

    /// The protocol's entry of "runs" (values of hidden runs written as "hidden").
    protocol::validation_run to_protocol() const;
};

/// Whether the reports of a run of this kind show element values (not for the hidden run).
bool shows_values(run_kind k);

/// `v` with `digits` significant digits ("%.*g"), as the reports print numbers.
std::string format_double(double v, int digits);

}  // namespace warpsmith::worker
