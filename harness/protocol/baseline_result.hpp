#pragma once

// The answer to the worker protocol's baseline op (docs/worker-protocol.md, "baseline"; SPEC §6
// "Baselines"): a vendor library's run on the workload's cases, validated and timed by the same
// code as candidates. The worker fills it and writes it as {"baseline": {...}}; the GPU executor
// reads it once at the process boundary; the journal's vendor_baseline event stores the same JSON,
// so records written by older versions read back too: absent fields keep their defaults.

#include "harness/protocol/evaluation_result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::protocol
{

/// The GEMM a case ran: C (m x n) = A (m x k) * B (k x n).
struct gemm_dims
{
    std::int64_t m = 0;
    std::int64_t n = 0;
    std::int64_t k = 0;

    friend bool operator==(const gemm_dims&, const gemm_dims&) = default;
};

/// One case of a baseline: its validation on the stated inputs and, for a performance case, its
/// timing (or why the timing failed).
struct baseline_case
{
    std::string name;
    std::string role = "performance";  ///< "correctness" or "performance".
    std::optional<gemm_dims> gemm;
    validation_run validation;
    /// Why the stated run missed the tolerance (the validation's "message"); none when it passed.
    std::optional<std::string> validation_message;
    std::optional<timing_report> timing;
    std::optional<failure_report> timing_failure;

    bool is_performance() const { return role != "correctness"; }
    friend bool operator==(const baseline_case&, const baseline_case&) = default;
};

/// The library that computed the baseline ("libcublas.so.12", "12.4.5").
struct library_info
{
    std::string name;
    std::string version;

    friend bool operator==(const library_info&, const library_info&) = default;
};

struct baseline_result
{
    std::string name;  ///< The workload's declaration ("cublas").
    std::string kind;  ///< "cublas_sgemm".
    std::string math;  ///< "fp32" or "tf32".
    std::optional<library_info> library;
    std::vector<baseline_case> cases;
    std::map<std::string, double> case_median_us;  ///< Per timed performance case.
    std::optional<double> score_us;                ///< Geometric mean of the medians; none untimed.
    bool within_tolerance = false;                 ///< Reported, never an error (TF32 misses FP32).
    double max_abs_error = 0;
    double max_rel_error = 0;
    std::optional<environment_info> environment;
    std::map<std::string, double> phases_ms;  ///< validate_ms, time_ms.
    std::optional<double> eval_ms;

    /// The object the worker writes under "baseline" (the journal stores the same).
    boost::json::object to_json() const;
    /// Requires name, kind and math; other absent fields keep their defaults. Throws format_error
    /// naming the field at fault ("baseline.cases[0].timing.median_us: must be a number, ...").
    static baseline_result from_json(const boost::json::value& v, const std::string& path = "baseline");

    friend bool operator==(const baseline_result&, const baseline_result&) = default;
};

}  // namespace warpsmith::protocol
