#pragma once

// The final table of `warpsmith tune` (docs/autotune.md): the tune's outcome (strategy, seed,
// evaluations, pruned points), the search space, the evaluation cache, the best point, the per-case
// block (baseline_report.hpp) and, with --use-nsight, the winner's profile.

#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace warpsmith::report
{

/// The table for summary `s` and the tune's report `tune` (tune.json) of the run in `run_path`;
/// `best_point` is the winner's point, when it has one.
std::string tune_table(const boost::json::object& s,
                       const boost::json::object& tune,
                       const std::filesystem::path& run_path,
                       const workload& w,
                       const std::optional<boost::json::object>& best_point);

}  // namespace warpsmith::report
