// Tolerances (docs/workload-format.md, "Tolerances"): the per-dtype default table and the copy of it
// in the documentation, which tolerance each output gets (its own, the workload's for floats, the
// default), the errors of a misplaced tolerance, the self-contained form, and the failure wording.

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/tolerance.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/workload/workload_test_util.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <array>
#include <string>

using namespace warpsmith;
namespace json = boost::json;

namespace
{

constexpr std::array<dtype, 4> k_floats{dtype::float16, dtype::bfloat16, dtype::float32, dtype::float64};
constexpr std::array<dtype, 7> k_integers{
    dtype::int8, dtype::uint8, dtype::int16, dtype::int32, dtype::uint32, dtype::int64, dtype::uint64};

std::string doc_text()
{
    return read_text_file(warpsmith::test::source_dir() / "docs" / "workload-format.md");
}

/// A workload around a signature: one case with n = bins = 16, an empty reference kernel.
json::object workload_around(json::value signature)
{
    return json::object{
        {"name", "tol"},
        {"signature", std::move(signature)},
        {"cases", json::array{json::object{{"name", "a"}, {"values", {{"n", 16}, {"bins", 16}}}}}},
        {"reference_source", "extern \"C\" __global__ void k() {}"},
        {"launch", {{"grid", json::array{1}}, {"block", json::array{32}}}}};
}

/// A signature with one output of each listed type, named o0, o1, ..., plus the scalar n.
json::object signature_with_outputs(std::initializer_list<dtype> types)
{
    json::array params{json::object{{"name", "n"}, {"kind", "scalar"}, {"type", "int32"}}};
    int i = 0;
    for (dtype t : types)
    {
        // A named string: "o" + std::to_string(i) makes g++ 12 warn (-Wrestrict) on the temporary.
        const std::string index = std::to_string(i++);
        std::string name = "o";
        name += index;
        params.push_back(json::object{
            {"name", name}, {"kind", "buffer"}, {"type", to_string(t)}, {"dir", "out"}, {"count", "n"}});
    }
    return json::object{{"entry", "k"}, {"params", std::move(params)}};
}

workload load(const json::object& o)
{
    return workload::from_json(o, "/work/dir", "tol.json");
}

tolerance tolerance_of(const workload& w, std::string_view output)
{
    const param* p = w.sig.find(output);
    BOOST_TEST_REQUIRE(p);
    return w.tolerance_for(*p);
}

bool same(const tolerance& a, const tolerance& b)
{
    return a == b;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tolerance_suite)

BOOST_AUTO_TEST_CASE(default_table)
{
    BOOST_TEST(same(default_tolerance(dtype::float16), tolerance{1e-3, 1e-3}));
    BOOST_TEST(same(default_tolerance(dtype::bfloat16), tolerance{1e-2, 1e-2}));
    BOOST_TEST(same(default_tolerance(dtype::float32), tolerance{1e-5, 1e-5}));
    BOOST_TEST(same(default_tolerance(dtype::float64), tolerance{1e-10, 1e-10}));
    for (dtype t : k_integers)
    {
        BOOST_TEST_CONTEXT(to_string(t))
        {
            BOOST_TEST(default_tolerance(t).exact());
            BOOST_TEST(default_tolerance(t).atol == 0.0);
            BOOST_TEST(default_tolerance(t).rtol == 0.0);
        }
    }
    // Half precision types are looser than float32, float64 tighter, and every float default is a
    // real tolerance.
    const auto f32 = default_tolerance(dtype::float32);
    for (dtype t : {dtype::float16, dtype::bfloat16})
    {
        BOOST_TEST(default_tolerance(t).rtol > f32.rtol);
        BOOST_TEST(default_tolerance(t).atol > f32.atol);
    }
    BOOST_TEST(default_tolerance(dtype::bfloat16).rtol > default_tolerance(dtype::float16).rtol);
    BOOST_TEST(default_tolerance(dtype::float64).rtol < f32.rtol);
    BOOST_TEST(default_tolerance(dtype::float64).atol < f32.atol);
    for (dtype t : k_floats)
        BOOST_TEST(!default_tolerance(t).exact(), to_string(t));
}

BOOST_AUTO_TEST_CASE(documented_table_matches_the_code)
{
    const std::string doc = doc_text();
    const auto section = doc.find("## Tolerances");
    BOOST_TEST_REQUIRE(section != std::string::npos);
    for (dtype t : k_floats)
    {
        const tolerance d = default_tolerance(t);
        const auto number = [](double v)
        {
            char text[32];
            std::snprintf(text, sizeof text, "%.0e", v);
            std::string s(text);
            // "1e-05" is written "1e-5" in the table.
            if (auto e = s.find("e-0"); e != std::string::npos)
                s.erase(e + 2, 1);
            return s;
        };
        const std::string row =
            "| `" + std::string(to_string(t)) + "` | " + number(d.rtol) + " | " + number(d.atol) + " |";
        BOOST_TEST(doc.find(row, section) != std::string::npos,
                   "docs/workload-format.md lacks the row " << row);
    }
    BOOST_TEST(doc.find("| integers | 0 | 0 |", section) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(documented_example_loads)
{
    const std::string doc = doc_text();
    const auto section = doc.find("## Tolerances");
    const auto start = doc.find("```json\n", section);
    BOOST_TEST_REQUIRE(start != std::string::npos);
    const auto body = start + 8;
    const auto end = doc.find("```", body);
    const workload w = load(workload_around(parse_json(doc.substr(body, end - body), "workload-format.md")));
    BOOST_TEST(same(tolerance_of(w, "values"), default_tolerance(dtype::float16)));
    BOOST_TEST(tolerance_of(w, "index").exact());
    // A left-out rtol takes the uint32 default: 0.
    BOOST_TEST(same(tolerance_of(w, "hist"), tolerance{0, 1}));
}

BOOST_AUTO_TEST_CASE(without_a_tolerance_each_output_gets_its_default)
{
    const workload w = load(workload_around(signature_with_outputs({dtype::float16,
                                                                    dtype::bfloat16,
                                                                    dtype::float32,
                                                                    dtype::float64,
                                                                    dtype::int32,
                                                                    dtype::uint8,
                                                                    dtype::int64})));
    BOOST_TEST(same(tolerance_of(w, "o0"), default_tolerance(dtype::float16)));
    BOOST_TEST(same(tolerance_of(w, "o1"), default_tolerance(dtype::bfloat16)));
    BOOST_TEST(same(tolerance_of(w, "o2"), default_tolerance(dtype::float32)));
    BOOST_TEST(same(tolerance_of(w, "o3"), default_tolerance(dtype::float64)));
    for (const char* o : {"o4", "o5", "o6"})
        BOOST_TEST(tolerance_of(w, o).exact(), o);
    // The workload-wide value is the first float output's default (what feedback shows).
    BOOST_TEST(same(w.tol, default_tolerance(dtype::float16)));

    // A float32 workload without a tolerance keeps the float32 default (as before per-dtype defaults).
    const workload f32 = load(workload_around(signature_with_outputs({dtype::float32})));
    BOOST_TEST(same(f32.tol, default_tolerance(dtype::float32)));
    BOOST_TEST(same(tolerance_of(f32, "o0"), default_tolerance(dtype::float32)));
}

BOOST_AUTO_TEST_CASE(a_workload_tolerance_overrides_float_defaults_but_not_integer_exactness)
{
    auto o = workload_around(
        signature_with_outputs({dtype::float16, dtype::float64, dtype::int32, dtype::uint64}));
    o["tolerance"] = {{"rtol", 0.25}, {"atol", 0.5}};
    const workload w = load(o);
    BOOST_TEST(same(w.tol, tolerance{0.25, 0.5}));
    BOOST_TEST(same(tolerance_of(w, "o0"), tolerance{0.25, 0.5}));
    BOOST_TEST(same(tolerance_of(w, "o1"), tolerance{0.25, 0.5}));
    // Integers stay exact: a float tolerance would let a large wrong index pass on rtol.
    BOOST_TEST(tolerance_of(w, "o2").exact());
    BOOST_TEST(tolerance_of(w, "o3").exact());

    // A field left out comes from the default of the first float output's type.
    o["tolerance"] = {{"rtol", 0.25}};
    BOOST_TEST(same(load(o).tol, tolerance{0.25, default_tolerance(dtype::float16).atol}));
    // Zeros make an exact float comparison.
    o["tolerance"] = {{"rtol", 0}, {"atol", 0}};
    BOOST_TEST(tolerance_of(load(o), "o0").exact());
}

BOOST_AUTO_TEST_CASE(an_output_tolerance_overrides_the_workload_and_the_default)
{
    auto o = workload_around(signature_with_outputs({dtype::float32, dtype::int32, dtype::bfloat16}));
    o["tolerance"] = {{"rtol", 1e-4}, {"atol", 1e-4}};
    auto& params = o["signature"].as_object()["params"].as_array();
    params[1].as_object()["tolerance"] = {{"rtol", 1e-2}, {"atol", 1e-3}};
    params[2].as_object()["tolerance"] = {{"atol", 2}};
    params[3].as_object()["tolerance"] = {{"rtol", 0.5}};
    const workload w = load(o);
    BOOST_TEST(same(tolerance_of(w, "o0"), tolerance{1e-2, 1e-3}));
    // An integer output may allow a distance of its own; a left-out field is the type's default.
    BOOST_TEST(same(tolerance_of(w, "o1"), tolerance{0, 2}));
    BOOST_TEST(!tolerance_of(w, "o1").exact());
    BOOST_TEST(same(tolerance_of(w, "o2"), tolerance{0.5, default_tolerance(dtype::bfloat16).atol}));
    BOOST_TEST(same(w.tol, tolerance{1e-4, 1e-4}));
}

BOOST_AUTO_TEST_CASE(misplaced_or_bad_tolerances_are_errors)
{
    using warpsmith::test::error_of;
    {
        auto o = workload_around(signature_with_outputs({dtype::float32}));
        o["signature"].as_object()["params"].as_array()[0].as_object()["tolerance"] = {{"atol", 1}};
        BOOST_TEST(error_of<user_error>([&] { load(o); }) ==
                   "tol.json: signature.params[0].tolerance: applies to buffers only; 'n' is a scalar");
    }
    {
        auto o = workload_around(signature_with_outputs({dtype::float32}));
        o["signature"].as_object()["params"].as_array().push_back(json::object{{"name", "x"},
                                                                               {"kind", "buffer"},
                                                                               {"type", "float32"},
                                                                               {"dir", "in"},
                                                                               {"count", "n"},
                                                                               {"tolerance", {{"atol", 1}}}});
        BOOST_TEST(error_of<user_error>([&] { load(o); }) ==
                   "tol.json: signature.params[2].tolerance: applies to out and inout buffers only; 'x' is "
                   "an input");
    }
    {
        auto o = workload_around(signature_with_outputs({dtype::float32}));
        o["signature"].as_object()["params"].as_array()[1].as_object()["tolerance"] = {{"atol", -1}};
        BOOST_TEST(error_of<user_error>([&] { load(o); }) ==
                   "tol.json: signature.params[1].tolerance.atol: must be >= 0, got -1");
    }
    {
        auto o = workload_around(signature_with_outputs({dtype::float32}));
        o["tolerance"] = {{"rtol", 1e-3}, {"atoll", 1}};
        BOOST_TEST(error_of<user_error>([&] { load(o); }).find("unknown key 'atoll'") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(the_self_contained_form_keeps_every_tolerance)
{
    auto o = workload_around(
        signature_with_outputs({dtype::float16, dtype::bfloat16, dtype::int32, dtype::uint8}));
    o["signature"].as_object()["params"].as_array()[4].as_object()["tolerance"] = {{"atol", 3}};
    const workload w = load(o);
    const workload back = load(w.to_json().as_object());
    for (const char* out : {"o0", "o1", "o2", "o3"})
        BOOST_TEST(same(tolerance_of(back, out), tolerance_of(w, out)), out);
    BOOST_TEST(same(tolerance_of(back, "o1"), default_tolerance(dtype::bfloat16)));
    BOOST_TEST(tolerance_of(back, "o2").exact());
    BOOST_TEST(same(tolerance_of(back, "o3"), tolerance{0, 3}));
    BOOST_TEST(json::serialize(back.to_json()) == json::serialize(w.to_json()));

    // A workload with a tolerance and no per-output ones writes none per output, so its
    // self-contained form (and the evaluation cache keyed on it) is what it was before.
    auto f32 = workload_around(signature_with_outputs({dtype::float32, dtype::int32}));
    f32["tolerance"] = {{"rtol", 1e-4}, {"atol", 1e-4}};
    const json::value j = load(f32).to_json();
    for (const json::value& p : j.at("signature").at("params").as_array())
        BOOST_TEST(!p.as_object().contains("tolerance"));
    BOOST_TEST(j.at("tolerance").at("rtol").to_number<double>() == 1e-4);
    BOOST_TEST(j.at("tolerance").at("atol").to_number<double>() == 1e-4);
}

BOOST_AUTO_TEST_CASE(failure_wording)
{
    // An exact comparison says so instead of quoting a tolerance of zeros.
    const std::string exact = mismatch_text(default_tolerance(dtype::int32), dtype::int32, 1, 1237, false);
    BOOST_TEST(exact == "1 of 1237 elements differ from the reference (int32, compared exactly)");
    BOOST_TEST(exact.find("atol") == std::string::npos);
    BOOST_TEST(mismatch_text(tolerance{}, dtype::float32, 2, 10, true) ==
               "2 of 10 elements differ from the first run (float32, compared exactly)");
    // A tolerance is quoted (the phrase "outside atol" is what the cheat tests look for).
    BOOST_TEST(mismatch_text(tolerance{1e-4, 1e-3}, dtype::float32, 31, 2257, false) ==
               "31 of 2257 elements outside atol=0.001 + rtol=0.0001*|ref|");
    BOOST_TEST(mismatch_text(tolerance{0, 2}, dtype::uint32, 1, 4, true) ==
               "1 of 4 elements outside atol=2 + rtol=0*|first run|");
}

BOOST_AUTO_TEST_SUITE_END()
