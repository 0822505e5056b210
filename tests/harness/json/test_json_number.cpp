// The number writer (harness/json/json_number.hpp): finite values are JSON numbers, the others the
// strings "NaN", "Inf" and "-Inf", which a strict reader of records reads back.

#include "harness/json/json_number.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

using namespace warpsmith;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(json_numbers)

BOOST_AUTO_TEST_CASE(json_numbers_never_carry_nonfinite_values)
{
    BOOST_TEST(json_number(1.5).as_double() == 1.5);
    BOOST_TEST(json_number(std::nan("")).as_string() == "NaN");
    BOOST_TEST(json_number(INFINITY).as_string() == "Inf");
    BOOST_TEST(json_number(-INFINITY).as_string() == "-Inf");
    BOOST_TEST(!nonfinite_number("inf"));
    BOOST_TEST(!nonfinite_number("1.5"));
}

BOOST_AUTO_TEST_CASE(nonfinite_values_round_trip_through_text)
{
    const double values[] = {0.0,
                             -2.5,
                             1e300,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
    const auto key = [](std::size_t i)
    {
        std::string k = "v";
        k += std::to_string(i);
        return k;
    };
    json::object o;
    for (std::size_t i = 0; i < std::size(values); ++i)
        o[key(i)] = json_number(values[i]);
    // Through the text a serializer writes and a parser reads, as the protocol carries it.
    const json::value back = json::parse(json::serialize(o));
    const json_reader r(back, json_location({}, {}, json_style::record));
    for (std::size_t i = 0; i < std::size(values); ++i)
    {
        const double x = r.require_number(key(i));
        if (std::isnan(values[i]))
            BOOST_TEST(std::isnan(x));
        else
            BOOST_TEST(x == values[i]);
    }
}

BOOST_AUTO_TEST_SUITE_END()
