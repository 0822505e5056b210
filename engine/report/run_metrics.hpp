#pragma once

// The figures strategies are compared by (SPEC §7; docs/bench-strategies.md, "Metrics"), taken
// from one run directory: best speedup over the reference, fraction of the roofline reached, time
// to best, candidates evaluated, valid fraction, tokens and cost.

#include "engine/report/run_view.hpp"

#include <optional>
#include <string>

namespace warpsmith::report
{

struct run_metrics
{
    std::string status;  ///< finished / interrupted / failed / incomplete.
    std::string stop_reason;
    std::string device;                  ///< GPU 0's name.
    std::optional<std::string> best_id;  ///< A candidate id or "initial".
    std::optional<double> best_score_us;
    /// Geometric-mean speedup of the winner over the reference: confirmation timings when the run
    /// confirmed, search timings otherwise.
    std::optional<double> best_speedup;
    /// Geometric mean over performance cases of floor / time (0..1); absent without a roofline.
    std::optional<double> roofline_fraction;
    /// Seconds from the run's start to the evaluation that produced the winner (0 when the initial
    /// kernel won), and that evaluation's 1-based index.
    std::optional<double> time_to_best_s;
    std::optional<int> time_to_best_evals;
    int proposed = 0;
    int evaluated = 0;
    int valid = 0;
    std::optional<double> valid_fraction;  ///< valid / evaluated.
    std::int64_t tokens_input = 0;
    std::int64_t tokens_output = 0;
    double cost_usd = 0;
    std::optional<double> wall_seconds;
    std::optional<double> gpu_busy_fraction;
};

run_metrics metrics_of(const run_view& v);

}  // namespace warpsmith::report
