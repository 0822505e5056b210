#pragma once

// What `warpsmith eval` and `warpsmith run` print and save, computed from evaluation results
// without any I/O (docs/cli.md, "eval"): a per-case table (status, median and p10/p90, speedup over
// the reference and the initial kernel), the failure summary of an invalid candidate, and the
// speedup block of result.json. Results are the worker's evaluation result objects
// (docs/worker-protocol.md, "evaluate").

#include "harness/protocol/evaluation_result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct case_row
{
    std::string name;
    std::string role;
    std::string status;  ///< "ok", "FAIL", "-" (not reached).
    std::optional<double> median_us, p10_us, p90_us;
    std::optional<double> vs_reference;  ///< reference median / candidate median.
    std::optional<double> vs_initial;
    /// Measured launches and why they stopped ("quiet", "ceiling", "dominated", "fixed"; empty
    /// for results from before adaptive timing), and the achieved noise (the median's 95%
    /// interval half-width over the median).
    std::optional<double> samples;
    std::string stopped;
    std::optional<double> rel_noise;
};

struct eval_report
{
    std::string name;          ///< The candidate's name.
    std::string status;        ///< "valid" or "invalid".
    std::string failure_kind;  ///< Empty when valid.
    std::string failure_case;
    std::string failure_message;
    std::vector<case_row> rows;
    std::optional<double> score_us;      ///< Geometric mean of the performance medians.
    std::optional<double> vs_reference;  ///< Geometric mean of the per-case speedups.
    std::optional<double> vs_initial;
    bool has_initial = false;

    /// {"vs_reference": x|null, "vs_initial": y|null, "cases": {case: {...}}}.
    boost::json::object speedup_json() const;
};

/// Builds the report. reference and initial may be null (not evaluated, or invalid); their
/// timings give the speedup columns where both sides have a median.
eval_report make_eval_report(const std::string& name,
                             const protocol::evaluation_result& result,
                             const protocol::evaluation_result* reference,
                             const protocol::evaluation_result* initial);

/// The table and summary lines, ready for stdout.
std::string render_eval_report(const eval_report& r);

}  // namespace warpsmith
