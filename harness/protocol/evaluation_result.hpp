#pragma once

// The evaluation result of the evaluate operation (docs/worker-protocol.md, "evaluate"): status,
// failure, per-case validation runs and timing, score, environment and phase times. The worker
// fills it and writes it; the engine reads it once at the process boundary and everything above
// (scoring, records, reports, feedback to models) works on these types. The run directory stores
// the same JSON (candidates/<id>/result.json), so records written by older versions read back too:
// absent fields keep their defaults.

#include "harness/protocol/timing_options.hpp"
#include "harness/timing/timing_stats.hpp"
#include "harness/workload/launch_plan.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace warpsmith::protocol
{

/// Why a candidate is invalid: a failure kind of the protocol's table (mismatch, fault, ...), the
/// case it concerns (empty when none) and one paragraph for the model and the user.
struct failure_report
{
    std::string kind;
    std::string case_name;
    std::string message;

    /// {"kind", "case" (null when none), "message"}.
    boost::json::object to_json() const;
    static failure_report from_json(const boost::json::value& v, const std::string& path = "failure");
    /// "case C: message" (or the message alone).
    std::string text() const;

    friend bool operator==(const failure_report&, const failure_report&) = default;
};

/// An element as read back: an integer, a float, or a word ("unwritten", "NaN", "hidden").
using element_reading = std::variant<std::int64_t, std::uint64_t, double, std::string>;

struct mismatch_report
{
    std::string buffer;
    std::uint64_t index = 0;
    element_reading got;
    element_reading expected;

    friend bool operator==(const mismatch_report&, const mismatch_report&) = default;
};

/// One validation run of a case ("stated", "hidden", "repeat" or "timed").
struct validation_run
{
    std::string inputs = "stated";
    bool passed = true;
    std::uint64_t elements = 0;
    std::uint64_t mismatches = 0;
    std::uint64_t unwritten = 0;
    std::uint64_t nonfinite = 0;
    double max_abs_error = 0;
    double max_rel_error = 0;
    std::vector<mismatch_report> first_mismatches;

    boost::json::object to_json() const;
    /// Absent fields keep their defaults; throws format_error naming the field at fault.
    static validation_run from_json(const boost::json::value& v, const std::string& path);
    friend bool operator==(const validation_run&, const validation_run&) = default;
};

struct case_validation
{
    bool passed = false;
    std::vector<validation_run> runs;
    bool guards_intact = true;
    bool inputs_intact = true;
    std::optional<bool> repeat_agrees;  ///< Null until the repeat run was reached.

    friend bool operator==(const case_validation&, const case_validation&) = default;
};

/// A case's "timing": the statistics of its measured launches and how they were taken.
struct timing_report
{
    std::optional<timing_stats> stats;  ///< None when no launch was measured.
    int warmup = 0;
    timing_mode mode = timing_mode::cold;
    std::optional<double> wall_us_per_launch;
    std::optional<double> wall_us_first;  ///< The first cross-check when it was re-measured.
    int checked_launches = 0;
    std::optional<timing_stop> stopped;  ///< None in results from before adaptive timing.
    double target_rel_noise = 0;
    double rel_noise = 0;
    bool suspect = false;
    bool timed_output_valid = true;

    /// The median when it was measured and is positive and finite.
    std::optional<double> median_us() const;

    boost::json::object to_json() const;
    static timing_report from_json(const boost::json::value& v, const std::string& path);
    friend bool operator==(const timing_report&, const timing_report&) = default;
};

struct case_result
{
    std::string name;
    std::string role = "performance";   ///< "correctness" or "performance".
    std::optional<launch_dims> launch;  ///< None when the launch plan did not evaluate.
    case_validation validation;
    std::optional<timing_report> timing;

    bool is_performance() const { return role != "correctness"; }
    friend bool operator==(const case_result&, const case_result&) = default;
};

struct clock_readings
{
    std::optional<int> sm_mhz_start;
    std::optional<int> sm_mhz_end;
    std::optional<int> mem_mhz_start;
    std::optional<int> mem_mhz_end;

    friend bool operator==(const clock_readings&, const clock_readings&) = default;
};

/// Where the evaluation ran.
struct environment_info
{
    std::string gpu;
    std::string arch;
    std::string driver_version;
    std::string nvrtc_version;
    std::string worker_version;
    bool simulated = false;  ///< Written by the simulated backend (tests, benchmarks).
    std::optional<clock_readings> clocks;

    boost::json::object to_json() const;
    /// Absent fields keep their defaults; throws format_error naming the field at fault.
    static environment_info from_json(const boost::json::value& v, const std::string& path);
    friend bool operator==(const environment_info&, const environment_info&) = default;
};

/// The launch bracketed for Nsight Compute (evaluate's profile_case).
struct profiled_launch
{
    std::string case_name;
    std::string run = "repeat";
    bool launched = false;

    friend bool operator==(const profiled_launch&, const profiled_launch&) = default;
};

/// Set by the engine's evaluation cache when it answered without the GPU.
struct cache_hit
{
    std::string run;
    std::string candidate;
    std::string time;
    std::string key;

    friend bool operator==(const cache_hit&, const cache_hit&) = default;
};

enum class evaluation_status
{
    valid,
    invalid,
};

struct evaluation_result
{
    evaluation_status status = evaluation_status::invalid;
    std::optional<failure_report> failure;
    std::vector<case_result> cases;
    std::optional<double> score_us;  ///< Geometric mean of the performance medians (valid, timed).
    std::optional<environment_info> environment;
    std::optional<double> eval_ms;
    std::map<std::string, double> phases_ms;  ///< compile_ms, validate_ms, time_ms, kernel_gpu_ms, ...
    std::optional<profiled_launch> profiled;
    std::optional<cache_hit> eval_cache;

    bool valid() const { return status == evaluation_status::valid; }
    /// The failure's kind, or empty.
    std::string failure_kind() const { return failure ? failure->kind : std::string(); }
    /// The case named name, or nullptr.
    const case_result* find_case(std::string_view name) const;
    /// Median (µs) per performance case with a positive finite median.
    std::map<std::string, double> performance_medians() const;

    /// An invalid result for a candidate nothing was measured of: one that did not compile, a
    /// worker that died or refused the request.
    static evaluation_result invalid(std::string kind,
                                     std::string message,
                                     std::optional<double> eval_ms = {});

    boost::json::object to_json() const;
    /// Throws format_error naming the field at fault.
    static evaluation_result from_json(const boost::json::value& v);

    friend bool operator==(const evaluation_result&, const evaluation_result&) = default;
};

}  // namespace warpsmith::protocol
