#pragma once

// The settings of one search (docs/engine.md): branches, budgets, grace period, confirmation,
// timing, repairs; written to run.json "config.search" and read back for --resume.

#include "engine/executors/gpu_executor.hpp"  // timing_options
#include "engine/profile/profiler.hpp"
#include "engine/search/budget.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith
{

/// optimize --use-nsight (docs/nsight.md): profiles of candidates under Nsight Compute.
struct nsight_options
{
    bool enabled = false;
    /// optimize: the best so far is profiled before each round's proposals (its summary goes into
    /// the round's feedback). tune turns this off.
    bool each_round = true;
    /// tune: the winner is profiled once after the confirmation, on the largest performance case
    /// (outside the budget; its summary is printed with the final table).
    bool profile_winner = false;
    /// Profiles per run; -1: two per iteration reached (iteration i allows 2 * (i + 1) in all).
    int budget = -1;
    profiler_options profiler;  ///< ncu, sections, --profile-timeout-ms.
    /// Replays: answer profile requests from this recorded run's profiles/ (never re-profile),
    /// so that a replayed model sees what the recorded one saw.
    std::optional<std::filesystem::path> recorded_profiles;

    boost::json::object to_json() const;
};

struct search_options
{
    int branches = 1;    ///< --branches B, or N of --async N.
    bool async = false;  ///< --async: no iteration barrier.
    budget_limits budgets;
    double grace_seconds = 30;  ///< In-flight work after a stop, then it is cancelled.
    int confirm_top = 3;        ///< 0: no confirmation.
    int confirm_rounds = 30;
    timing_options timing;
    int max_repairs = 2;            ///< Consecutive repairs of a branch's invalid candidates.
    int max_strategy_failures = 3;  ///< Consecutive strategy exceptions that stop a branch.
    std::uint64_t hidden_seed = 0;
    nsight_options nsight;

    boost::json::object to_json() const;
    /// Reads what to_json() wrote (run.json "config.search", for --resume); user_error naming
    /// origin on a malformed field. Missing fields keep their defaults.
    static search_options from_json(const boost::json::value& v, std::string_view origin);
};

}  // namespace warpsmith
