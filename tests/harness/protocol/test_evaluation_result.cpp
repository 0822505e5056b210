// The evaluation result read and written by one type (harness/protocol/evaluation_result.hpp):
// what the worker writes reads back unchanged, records of older versions still read, and a
// malformed result is refused with the path of the field at fault.

#include "harness/protocol/evaluation_result.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

using namespace warpsmith;
using namespace warpsmith::protocol;
namespace json = boost::json;

namespace
{

// A result as the worker writes it today (docs/worker-protocol.md, "evaluate"), with a failing
// timed run whose first mismatches carry every kind of element reading.
const char* const full_result = R"({
  "status": "valid",
  "failure": null,
  "cases": [
    {"name": "odd-small", "role": "correctness",
     "launch": {"grid": [4, 3, 1], "block": [16, 16, 1], "shared_bytes": 0},
     "validation": {"passed": true,
                    "runs": [{"inputs": "stated", "passed": true, "elements": 2257, "mismatches": 0,
                              "unwritten": 0, "nonfinite": 0, "max_abs_error": 1.25e-7,
                              "max_rel_error": 3.5e-7, "first_mismatches": []},
                             {"inputs": "hidden", "passed": false, "elements": 2257, "mismatches": 2,
                              "unwritten": 1, "nonfinite": 1, "max_abs_error": "Inf",
                              "max_rel_error": "NaN",
                              "first_mismatches": [{"buffer": "C", "index": 17, "got": "hidden", "expected": "hidden"},
                                                   {"buffer": "C", "index": 18, "got": -3, "expected": 18446744073709551615},
                                                   {"buffer": "C", "index": 19, "got": 0.5, "expected": "unwritten"}]}],
                    "guards_intact": true, "inputs_intact": true, "repeat_agrees": null},
     "timing": null},
    {"name": "big", "role": "performance",
     "launch": {"grid": [128, 1, 1], "block": [256, 1, 1], "shared_bytes": 4096},
     "validation": {"passed": true, "runs": [], "guards_intact": true, "inputs_intact": true, "repeat_agrees": true},
     "timing": {"median_us": 812.5, "mean_us": 813.0, "min_us": 809.75, "max_us": 830.0, "p10_us": 810.5,
                "p90_us": 816.25, "stddev_us": 2.5, "rel_iqr": 0.004, "samples": 41, "warmup": 10, "mode": "cold",
                "wall_us_per_launch": 830.5, "wall_us_first": 2000.0, "checked_launches": 11, "stopped": "quiet",
                "target_rel_noise": 0.01, "rel_noise": 0.0031, "suspect": false, "timed_output_valid": true}}
  ],
  "score_us": 812.5,
  "environment": {"gpu": "NVIDIA H200", "arch": "sm_90", "driver_version": "13.0", "nvrtc_version": "13.0",
                  "worker_version": "0.1.0",
                  "clocks": {"sm_mhz_start": 1980, "sm_mhz_end": 1980, "mem_mhz_start": null, "mem_mhz_end": 3201}},
  "eval_ms": 412.0,
  "phases_ms": {"compile_ms": 0.5, "time_ms": 300.0},
  "profiled": {"case": "big", "run": "repeat", "launched": true},
  "eval_cache": {"hit": true, "run": "run-003", "candidate": "c0007", "time": "2026-12-05T10:00:00Z", "key": "ab"}
})";

std::string message_of(const json::value& v)
{
    try
    {
        (void)evaluation_result::from_json(v);
    }
    catch (const format_error& e)
    {
        return e.what();
    }
    return "accepted";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(evaluation_result_json)

BOOST_AUTO_TEST_CASE(a_worker_result_reads_back_unchanged)
{
    const json::value written = json::parse(full_result);
    const evaluation_result r = evaluation_result::from_json(written);
    BOOST_TEST(json::value(r.to_json()) == written);
    // (Compared as JSON: the hidden run's NaN error is unequal to itself as a double.)
    BOOST_TEST(json::value(evaluation_result::from_json(r.to_json()).to_json()) == written);
    evaluation_result finite = r;
    finite.cases[0].validation.runs[1].max_rel_error = 2.0;
    BOOST_TEST((evaluation_result::from_json(finite.to_json()) == finite));
}

BOOST_AUTO_TEST_CASE(typed_fields_say_what_the_json_says)
{
    const evaluation_result r = evaluation_result::from_json(json::parse(full_result));
    BOOST_TEST(r.valid());
    BOOST_TEST(r.failure_kind().empty());
    BOOST_REQUIRE(r.cases.size() == 2u);
    BOOST_TEST(!r.cases[0].is_performance());
    BOOST_TEST(r.cases[0].launch->block[1] == 16);
    const validation_run& hidden = r.cases[0].validation.runs.at(1);
    BOOST_TEST(std::isinf(hidden.max_abs_error));
    BOOST_TEST(std::isnan(hidden.max_rel_error));
    BOOST_TEST((hidden.first_mismatches[1].got == element_reading(std::int64_t{-3})));
    BOOST_TEST(
        (hidden.first_mismatches[1].expected == element_reading(std::uint64_t{18446744073709551615ull})));
    BOOST_TEST((hidden.first_mismatches[2].expected == element_reading(std::string("unwritten"))));
    BOOST_TEST(!r.cases[0].validation.repeat_agrees.has_value());
    const timing_report& t = *r.cases[1].timing;
    BOOST_TEST(t.stats->samples == 41);
    BOOST_TEST((t.stopped == timing_stop::quiet));
    BOOST_TEST(*t.wall_us_first == 2000.0);
    BOOST_TEST(r.performance_medians().size() == 1u);
    BOOST_TEST(r.performance_medians().at("big") == 812.5);
    BOOST_TEST(!r.environment->clocks->mem_mhz_start.has_value());
    BOOST_TEST(*r.environment->clocks->mem_mhz_end == 3201);
    BOOST_TEST(r.profiled->case_name == "big");
    BOOST_TEST(r.eval_cache->candidate == "c0007");
    BOOST_TEST(r.find_case("big") == &r.cases[1]);
    BOOST_TEST(r.find_case("nope") == nullptr);
}

// Records in run directories written before the protocol was typed: a compile failure without
// eval_ms or environment, a crash with a null environment, and a timing from before adaptive
// timing (no stopped, rel_noise, checked_launches).
BOOST_AUTO_TEST_CASE(records_of_older_versions_still_read)
{
    const json::value compile_failure = json::parse(
        R"({"status": "invalid", "failure": {"kind": "compile_error", "case": null, "message": "error: x"},
            "cases": [], "score_us": null})");
    const evaluation_result c = evaluation_result::from_json(compile_failure);
    BOOST_TEST(!c.valid());
    BOOST_TEST(c.failure_kind() == "compile_error");
    BOOST_TEST(c.failure->text() == "error: x");
    BOOST_TEST(!c.eval_ms.has_value());
    BOOST_TEST(!c.environment.has_value());

    const json::value crash = json::parse(
        R"({"status": "invalid", "failure": {"kind": "worker_crash", "case": "big", "message": "died"},
            "cases": [], "score_us": null, "environment": null, "eval_ms": 12.5})");
    const evaluation_result w = evaluation_result::from_json(crash);
    BOOST_TEST(w.failure->text() == "case big: died");
    BOOST_TEST(*w.eval_ms == 12.5);

    const json::value before_adaptive = json::parse(
        R"({"status": "valid", "failure": null, "score_us": 50,
            "cases": [{"name": "big", "role": "performance", "launch": null,
                       "validation": {"passed": true},
                       "timing": {"median_us": 50, "mean_us": 51, "min_us": 49, "max_us": 60, "p10_us": 49.5,
                                  "p90_us": 52, "stddev_us": 1, "rel_iqr": 0.01, "samples": 100, "warmup": 10,
                                  "mode": "hot", "wall_us_per_launch": null, "suspect": false,
                                  "timed_output_valid": true}}]})");
    const evaluation_result a = evaluation_result::from_json(before_adaptive);
    BOOST_TEST(!a.cases[0].timing->stopped.has_value());
    BOOST_TEST((a.cases[0].timing->mode == timing_mode::hot));
    BOOST_TEST(!a.cases[0].timing->wall_us_per_launch.has_value());
    BOOST_TEST(a.performance_medians().at("big") == 50);
    // Written again, it stays without a stop reason rather than inventing one.
    BOOST_TEST(!json::value(a.to_json()).at("cases").at(0).at("timing").as_object().contains("stopped"));
}

BOOST_AUTO_TEST_CASE(a_malformed_result_names_the_field)
{
    BOOST_TEST(message_of(json::parse("[]")) == "message: must be a JSON object, got []");
    BOOST_TEST(message_of(json::parse(R"({"status": "fine"})")) ==
               "status: must be \"valid\" or \"invalid\", got \"fine\"");
    BOOST_TEST(
        message_of(json::parse(R"({"status": "valid", "cases": [{}, {"timing": {"median_us": "fast"}}]})")) ==
        "cases[1].timing.median_us: must be a number, got \"fast\"");
    BOOST_TEST(message_of(json::parse(
                   R"({"status": "valid", "cases": [{"validation": {"runs": [{"elements": -1}]}}]})")) ==
               "cases[0].validation.runs[0].elements: must be a non-negative integer, got -1");
    BOOST_TEST(message_of(json::parse(R"({"status": "valid", "cases": {}})")) ==
               "cases: must be a JSON array, got {}");
    BOOST_TEST(
        message_of(json::parse(R"({"status": "valid", "cases": [{"timing": {"stopped": "bored"}}]})")) ==
        "cases[0].timing.stopped: must be fixed, quiet, ceiling or dominated, got \"bored\"");
    // A launch dimension that is no integer is a format error too, named down to the element.
    BOOST_TEST(message_of(json::parse(R"({"status": "valid", "cases": [{"launch": {"grid": [1, 2.5]}}]})")) ==
               "cases[0].launch.grid[1]: must be an integer, got 2.5");
}

BOOST_AUTO_TEST_CASE(medians_skip_cases_that_cannot_score)
{
    evaluation_result r;
    r.status = evaluation_status::valid;
    auto timed = [](std::string name, std::string role, double median, int samples)
    {
        case_result c;
        c.name = std::move(name);
        c.role = std::move(role);
        timing_report t;
        timing_stats s;
        s.median_us = median;
        s.samples = samples;
        t.stats = s;
        c.timing = t;
        return c;
    };
    r.cases.push_back(timed("a", "performance", 100, 20));
    r.cases.push_back(timed("check", "correctness", 5, 20));
    r.cases.push_back(timed("zero", "performance", 0, 20));
    r.cases.push_back(timed("nan", "performance", std::nan(""), 20));
    case_result untimed;
    untimed.name = "untimed";
    r.cases.push_back(untimed);
    const auto m = r.performance_medians();
    BOOST_TEST(m.size() == 1u);
    BOOST_TEST(m.at("a") == 100);
}

BOOST_AUTO_TEST_CASE(an_invalid_result_for_what_was_never_measured)
{
    const evaluation_result r = evaluation_result::invalid("worker_error", "bad_request: x", 3.5);
    const json::value j = r.to_json();
    BOOST_TEST(j.at("status").as_string() == "invalid");
    BOOST_TEST(j.at("failure").at("kind").as_string() == "worker_error");
    BOOST_TEST(j.at("failure").at("case").is_null());
    BOOST_TEST(j.at("cases").as_array().empty());
    BOOST_TEST(j.at("score_us").is_null());
    BOOST_TEST(j.at("environment").is_null());
    BOOST_TEST(j.at("eval_ms").as_double() == 3.5);
    BOOST_TEST(!j.as_object().contains("phases_ms"));
}

BOOST_AUTO_TEST_SUITE_END()
