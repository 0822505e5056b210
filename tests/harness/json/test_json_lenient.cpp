// Lenient reading (harness/json/lenient.hpp): absent or mistyped fields read as "none", through
// objects and values, by reference or by pointer, and a null pointer anywhere in a chain.

#include "harness/json/lenient.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
namespace json = boost::json;

namespace
{

const json::value payload = json::parse(R"({
  "id": "resp_1",
  "usage": {"input_tokens": 12, "output_tokens": 3.0, "big": 18446744073709551615, "cost_usd": 0.25},
  "output": [{"type": "message"}],
  "medians": {"small": 10, "big": 812.5, "broken": "fast"},
  "done": true,
  "nothing": null,
  "count": "7"
})");

}  // namespace

BOOST_AUTO_TEST_SUITE(json_lenient)

BOOST_AUTO_TEST_CASE(present_fields_read_through_objects_and_values)
{
    const json::object& o = payload.as_object();
    BOOST_TEST(lenient::string_or(payload, "id") == "resp_1");
    BOOST_TEST(lenient::string_or(o, "id") == "resp_1");
    BOOST_TEST(lenient::string_or(&o, "id") == "resp_1");
    BOOST_TEST(lenient::string_or(&payload, "id") == "resp_1");
    const json::object* usage = lenient::object_at(o, "usage");
    BOOST_REQUIRE(usage);
    BOOST_TEST(lenient::int_or(*usage, "input_tokens") == 12);
    BOOST_TEST(lenient::int_or(*usage, "output_tokens") == 3);
    BOOST_TEST(lenient::number_or(*usage, "cost_usd") == 0.25);
    BOOST_TEST(*lenient::number_at(usage, "input_tokens") == 12.0);
    BOOST_TEST(lenient::array_at(payload, "output")->size() == 1u);
    BOOST_TEST(*lenient::bool_at(o, "done"));
    // The pointer points into the payload, not into a copy.
    BOOST_TEST(lenient::value_at(o, "usage") == o.if_contains("usage"));
    BOOST_TEST(lenient::object_at(&o.at("usage")) == usage);
    BOOST_TEST(*lenient::number_at(&usage->at("cost_usd")) == 0.25);
}

BOOST_AUTO_TEST_CASE(absent_or_mistyped_fields_fall_back)
{
    const json::object& o = payload.as_object();
    BOOST_TEST(lenient::string_or(o, "missing", "none") == "none");
    BOOST_TEST(lenient::string_or(o, "done", "none") == "none");
    BOOST_TEST(lenient::int_or(o, "count", -1) == -1);
    BOOST_TEST(lenient::number_or(o, "nothing", 2.5) == 2.5);
    BOOST_TEST(!lenient::number_at(o, "id"));
    BOOST_TEST(!lenient::bool_at(o, "id"));
    BOOST_TEST(!lenient::string_at(o, "usage"));
    BOOST_TEST(!lenient::object_at(o, "output"));
    BOOST_TEST(!lenient::array_at(o, "usage"));
    BOOST_TEST(lenient::value_at(o, "nothing") != nullptr);  // JSON null is present, just not a number
    BOOST_TEST(!lenient::number_at(static_cast<const json::value*>(nullptr)));
    // A value that is not an object has no fields.
    BOOST_TEST(!lenient::value_at(json::value(3), "id"));
    BOOST_TEST(lenient::string_or(payload.at("id"), "x", "fallback") == "fallback");
}

BOOST_AUTO_TEST_CASE(lookups_chain_through_null_pointers)
{
    const json::object& o = payload.as_object();
    BOOST_TEST(!lenient::string_at(lenient::object_at(o, "absent"), "name"));
    BOOST_TEST(lenient::number_or(lenient::object_at(o, "absent"), "x", 4) == 4);
    BOOST_TEST(lenient::numbers_at(lenient::object_at(o, "absent"), "medians").empty());
    BOOST_TEST(!lenient::object_at(static_cast<const json::value*>(nullptr)));
}

BOOST_AUTO_TEST_CASE(number_maps_skip_what_is_not_a_number)
{
    const auto m = lenient::numbers_at(payload, "medians");
    BOOST_TEST(m.size() == 2u);
    BOOST_TEST(m.at("small") == 10.0);
    BOOST_TEST(m.at("big") == 812.5);
    BOOST_TEST(lenient::numbers_at(payload, "id").empty());
}

BOOST_AUTO_TEST_SUITE_END()
