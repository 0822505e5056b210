#pragma once

// Statistics over per-launch times (SPEC §3 "Time"): the summary reported per case, the noise test
// behind adaptive stopping, the geometric mean used for scores, and the interleaved order of the
// final confirmation. Pure CPU code; the worker measures, this summarizes.
//
// Definitions (docs/worker-protocol.md, "timing"):
//  * Percentiles interpolate linearly between order statistics (Hyndman & Fan type 7, NumPy's
//    default): for sorted x[0..n-1] and q in [0,1], h = (n-1)q and
//    p(q) = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). The median is p(0.5), which is
//    the middle sample for odd n and the mean of the two middle samples for even n.
//  * stddev_us is the sample standard deviation (divisor n-1; 0 for one sample).
//  * rel_iqr = (p(0.75) - p(0.25)) / median (0 when the median is 0).

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace warpsmith
{

struct timing_stats
{
    double median_us = 0;
    double mean_us = 0;
    double min_us = 0;
    double max_us = 0;
    double p10_us = 0;
    double p90_us = 0;
    double stddev_us = 0;
    double rel_iqr = 0;
    int samples = 0;

    friend bool operator==(const timing_stats&, const timing_stats&) = default;

    /// Throws user_error when samples is empty or holds a negative or non-finite time.
    static timing_stats from_samples(const std::vector<double>& samples_us);

    /// The protocol's "timing" fields that these statistics own: median_us, mean_us, min_us, max_us,
    /// p10_us, p90_us, stddev_us, rel_iqr, samples. The worker adds warmup, mode,
    /// wall_us_per_launch, suspect and timed_output_valid to the same object.
    boost::json::value to_json() const;
    /// Reads those fields and ignores the others, so a full protocol "timing" object parses.
    /// Throws user_error naming a missing or non-numeric field.
    static timing_stats from_json(const boost::json::value& v);
};

/// The q-quantile (q in [0,1]) of already sorted samples, by linear interpolation (see above).
/// Throws user_error when sorted is empty or q is outside [0,1].
double percentile_sorted(const std::vector<double>& sorted, double q);

/// A distribution-free confidence interval for the median: with B ~ Binomial(n, 1/2), the
/// interval [x(k), x(n-k+1)] between order statistics (1-based) covers the true median with
/// probability 1 - 2 P(B <= k-1). k is the largest rank whose coverage is at least the requested
/// confidence; for n = 20 that is [x(6), x(15)], for n = 100 [x(40), x(61)]. With too few samples
/// for any such k (n <= 5 at 95%) the interval is [min, max] and coverage says how little it is.
struct median_interval
{
    double lower = 0;
    double upper = 0;
    int lower_rank = 0;   ///< 1-based rank of lower in the sorted samples.
    int upper_rank = 0;   ///< 1-based rank of upper.
    double coverage = 0;  ///< Exact coverage probability of the interval.
};

/// Throws user_error on empty samples or a confidence outside (0, 1).
median_interval median_confidence_interval(const std::vector<double>& samples, double confidence = 0.95);

/// Adaptive stopping: true when at least min_samples samples are in and the 95% interval's
/// half-width, (upper - lower) / 2, relative to the median, is below target_rel. Never true for
/// target_rel <= 0 or a median <= 0.
bool noise_below(const std::vector<double>& samples, double target_rel, std::size_t min_samples = 20);

/// exp(mean(log x)). Throws user_error on an empty list or a value that is not finite and > 0.
double geometric_mean(const std::vector<double>& values);

/// The confirmation order (SPEC §3): every key once per round, in the given order, for rounds
/// rounds: {A, B, C} x 2 -> A B C A B C. Interleaving spreads clock and thermal drift evenly over
/// all entries. Throws user_error on negative rounds or duplicate keys.
std::vector<std::string> interleaved_schedule(const std::vector<std::string>& keys, int rounds);

}  // namespace warpsmith
