#include "harness/timing/timing_stats.hpp"

#include "harness/core/error.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

std::vector<double> sorted_checked(const std::vector<double>& samples)
{
    if (samples.empty())
        throw user_error("timing: no samples");
    for (std::size_t i = 0; i < samples.size(); ++i)
    {
        if (!std::isfinite(samples[i]) || samples[i] < 0)
        {
            throw user_error("timing: sample " + std::to_string(i) + " (" + std::to_string(samples[i]) +
                             ") is not a finite, non-negative time");
        }
    }
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

double number_field(const json::object& o, std::string_view key)
{
    const json::value* v = o.if_contains(key);
    if (!v)
        throw user_error("timing: '" + std::string(key) + "' is missing");
    if (!v->is_number())
        throw user_error("timing: '" + std::string(key) + "' must be a number");
    return v->to_number<double>();
}

}  // namespace

double percentile_sorted(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
        throw user_error("timing: percentile of no samples");
    if (!(q >= 0 && q <= 1))
        throw user_error("timing: percentile " + std::to_string(q) + " is outside [0, 1]");
    double h = static_cast<double>(sorted.size() - 1) * q;
    auto lo = static_cast<std::size_t>(std::floor(h));
    if (lo + 1 >= sorted.size())
        return sorted.back();
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

timing_stats timing_stats::from_samples(const std::vector<double>& samples_us)
{
    std::vector<double> sorted = sorted_checked(samples_us);
    const auto n = static_cast<double>(sorted.size());
    timing_stats s;
    s.samples = static_cast<int>(sorted.size());
    s.min_us = sorted.front();
    s.max_us = sorted.back();
    s.median_us = percentile_sorted(sorted, 0.5);
    s.p10_us = percentile_sorted(sorted, 0.1);
    s.p90_us = percentile_sorted(sorted, 0.9);
    double sum = 0;
    for (double x : sorted)
        sum += x;
    s.mean_us = sum / n;
    if (sorted.size() > 1)
    {
        double squares = 0;
        for (double x : sorted)
            squares += (x - s.mean_us) * (x - s.mean_us);
        s.stddev_us = std::sqrt(squares / (n - 1));
    }
    double iqr = percentile_sorted(sorted, 0.75) - percentile_sorted(sorted, 0.25);
    s.rel_iqr = s.median_us > 0 ? iqr / s.median_us : 0;
    return s;
}

json::value timing_stats::to_json() const
{
    return json::object{
        {"median_us", median_us},
        {"mean_us", mean_us},
        {"min_us", min_us},
        {"max_us", max_us},
        {"p10_us", p10_us},
        {"p90_us", p90_us},
        {"stddev_us", stddev_us},
        {"rel_iqr", rel_iqr},
        {"samples", samples},
    };
}

timing_stats timing_stats::from_json(const json::value& v)
{
    if (!v.is_object())
        throw user_error("timing: expected a JSON object");
    const auto& o = v.get_object();
    timing_stats s;
    s.median_us = number_field(o, "median_us");
    s.mean_us = number_field(o, "mean_us");
    s.min_us = number_field(o, "min_us");
    s.max_us = number_field(o, "max_us");
    s.p10_us = number_field(o, "p10_us");
    s.p90_us = number_field(o, "p90_us");
    s.stddev_us = number_field(o, "stddev_us");
    s.rel_iqr = number_field(o, "rel_iqr");
    const json::value* n = o.if_contains("samples");
    if (!n || !(n->is_int64() || n->is_uint64()) || n->to_number<std::int64_t>() < 0 ||
        n->to_number<std::int64_t>() > std::numeric_limits<int>::max())
        throw user_error("timing: 'samples' must be a non-negative integer");
    s.samples = static_cast<int>(n->to_number<std::int64_t>());
    return s;
}

median_interval median_confidence_interval(const std::vector<double>& samples, double confidence)
{
    if (!(confidence > 0 && confidence < 1))
        throw user_error("timing: confidence " + std::to_string(confidence) + " is outside (0, 1)");
    std::vector<double> sorted = sorted_checked(samples);
    const std::size_t n = sorted.size();

    // Walk the lower tail of Binomial(n, 1/2) in log space (2^-n underflows past n = 1074):
    // tail = P(B <= k-1), and the interval of rank k covers with probability 1 - 2 tail.
    const double log_half_n = -static_cast<double>(n) * std::log(2.0);
    double log_pmf = log_half_n;  // log P(B = 0)
    double tail = 0;
    std::size_t best_k = 0;
    double best_coverage = 0;
    for (std::size_t k = 1; 2 * k <= n + 1; ++k)
    {
        tail += std::exp(log_pmf);  // now P(B <= k-1)
        double coverage = 1 - 2 * tail;
        if (coverage < confidence)
            break;
        best_k = k;
        best_coverage = coverage;
        // log P(B = k) from log P(B = k-1).
        log_pmf += std::log(static_cast<double>(n - (k - 1))) - std::log(static_cast<double>(k));
    }
    median_interval ci;
    if (best_k == 0)
    {
        ci.lower_rank = 1;
        ci.upper_rank = static_cast<int>(n);
        ci.coverage = n > 1 ? 1 - 2 * std::exp(log_half_n) : 0;
    }
    else
    {
        ci.lower_rank = static_cast<int>(best_k);
        ci.upper_rank = static_cast<int>(n - best_k + 1);
        ci.coverage = best_coverage;
    }
    ci.lower = sorted[static_cast<std::size_t>(ci.lower_rank - 1)];
    ci.upper = sorted[static_cast<std::size_t>(ci.upper_rank - 1)];
    return ci;
}

bool noise_below(const std::vector<double>& samples, double target_rel, std::size_t min_samples)
{
    if (samples.size() < min_samples || !(target_rel > 0))
        return false;
    median_interval ci = median_confidence_interval(samples, 0.95);
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    double median = percentile_sorted(sorted, 0.5);
    if (!(median > 0))
        return false;
    return (ci.upper - ci.lower) / 2 / median < target_rel;
}

double geometric_mean(const std::vector<double>& values)
{
    if (values.empty())
        throw user_error("geometric mean of no values");
    double log_sum = 0;
    for (double v : values)
    {
        if (!std::isfinite(v) || v <= 0)
            throw user_error("geometric mean: " + std::to_string(v) + " is not a finite positive value");
        log_sum += std::log(v);
    }
    // exp(log(x)) is not always x: a single case's score (or equal medians) is the median itself.
    if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); }))
        return values.front();
    return std::exp(log_sum / static_cast<double>(values.size()));
}

std::vector<std::string> interleaved_schedule(const std::vector<std::string>& keys, int rounds)
{
    if (rounds < 0)
        throw user_error("interleaved schedule: rounds must be >= 0, got " + std::to_string(rounds));
    std::set<std::string> seen;
    for (const auto& k : keys)
    {
        if (!seen.insert(k).second)
            throw user_error("interleaved schedule: key '" + k + "' appears twice");
    }
    std::vector<std::string> order;
    order.reserve(keys.size() * static_cast<std::size_t>(rounds));
    for (int r = 0; r < rounds; ++r)
        order.insert(order.end(), keys.begin(), keys.end());
    return order;
}

}  // namespace warpsmith
