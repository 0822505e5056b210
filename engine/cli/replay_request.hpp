#pragma once

// The replay request: one candidate on one case, self-contained (the workload travels inline,
// sources included), that `warpsmith run REQUEST.json` re-executes by hand (SPEC §3 "Replay";
// format in docs/cli.md, "Replay requests"). `warpsmith eval` and the optimizer's run directory
// (engine/run/run_directory.hpp, replay_request_json) write the same format:
//
//   {"format": "warpsmith-replay-request", "version": 1, "tool_version": "0.1.0",
//    "name": "c0007", "case": "odd-small", "validate_only": true, "hidden_seed": 1234,
//    "timing": {"warmup": 10, "iterations": 100, "mode": "cold", "target_rel_noise": 0},
//    "candidate": {<candidate JSON with source>}, "workload": {<workload JSON, sources inline>}}

#include "engine/executors/gpu_executor.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace warpsmith
{

struct replay_request
{
    std::string name;  ///< The candidate's name ("c0007", "candidate").
    std::string case_name;
    bool validate_only = false;     ///< Correctness cases are validated, never timed.
    std::uint64_t hidden_seed = 0;  ///< Reproduces the hidden inputs the evaluation saw.
    timing_options timing;
    candidate cand;
    workload w;
    std::string tool_version;  ///< The warpsmith that wrote it ("" when absent).

    /// The JSON above (tool_version = this build's).
    boost::json::object to_json() const;
    /// Parses and checks it: the case exists, the candidate validates against the workload.
    /// Throws user_error naming origin and the field at fault.
    static replay_request from_json(const boost::json::value& v,
                                    std::string_view origin,
                                    const std::filesystem::path& dir);
};

/// timing_options from {"warmup", "iterations", "mode", "target_rel_noise"} (all optional);
/// user_error naming origin on a bad value.
timing_options timing_options_from_json(const boost::json::value& v, std::string_view origin);

}  // namespace warpsmith
