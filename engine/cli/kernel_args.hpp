#pragma once

// The flags that name one kernel of a workload on the command line, shared by `eval` and
// `profile`: --kernel, --entry, --launch, -D, --option; and the candidate they make.

#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warpsmith
{

struct kernel_args
{
    std::string kernel;  ///< CUDA source file.
    std::string entry;
    std::string launch;  ///< Launch plan JSON file.
    std::vector<std::string> defines;
    std::vector<std::string> options;

    /// Registers the flags; --kernel is required and described by `kernel_help`.
    void add_to(CLI::App& cmd, const std::string& kernel_help);

    /// The candidate these flags describe for w. Throws user_error for an unreadable file, an
    /// unknown entry, a malformed launch plan or define, or a plan the workload cannot use.
    candidate make_candidate(const workload& w) const;
    /// The kernel file's stem, "candidate" when that would read as the reference or initial kernel.
    std::string candidate_name() const;
};

/// -D NAME=V values (V an integer, default 1); user_error otherwise.
std::map<std::string, std::int64_t> parse_defines(const std::vector<std::string>& defines);

/// --launch PLAN.json: a launch plan {"grid", "block", "shared_bytes"}, or {"launch": plan,
/// "overrides": {case: plan}, "defines": {...}}, applied to cand.
void apply_launch_file(candidate& cand, const std::string& path);

}  // namespace warpsmith
