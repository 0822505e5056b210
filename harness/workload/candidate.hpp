#pragma once

// A candidate kernel (SPEC §2): device code with an extern "C" entry, -D defines, compile options
// from the allow-list, a launch plan and optional per-case launch overrides. Candidate JSON is
// documented in docs/workload-format.md ("Candidates").

#include "harness/workload/launch_plan.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warpsmith
{

struct candidate
{
    std::string source;
    std::string entry;
    std::map<std::string, std::int64_t> defines;  ///< -DNAME=V; also visible to launch expressions.
    std::vector<std::string> options;             ///< Allow-listed NVRTC options (compile_options.hpp).
    launch_plan launch;
    std::map<std::string, launch_plan> overrides;  ///< Case name -> launch plan.

    /// The plan for a case: its override if any, else launch.
    const launch_plan& plan_for(std::string_view case_name) const;

    /// Variables visible to launch expressions for a case: the case values plus the defines.
    /// A define may not share a name with a case value (validate() reports it); should one do so
    /// anyway, the define wins here.
    variables launch_variables(const workload_case& c) const;

    /// Checks the candidate against a workload: every override names a case, no define shares a
    /// name with a signature parameter or a case value, every launch plan evaluates for every case
    /// (positive grid and block). Returns an empty string when fine, else the first problem.
    std::string validate(const workload& w) const;

    /// {"source": "...", "entry": "...", "defines": {...}, "options": [...], "launch": {...},
    ///  "overrides": {"case": {...}}}. from_json throws user_error naming origin and field.
    /// "entry" and "launch" are required; "source" may be absent (a worker gets a cubin instead)
    /// and other keys are ignored, since other layers add their own (cubin_b64, rationale).
    static candidate from_json(const boost::json::value& v, std::string_view origin);
    boost::json::value to_json() const;

    /// The workload's reference / initial / tunable kernel as a candidate.
    static candidate from_kernel(const kernel_source& k);
};

}  // namespace warpsmith
