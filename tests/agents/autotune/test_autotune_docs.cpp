// The file formats of docs/autotune.md: each complete example in the document is loaded by the
// code that reads that format, so the documentation cannot drift from it.

#include "agents/autotune/evaluation_cache.hpp"
#include "agents/autotune/roofline.hpp"
#include "agents/autotune/tune_curve.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using namespace warpsmith::autotune;

namespace
{

/// The first ```json block after the heading line `heading` of docs/autotune.md.
boost::json::value example_after(const std::string& heading)
{
    const auto doc = read_text_file(test::source_dir() / "docs/autotune.md");
    const auto h = doc.find("\n" + heading + "\n");
    BOOST_TEST_REQUIRE(h != std::string::npos, "heading " << heading);
    const auto start = doc.find("```json\n", h);
    BOOST_TEST_REQUIRE(start != std::string::npos);
    const auto end = doc.find("```", start + 8);
    return parse_json(doc.substr(start + 8, end - start - 8), "docs/autotune.md " + heading);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(autotune_docs)

BOOST_AUTO_TEST_CASE(roofline_example_loads)
{
    const auto spec = roofline_spec::from_json(example_after("### roofline.json"), "docs");
    BOOST_TEST(spec.flops.evaluate({{"M", 2}, {"N", 3}, {"K", 4}}) == 48);
}

BOOST_AUTO_TEST_CASE(cache_entry_example_loads)
{
    const auto e = cache_entry::from_json(example_after("### An entry"));
    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(e->valid);
    BOOST_TEST(*e->score_us == 10.42);
    BOOST_TEST(e->device.at("name").as_string() == "NVIDIA H200");
    BOOST_TEST(e->point.at("THREADS").as_int64() == 256);
}

BOOST_AUTO_TEST_CASE(tune_curve_example_is_what_tune_curve_writes)
{
    const auto v = example_after("### tune_curve.json");
    tune_curve c;
    for (const auto& step : v.at("curve").as_array())
    {
        const auto& s = step.as_object().at("score_us");
        c.add(std::string(step.at("id").as_string()), s.is_null() ? 0.0 : s.to_number<double>());
    }
    auto mine = c.to_json();
    for (const char* k : {"evaluations", "best_us", "time_to_best", "curve"})
        BOOST_TEST(mine.at(k) == v.at(k), k);
}

BOOST_AUTO_TEST_SUITE_END()
