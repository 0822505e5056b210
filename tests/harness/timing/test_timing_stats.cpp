#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/timing/timing_stats.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>

using namespace warpsmith;

namespace
{

std::vector<double> iota_samples(int n, double start = 1)
{
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(start + i);
    return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(timing_summary)

BOOST_AUTO_TEST_CASE(odd_count_exact_values)
{
    // Unsorted on purpose: the summary must not depend on the order launches were measured in.
    timing_stats s = timing_stats::from_samples({5, 1, 4, 2, 3});
    BOOST_TEST(s.samples == 5);
    BOOST_TEST(s.median_us == 3.0);
    BOOST_TEST(s.mean_us == 3.0);
    BOOST_TEST(s.min_us == 1.0);
    BOOST_TEST(s.max_us == 5.0);
    // h = 4 * 0.1 = 0.4 -> 1 + 0.4 * (2 - 1); h = 3.6 -> 4 + 0.6 * (5 - 4).
    BOOST_TEST(s.p10_us == 1.4, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.p90_us == 4.6, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.stddev_us == std::sqrt(2.5), boost::test_tools::tolerance(1e-12));
    // p25 = 2, p75 = 4.
    BOOST_TEST(s.rel_iqr == 2.0 / 3.0, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(even_count_median_is_mean_of_middle_pair)
{
    timing_stats s = timing_stats::from_samples({10, 40, 20, 30});
    BOOST_TEST(s.median_us == 25.0);
    BOOST_TEST(s.mean_us == 25.0);
    // h = 3 * 0.1 = 0.3 -> 10 + 0.3 * 10; h = 2.7 -> 30 + 0.7 * 10.
    BOOST_TEST(s.p10_us == 13.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.p90_us == 37.0, boost::test_tools::tolerance(1e-12));
    // p25: h = 0.75 -> 17.5; p75: h = 2.25 -> 32.5.
    BOOST_TEST(s.rel_iqr == 15.0 / 25.0, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(percentiles_match_numpy_linear_on_a_long_series)
{
    std::vector<double> sorted = iota_samples(101, 0);  // 0..100
    BOOST_TEST(percentile_sorted(sorted, 0.0) == 0.0);
    BOOST_TEST(percentile_sorted(sorted, 1.0) == 100.0);
    BOOST_TEST(percentile_sorted(sorted, 0.37) == 37.0, boost::test_tools::tolerance(1e-12));
    // numpy.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 33) == 3.97
    BOOST_TEST(percentile_sorted(iota_samples(10), 0.33) == 3.97, boost::test_tools::tolerance(1e-12));
    BOOST_CHECK_THROW(percentile_sorted(sorted, 1.5), user_error);
    BOOST_CHECK_THROW(percentile_sorted({}, 0.5), user_error);
}

BOOST_AUTO_TEST_CASE(single_and_constant_samples)
{
    timing_stats one = timing_stats::from_samples({7.5});
    BOOST_TEST(one.median_us == 7.5);
    BOOST_TEST(one.p10_us == 7.5);
    BOOST_TEST(one.p90_us == 7.5);
    BOOST_TEST(one.stddev_us == 0.0);
    BOOST_TEST(one.rel_iqr == 0.0);

    timing_stats flat = timing_stats::from_samples(std::vector<double>(50, 12.0));
    BOOST_TEST(flat.median_us == 12.0);
    BOOST_TEST(flat.min_us == 12.0);
    BOOST_TEST(flat.max_us == 12.0);
    BOOST_TEST(flat.stddev_us == 0.0);
    BOOST_TEST(flat.rel_iqr == 0.0);

    // All zero: the median is zero, so the relative IQR is reported as 0 rather than NaN.
    BOOST_TEST(timing_stats::from_samples({0, 0, 0}).rel_iqr == 0.0);
}

BOOST_AUTO_TEST_CASE(bad_samples_are_refused)
{
    BOOST_CHECK_THROW(timing_stats::from_samples({}), user_error);
    BOOST_CHECK_THROW(timing_stats::from_samples({1, -2, 3}), user_error);
    BOOST_CHECK_THROW(timing_stats::from_samples({1, std::nan(""), 3}), user_error);
    BOOST_CHECK_THROW(timing_stats::from_samples({1, INFINITY}), user_error);
}

BOOST_AUTO_TEST_CASE(json_round_trip_and_protocol_object)
{
    timing_stats s = timing_stats::from_samples({5, 1, 4, 2, 3});
    auto j = s.to_json();
    const auto& o = j.as_object();
    for (auto key :
         {"median_us", "mean_us", "min_us", "max_us", "p10_us", "p90_us", "stddev_us", "rel_iqr", "samples"})
        BOOST_TEST(o.contains(key), key);
    BOOST_TEST(o.size() == 9u);
    BOOST_TEST(o.at("samples").as_int64() == 5);

    timing_stats back = timing_stats::from_json(parse_json(boost::json::serialize(j), "test"));
    BOOST_TEST(back.median_us == s.median_us);
    BOOST_TEST(back.p10_us == s.p10_us);
    BOOST_TEST(back.stddev_us == s.stddev_us);
    BOOST_TEST(back.rel_iqr == s.rel_iqr);
    BOOST_TEST(back.samples == 5);

    // The example "timing" object of docs/worker-protocol.md, with the worker's extra fields.
    auto full = parse_json(R"({"median_us": 812.3, "mean_us": 813.0, "min_us": 809.9, "max_us": 830.1,
        "p10_us": 810.4, "p90_us": 816.2, "stddev_us": 2.1, "rel_iqr": 0.004, "samples": 100, "warmup": 10,
        "mode": "cold", "wall_us_per_launch": 830.5, "suspect": false, "timed_output_valid": true})",
                           "protocol example");
    timing_stats p = timing_stats::from_json(full);
    BOOST_TEST(p.median_us == 812.3);
    BOOST_TEST(p.mean_us == 813.0);
    BOOST_TEST(p.samples == 100);

    auto missing = parse_json(R"({"median_us": 1})", "missing");
    try
    {
        timing_stats::from_json(missing);
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()) == "timing: 'mean_us' is missing");
    }
    BOOST_CHECK_THROW(timing_stats::from_json(parse_json("[1]", "array")), user_error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(median_confidence)

BOOST_AUTO_TEST_CASE(ranks_match_the_classical_tables)
{
    // Tables of order-statistic confidence intervals for the median (95%): n=20 -> (6, 15),
    // n=100 -> (40, 61), n=6 -> (1, 6).
    auto ci20 = median_confidence_interval(iota_samples(20));
    BOOST_TEST(ci20.lower_rank == 6);
    BOOST_TEST(ci20.upper_rank == 15);
    BOOST_TEST(ci20.lower == 6.0);
    BOOST_TEST(ci20.upper == 15.0);
    // 1 - 2 P(B <= 5), B ~ Bin(20, 1/2): 1 - 2 * 21700 / 2^20.
    BOOST_TEST(ci20.coverage == 1 - 2 * 21700.0 / 1048576.0, boost::test_tools::tolerance(1e-9));

    auto ci100 = median_confidence_interval(iota_samples(100));
    BOOST_TEST(ci100.lower_rank == 40);
    BOOST_TEST(ci100.upper_rank == 61);
    BOOST_TEST(ci100.coverage >= 0.95);

    auto ci6 = median_confidence_interval(iota_samples(6));
    BOOST_TEST(ci6.lower_rank == 1);
    BOOST_TEST(ci6.upper_rank == 6);
    BOOST_TEST(ci6.coverage == 1 - 2.0 / 64, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(too_few_samples_give_the_full_range_with_low_coverage)
{
    auto ci = median_confidence_interval({3, 1, 2, 5, 4});
    BOOST_TEST(ci.lower == 1.0);
    BOOST_TEST(ci.upper == 5.0);
    BOOST_TEST(ci.coverage < 0.95);
    BOOST_TEST(median_confidence_interval({4}).coverage == 0.0);
    BOOST_CHECK_THROW(median_confidence_interval({}), user_error);
    BOOST_CHECK_THROW(median_confidence_interval({1, 2}, 1.5), user_error);
}

BOOST_AUTO_TEST_CASE(large_counts_do_not_underflow)
{
    // 2^-n underflows a double past n = 1074; the log-space walk must still find the ranks, which
    // approach n/2 -+ 0.98 sqrt(n).
    auto ci = median_confidence_interval(iota_samples(5000));
    BOOST_TEST(ci.lower_rank > 2400);
    BOOST_TEST(ci.lower_rank < 2500);
    BOOST_TEST(ci.lower_rank + ci.upper_rank == 5001);
    BOOST_TEST(ci.coverage >= 0.95);
    BOOST_TEST(ci.coverage < 0.96);
}

BOOST_AUTO_TEST_CASE(noise_below_needs_twenty_samples)
{
    std::vector<double> flat(19, 100.0);
    BOOST_TEST(!noise_below(flat, 0.5));
    flat.push_back(100.0);
    BOOST_TEST(noise_below(flat, 0.01));
    BOOST_TEST(!noise_below(flat, 0.0));
    BOOST_TEST(!noise_below(std::vector<double>(30, 0.0), 0.5));
}

BOOST_AUTO_TEST_CASE(noise_below_takes_the_floor_it_is_given)
{
    // The worker decides on a segment's samples but its last launch (still running): 19 of 20.
    std::vector<double> flat(19, 100.0);
    BOOST_TEST(noise_below(flat, 0.01, 19));
    flat.pop_back();
    BOOST_TEST(!noise_below(flat, 0.01, 19));
    // At 19 samples the interval is ranks 5..15 (98% coverage: 95.9% needs rank 6 of 20), so the
    // same spread that is quiet at 20 samples may not be at 19.
    std::vector<double> s;
    for (int i = 0; i < 20; ++i)
        s.push_back(100.0 + i);  // ranks 6..15 of 20 hold 105..114: half-width 4.5 over 109.5
    BOOST_TEST(noise_below(s, 0.042));
    s.pop_back();  // 100..118: ranks 5..15 hold 104..114, half-width 5 over 109
    BOOST_TEST(!noise_below(s, 0.042, 19));
    BOOST_TEST(noise_below(s, 0.046, 19));
}

BOOST_AUTO_TEST_CASE(noise_below_compares_the_relative_half_width)
{
    // 20 samples 91..110: median 100.5, interval [x(6), x(15)] = [96, 105], half-width 4.5,
    // relative 4.5 / 100.5 = 0.0448.
    std::vector<double> s = iota_samples(20, 91);
    BOOST_TEST(noise_below(s, 0.045));
    BOOST_TEST(!noise_below(s, 0.044));
}

BOOST_AUTO_TEST_CASE(noise_shrinks_with_more_samples)
{
    std::mt19937 rng(42);
    std::normal_distribution<double> dist(100.0, 2.0);
    std::vector<double> samples;
    for (int i = 0; i < 30; ++i)
        samples.push_back(dist(rng));
    // Sigma 2% of the mean: with 30 samples the median's half-width is about 0.8%, with 3000
    // about 0.08%.
    BOOST_TEST(!noise_below(samples, 0.002));
    BOOST_TEST(noise_below(samples, 0.02));
    for (int i = 0; i < 2970; ++i)
        samples.push_back(dist(rng));
    BOOST_TEST(noise_below(samples, 0.002));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(scores_and_schedules)

BOOST_AUTO_TEST_CASE(geometric_mean_known_values)
{
    BOOST_TEST(geometric_mean({4.0}) == 4.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(geometric_mean({1.0, 100.0}) == 10.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(geometric_mean({2.0, 8.0, 4.0}) == 4.0, boost::test_tools::tolerance(1e-12));
    // Large values must not overflow an intermediate product.
    BOOST_TEST(geometric_mean({1e300, 1e300, 1e300}) == 1e300, boost::test_tools::tolerance(1e-9));
    // A single value (or equal values) comes back bit-exact: a one-case score is its median.
    BOOST_TEST(geometric_mean({16.704000532627106}) == 16.704000532627106);
    BOOST_TEST(geometric_mean({0.1, 0.1, 0.1}) == 0.1);
    BOOST_CHECK_THROW(geometric_mean({}), user_error);
    BOOST_CHECK_THROW(geometric_mean({1.0, 0.0}), user_error);
    BOOST_CHECK_THROW(geometric_mean({1.0, -3.0}), user_error);
    BOOST_CHECK_THROW(geometric_mean({1.0, std::nan("")}), user_error);
}

BOOST_AUTO_TEST_CASE(interleaved_order)
{
    std::vector<std::string> expected{"A", "B", "C", "A", "B", "C", "A", "B", "C"};
    BOOST_TEST(interleaved_schedule({"A", "B", "C"}, 3) == expected, boost::test_tools::per_element());
    BOOST_TEST(interleaved_schedule({"reference"}, 2) == (std::vector<std::string>{"reference", "reference"}),
               boost::test_tools::per_element());
    BOOST_TEST(interleaved_schedule({"A", "B"}, 0).empty());
    BOOST_TEST(interleaved_schedule({}, 5).empty());
    BOOST_CHECK_THROW(interleaved_schedule({"A", "B"}, -1), user_error);
    BOOST_CHECK_THROW(interleaved_schedule({"A", "B", "A"}, 2), user_error);
}

BOOST_AUTO_TEST_SUITE_END()
