// The strict reader (harness/json/json_reader.hpp): every problem is one json_error whose message
// names where the value sits, for nested objects and array elements alike, in the three styles.

#include "harness/json/json_reader.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>

using namespace warpsmith;
namespace json = boost::json;

namespace
{

// The message of the json_error f throws; any other exception escapes and fails the test.
std::string error_of(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const json_error& e)
    {
        return e.what();
    }
    return "<no exception thrown>";
}

json_location file(std::string path = {})
{
    return json_location("sgemm/workload.json", std::move(path));
}

const char* const workload_like = R"({
  "name": "sgemm",
  "seed": 7,
  "signature": {"entry": "k", "params": [{"name": "n", "kind": "scalar"}, {"name": "x", "kind": 3}]},
  "cases": [{"name": "a", "seed": 1}, {"name": "b", "seed": 2}, {"name": "c", "seed": -1}],
  "note": null
})";

}  // namespace

BOOST_AUTO_TEST_SUITE(json_reader_strict)

BOOST_AUTO_TEST_CASE(errors_carry_the_path_of_nested_objects_and_array_elements)
{
    const json::value v = json::parse(workload_like);
    const json_reader top(v, file());
    BOOST_TEST(top.require_string("name") == "sgemm");
    BOOST_TEST(top.require_uint64("seed") == 7u);

    const std::vector<json_reader> cases = top.optional_elements("cases");
    BOOST_REQUIRE_EQUAL(cases.size(), 3u);
    BOOST_TEST(cases[0].require_uint64("seed") == 1u);
    BOOST_TEST(cases[2].location().path() == "cases[2]");
    BOOST_TEST(error_of([&] { (void)cases[2].require_uint64("seed"); }) ==
               "sgemm/workload.json: cases[2].seed: must be a non-negative integer, got -1");

    const json_reader sig = top.nested("signature");
    const json::array& params = sig.require_array("params");
    const json_reader p1(params[1], sig.at("params").index(1));
    BOOST_TEST(error_of([&] { (void)p1.require_string("kind"); }) ==
               "sgemm/workload.json: signature.params[1].kind: must be a string, got 3");
    BOOST_TEST(error_of([&] { (void)p1.require_string("type"); }) ==
               "sgemm/workload.json: signature.params[1]: 'type' is missing");

    // The error keeps the location apart from the text, for callers that word it their own way.
    try
    {
        (void)p1.require_string("kind");
    }
    catch (const json_error& e)
    {
        BOOST_TEST(e.where().origin() == "sgemm/workload.json");
        BOOST_TEST(e.where().path() == "signature.params[1].kind");
    }
}

BOOST_AUTO_TEST_CASE(kinds_are_checked_and_the_refused_value_is_shown)
{
    const json::value v = json::parse(R"({"o": [1, 2], "a": {"k": 1}, "b": "yes", "n": "1e-3", "s": 1.5})");
    const json_reader r(v, file());
    BOOST_TEST(error_of([&] { (void)r.require_object("o"); }) ==
               "sgemm/workload.json: o: must be a JSON object, got [1,2]");
    BOOST_TEST(error_of([&] { (void)r.require_array("a"); }) ==
               "sgemm/workload.json: a: must be a JSON array, got {\"k\":1}");
    BOOST_TEST(error_of([&] { (void)r.optional_bool("b"); }) ==
               "sgemm/workload.json: b: must be true or false, got \"yes\"");
    BOOST_TEST(error_of([&] { (void)r.optional_number("n"); }) ==
               "sgemm/workload.json: n: must be a number, got \"1e-3\"");
    BOOST_TEST(error_of([&] { (void)r.optional_string("s"); }) ==
               "sgemm/workload.json: s: must be a string, got 1.5");
    BOOST_TEST(error_of([&] { (void)json_reader(json::value(3), file("launch")); }) ==
               "sgemm/workload.json: launch: must be a JSON object, got 3");
    BOOST_TEST(!r.optional_string("absent").has_value());
    BOOST_TEST(r.optional_strings("absent").empty());
}

BOOST_AUTO_TEST_CASE(integer_ranges_are_named_in_the_message)
{
    const json::value v = json::parse(
        R"({"neg": -1, "zero": 0, "big": 101, "half": 1.5, "whole": 2.0, "huge": 18446744073709551615})");
    const json_reader r(v, file());
    BOOST_TEST(r.require_int64("big", {1, 101}) == 101);
    BOOST_TEST(error_of(
                   [&] {
                       (void)r.require_int64("big", {1, 100});
                   }) == "sgemm/workload.json: big: must be an integer from 1 to 100, got 101");
    BOOST_TEST(error_of([&] { (void)r.require_int64("zero", {1}); }) ==
               "sgemm/workload.json: zero: must be a positive integer, got 0");
    BOOST_TEST(error_of([&] { (void)r.require_int64("neg", {0}); }) ==
               "sgemm/workload.json: neg: must be a non-negative integer, got -1");
    BOOST_TEST(error_of([&] { (void)r.require_int64("half"); }) ==
               "sgemm/workload.json: half: must be an integer, got 1.5");
    BOOST_TEST(error_of([&] { (void)r.require_int64("huge"); }) ==
               "sgemm/workload.json: huge: integer 18446744073709551615 is out of the int64 range");
    BOOST_TEST(r.require_uint64("huge") == 18446744073709551615u);
    // People write integers as integers; programs may write 2.0 (records and requests).
    BOOST_TEST(error_of([&] { (void)r.require_int64("whole"); }) ==
               "sgemm/workload.json: whole: must be an integer, got 2");
    const json_reader rec(v, json_location({}, {}, json_style::record));
    BOOST_TEST(rec.require_int64("whole") == 2);
    BOOST_TEST(rec.require_uint64("whole") == 2u);
    BOOST_TEST(error_of([&] { (void)rec.require_int64("half"); }) == "half: must be an integer, got 1.5");
}

BOOST_AUTO_TEST_CASE(unknown_keys_get_a_did_you_mean_hint)
{
    const json::value v = json::parse(R"({"name": "v", "sead": 1})");
    BOOST_TEST(error_of(
                   [&] {
                       (void)json_reader(v, file(), {"name", "seed", "cases"});
                   }) == "sgemm/workload.json: unknown key 'sead' (did you mean 'seed'?)");
    const json::value w = json::parse(R"({"name": "v", "colour": 1})");
    BOOST_TEST(error_of(
                   [&] {
                       (void)json_reader(w, file("cases[0]"), {"name", "seed"});
                   }) == "sgemm/workload.json: cases[0]: unknown key 'colour' (expected name, seed)");
    BOOST_TEST(error_of([&] { (void)json_reader(v, file()).nested("name", {"x"}); }) ==
               "sgemm/workload.json: name: must be a JSON object, got \"v\"");
    BOOST_TEST(closest_match("shared", {"grid", "block", "shared_bytes"}) == "shared_bytes");
    BOOST_TEST(closest_match("mean", {"gen", "lo", "hi"}).empty());
    // Allowed keys pass.
    BOOST_TEST(json_reader(v, file(), {"name", "sead"}).require_string("name") == "v");
}

BOOST_AUTO_TEST_CASE(null_is_a_value_in_documents_and_absent_in_records_and_requests)
{
    const json::value v = json::parse(R"({"note": null})");
    BOOST_TEST(error_of([&] { (void)json_reader(v, file()).optional_string("note"); }) ==
               "sgemm/workload.json: note: must be a string, got null");
    BOOST_TEST(!json_reader(v, json_location({}, {}, json_style::record)).optional_string("note"));
    BOOST_TEST(!json_reader(v, json_location("evaluate", {}, json_style::request)).optional_string("note"));
    BOOST_TEST(
        error_of([&] { (void)json_reader(v, json_location({}, {}, json_style::record)).require("note"); }) ==
        "'note' is missing");
}

BOOST_AUTO_TEST_CASE(records_name_the_root_and_read_nonfinite_numbers)
{
    const json::value v = json::parse(
        R"({"cases": [{"timing": {"median_us": "NaN", "max_us": "Inf", "min_us": "-Inf", "p10_us": "fast"}}]})");
    const json_reader r(v, json_location::unnamed("message", json_style::record));
    const json_reader timing = r.optional_elements("cases").at(0).nested("timing");
    BOOST_TEST(std::isnan(timing.require_number("median_us")));
    BOOST_TEST(timing.require_number("max_us") == INFINITY);
    BOOST_TEST(timing.require_number("min_us") == -INFINITY);
    BOOST_TEST(error_of([&] { (void)timing.optional_number("p10_us"); }) ==
               "cases[0].timing.p10_us: must be a number, got \"fast\"");
    BOOST_TEST(error_of(
                   [&] {
                       (void)json_reader(json::parse("[]"),
                                         json_location::unnamed("message", json_style::record));
                   }) == "message: must be a JSON object, got []");
    // Documents have no such numbers.
    BOOST_TEST(error_of(
                   [&] {
                       (void)json_reader(v.at("cases").at(0).at("timing"), file()).require_number("max_us");
                   }) == "sgemm/workload.json: max_us: must be a number, got \"Inf\"");
}

BOOST_AUTO_TEST_CASE(requests_quote_the_field_after_the_op)
{
    const json::value v =
        json::parse(R"({"timing": {"iterations": 0, "mode": 3}, "cases": ["a", 2], "seed": -4})");
    const json_reader r(v, json_location("evaluate", {}, json_style::request));
    BOOST_TEST(error_of([&] { (void)r.require_string("kind"); }) == "evaluate: 'kind' is missing");
    BOOST_TEST(error_of([&] { (void)r.require_object("cases"); }) == "evaluate: 'cases' must be an object");
    BOOST_TEST(error_of([&] { (void)r.optional_strings("cases"); }) ==
               "evaluate: 'cases' must be an array of strings");
    BOOST_TEST(error_of([&] { (void)r.optional_uint64("seed"); }) ==
               "evaluate: 'seed' must be a non-negative integer");
    const json_reader timing = r.nested("timing");
    BOOST_TEST(error_of(
                   [&] {
                       (void)timing.optional_int64("iterations", {1, 100000});
                   }) == "evaluate: 'timing.iterations' must be an integer from 1 to 100000");
    BOOST_TEST(error_of([&] { (void)timing.optional_string("mode"); }) ==
               "evaluate: 'timing.mode' must be a string");
    BOOST_TEST(error_of([&] { (void)timing.require("warmup"); }) == "evaluate: 'timing.warmup' is missing");
    // An origin that already names an element ("time_interleaved: 'entries[0]'") is kept as given.
    const json::object no_key;
    const json_reader entry(no_key, json_location("time_interleaved: 'entries[0]'", {}, json_style::request));
    BOOST_TEST(error_of([&] { (void)entry.require_string("key"); }) ==
               "time_interleaved: 'entries[0]': 'key' is missing");
    // Without an origin the field is named alone, as timing options are.
    const json_location bare({}, "timing", json_style::request);
    BOOST_TEST(error_of([&] { (void)json_reader(json::value(1), bare); }) == "'timing' must be an object");
    BOOST_TEST(error_of([&] { bare.key("mode").expected("\"cold\" or \"hot\"", json::value(3)); }) ==
               "'timing.mode' must be \"cold\" or \"hot\"");
}

BOOST_AUTO_TEST_CASE(fail_names_the_field_for_problems_beyond_the_kind)
{
    const json::value v = json::parse(R"({"dims": {"x": -2}})");
    const json_reader dims = json_reader(v, file()).nested("dims");
    BOOST_TEST(error_of([&] { dims.fail("x", "must be >= 0, got -2"); }) ==
               "sgemm/workload.json: dims.x: must be >= 0, got -2");
    BOOST_TEST(error_of([&] { json_location("", "").fail("bare problem"); }) == "bare problem");
}

BOOST_AUTO_TEST_SUITE_END()
