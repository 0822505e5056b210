#pragma once

// One profile: a single-shot warpsmith-worker run under Nsight Compute that validates the
// candidate on one case and profiles exactly its repeat validation launch on that case (the
// worker brackets that launch with cuProfilerStart/Stop; ncu runs with --profile-from-start off).
// The report is exported as CSV, parsed (ncu_report.hpp) and summarised (profile_summary.hpp).
//
// Every way it can fail is an outcome with one line, never an exception: the search goes on
// without the profile (docs/nsight.md, "When profiling cannot run").

#include "engine/executors/gpu_executor.hpp"
#include "engine/executors/worker_launch.hpp"
#include "engine/profile/profile_summary.hpp"
#include "harness/protocol/evaluation_result.hpp"
#include "harness/workload/workload.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct profiler_options
{
    std::optional<std::string> ncu;             ///< --ncu PATH; default: found (ncu_tool.hpp).
    std::vector<std::string> sections = {};     ///< Empty: default_ncu_sections().
    std::chrono::milliseconds timeout{180000};  ///< --profile-timeout-ms, the whole profile.
    std::chrono::milliseconds launch_timeout{default_launch_timeout_ms};  ///< Per launch, as for evaluations.
};

/// What to profile. The request is a compiled candidate (cubin) or one the worker compiles.
struct profile_job
{
    const workload* w = nullptr;
    std::uint64_t hidden_seed = 0;
    evaluate_request request;  ///< Its cases / validate_only / profile_case are set by run_profile.
    std::string case_name;     ///< Empty: largest_performance_case().
    worker_launch launch;
    int device = 0;
    std::filesystem::path output_base;      ///< Writes output_base.ncu-rep and output_base.json.
    std::optional<int> spill_stores_bytes;  ///< From the candidate's compile, for the summary.
    std::optional<int> spill_loads_bytes;
};

struct profile_outcome
{
    bool ok = false;
    /// When not ok: "ncu_missing", "not_permitted", "unparsable", "timeout", "invalid" (the
    /// candidate failed validation there), "unsupported" (--worker-cmd), "failed".
    std::string error_kind;
    std::string message;  ///< One line.
    std::string case_name;
    std::optional<profile_summary> summary;
    std::filesystem::path report_path;  ///< The .ncu-rep (also kept for a failed parse).
    std::filesystem::path json_path;    ///< The summary document (written when ok).
    std::string ncu_version;
    double wall_ms = 0;
    /// The worker's result for the profiled request; none when it gave none (it died, timed out).
    std::optional<protocol::evaluation_result> evaluation;

    /// {"ok", "error_kind", "message", "case", "report", "summary", "ncu_version", "wall_ms"}.
    boost::json::object to_json() const;
    /// The document to_json wrote (profiles/cNNNN-CASE.json): report_path holds the report's file
    /// name only. Throws std::invalid_argument naming the field on anything else ("profile:
    /// wall_ms: must be a number, got \"fast\""), and on an "ok" document without a summary.
    static profile_outcome from_json(const boost::json::object& o);
};

/// The performance case with the most buffer bytes (the first on a tie); correctness cases when
/// there is no performance case.
std::string largest_performance_case(const workload& w);

/// Runs one profile. Completes on `ex`. Never throws for what ncu, the worker or the candidate
/// do; when cancelled, throws only the cancellation (is_cancellation(e.code()): operation_aborted
/// or errc::cancelled).
boost::asio::awaitable<profile_outcome> run_profile(boost::asio::any_io_executor ex,
                                                    profiler_options opts,
                                                    profile_job job);

}  // namespace warpsmith
