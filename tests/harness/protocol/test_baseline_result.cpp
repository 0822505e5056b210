// The baseline op's answer read and written by one type (harness/protocol/baseline_result.hpp):
// what the worker wrote before the type existed reads back unchanged, the shorter answers of the
// test workers and of older journals still read, and a malformed answer is refused with the path
// of the field at fault.

#include "harness/protocol/baseline_result.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

using namespace warpsmith;
using namespace warpsmith::protocol;
namespace json = boost::json;

namespace
{

// The "baseline" object exactly as harness/worker/baseline.cpp wrote it field by field before
// baseline_result: a correctness case (validated, not timed) and a performance case that missed
// the tolerance in its timed run.
const char* const worker_baseline = R"({
  "name": "cublas", "kind": "cublas_sgemm", "math": "tf32",
  "library": {"name": "libcublas.so.12", "version": "12.4.5"},
  "cases": [
    {"name": "odd-small", "role": "correctness", "gemm": {"m": 33, "n": 17, "k": 9},
     "validation": {"inputs": "stated", "passed": true, "elements": 561, "mismatches": 0, "unwritten": 0,
                    "nonfinite": 0, "max_abs_error": 1.25e-7, "max_rel_error": 3.5e-7, "first_mismatches": [],
                    "message": null},
     "timing": null, "timing_failure": null},
    {"name": "big", "role": "performance", "gemm": {"m": 4096, "n": 4096, "k": 4096},
     "validation": {"inputs": "stated", "passed": false, "elements": 16777216, "mismatches": 3, "unwritten": 0,
                    "nonfinite": 0, "max_abs_error": 0.015625, "max_rel_error": 0.0025,
                    "first_mismatches": [{"buffer": "C", "index": 17, "got": 1.5, "expected": 1.25}],
                    "message": "3 of 16777216 elements of C differ beyond the tolerance"},
     "timing": {"median_us": 812.5, "mean_us": 813.0, "min_us": 809.75, "max_us": 830.0, "p10_us": 810.5,
                "p90_us": 816.25, "stddev_us": 2.5, "rel_iqr": 0.004, "samples": 41, "warmup": 10, "mode": "cold",
                "wall_us_per_launch": 830.5, "checked_launches": 11, "stopped": "quiet",
                "target_rel_noise": 0.01, "rel_noise": 0.0031, "suspect": false, "timed_output_valid": false},
     "timing_failure": {"kind": "timed_output_mismatch", "case": "big", "message": "launch 7 differs"}}
  ],
  "case_median_us": {"big": 812.5},
  "score_us": 812.5,
  "within_tolerance": false,
  "max_abs_error": 0.015625,
  "max_rel_error": 0.0025,
  "environment": {"gpu": "NVIDIA H100", "arch": "sm_90", "driver_version": "13.0", "nvrtc_version": "13.0",
                  "worker_version": "0.1.0",
                  "clocks": {"sm_mhz_start": 1980, "sm_mhz_end": 1755, "mem_mhz_start": 2619, "mem_mhz_end": 2619}},
  "phases_ms": {"validate_ms": 10.25, "time_ms": 800.5},
  "eval_ms": 1234.5
})";

std::string message_of(const json::value& v)
{
    try
    {
        (void)baseline_result::from_json(v);
    }
    catch (const format_error& e)
    {
        return e.what();
    }
    return "accepted";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(baseline_result_json)

BOOST_AUTO_TEST_CASE(the_answer_the_worker_used_to_write_reads_back_unchanged)
{
    const json::value written = json::parse(worker_baseline);
    const baseline_result b = baseline_result::from_json(written);
    BOOST_TEST(json::value(b.to_json()) == written);
    BOOST_TEST((baseline_result::from_json(b.to_json()) == b));
}

BOOST_AUTO_TEST_CASE(typed_fields_say_what_the_json_says)
{
    const baseline_result b = baseline_result::from_json(json::parse(worker_baseline));
    BOOST_TEST(b.name == "cublas");
    BOOST_TEST(b.math == "tf32");
    BOOST_TEST(b.library->version == "12.4.5");
    BOOST_REQUIRE(b.cases.size() == 2u);
    BOOST_TEST(!b.cases[0].is_performance());
    BOOST_TEST(!b.cases[0].timing.has_value());
    BOOST_TEST(!b.cases[0].validation_message.has_value());
    BOOST_TEST(b.cases[0].gemm->m == 33);
    BOOST_TEST(!b.cases[1].validation.passed);
    BOOST_TEST(b.cases[1].validation.first_mismatches.at(0).index == 17u);
    BOOST_TEST(*b.cases[1].validation_message == "3 of 16777216 elements of C differ beyond the tolerance");
    BOOST_TEST(*b.cases[1].timing->median_us() == 812.5);
    BOOST_TEST(b.cases[1].timing_failure->kind == "timed_output_mismatch");
    BOOST_TEST(b.case_median_us.at("big") == 812.5);
    BOOST_TEST(*b.score_us == 812.5);
    BOOST_TEST(!b.within_tolerance);
    BOOST_TEST(b.max_abs_error == 0.015625);
    BOOST_TEST(*b.environment->clocks->sm_mhz_end == 1755);
    BOOST_TEST(b.phases_ms.at("time_ms") == 800.5);
    BOOST_TEST(*b.eval_ms == 1234.5);
}

// The test workers (tests/engine/executors/fake_worker.cpp) and journals of older runs write less:
// no gemm, a validation without counts, no phases, no clocks, a baseline with no timed case.
BOOST_AUTO_TEST_CASE(shorter_answers_still_read)
{
    const json::value fake = json::parse(
        R"({"name": "cublas", "kind": "cublas_sgemm", "math": "fp32",
            "library": {"name": "fake-cublas", "version": "0"},
            "cases": [{"name": "check", "role": "correctness",
                       "validation": {"inputs": "stated", "passed": true, "max_abs_error": 1e-6, "max_rel_error": 1e-6},
                       "timing": null, "timing_failure": null}],
            "case_median_us": {}, "score_us": null, "within_tolerance": true,
            "max_abs_error": 1e-6, "max_rel_error": 1e-6,
            "environment": {"gpu": "Fake GPU", "arch": "sm_90"}, "eval_ms": 5.0})");
    const baseline_result b = baseline_result::from_json(fake);
    BOOST_TEST(!b.score_us.has_value());
    BOOST_TEST(b.case_median_us.empty());
    BOOST_TEST(b.within_tolerance);
    BOOST_TEST(!b.cases.at(0).gemm.has_value());
    BOOST_TEST(b.cases.at(0).validation.passed);
    BOOST_TEST(b.cases.at(0).validation.elements == 0u);
    BOOST_TEST(!b.environment->clocks.has_value());
    BOOST_TEST(b.phases_ms.empty());

    const baseline_result bare = baseline_result::from_json(
        json::parse(R"({"name": "cublas", "kind": "cublas_sgemm", "math": "fp32"})"));
    BOOST_TEST(bare.cases.empty());
    BOOST_TEST(!bare.library.has_value());
    BOOST_TEST(!bare.environment.has_value());
}

BOOST_AUTO_TEST_CASE(a_malformed_answer_names_the_field)
{
    BOOST_TEST(message_of(json::parse("[]")) == "baseline: must be a JSON object, got []");
    BOOST_TEST(message_of(json::parse(R"({"name": "cublas", "kind": "cublas_sgemm"})")) ==
               "baseline: 'math' is missing");
    const std::string head = R"({"name": "cublas", "kind": "cublas_sgemm", "math": "fp32", )";
    BOOST_TEST(message_of(json::parse(
                   head + R"("cases": [{"name": "a"}, {"name": "b", "timing": {"median_us": "fast"}}]})")) ==
               "baseline.cases[1].timing.median_us: must be a number, got \"fast\"");
    BOOST_TEST(message_of(json::parse(head + R"("cases": [{"role": "performance"}]})")) ==
               "baseline.cases[0]: 'name' is missing");
    BOOST_TEST(message_of(json::parse(head + R"("case_median_us": {"big": "812"}})")) ==
               "baseline.case_median_us.big: must be a number, got \"812\"");
    BOOST_TEST(
        message_of(json::parse(head + R"("cases": [{"name": "a", "gemm": {"m": -1, "n": 1, "k": 1}}]})")) ==
        "baseline.cases[0].gemm.m: must be a non-negative integer, got -1");
    BOOST_TEST(message_of(json::parse(head + R"("within_tolerance": "yes"})")) ==
               "baseline.within_tolerance: must be true or false, got \"yes\"");
}

BOOST_AUTO_TEST_SUITE_END()
