// One timing_options for the engine, the worker and replay files
// (harness/protocol/timing_options.hpp).

#include "harness/protocol/format_error.hpp"
#include "harness/protocol/timing_options.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using namespace warpsmith::protocol;
namespace json = boost::json;

namespace
{

std::string error_of(const char* text)
{
    try
    {
        (void)timing_options::from_json(json::parse(text));
    }
    catch (const format_error& e)
    {
        return e.what();
    }
    return "accepted";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(timing_options_json)

BOOST_AUTO_TEST_CASE(defaults_and_round_trip)
{
    const timing_options d = timing_options::from_json(json::object{});
    BOOST_TEST((d == timing_options{}));
    BOOST_TEST(d.warmup == default_warmup_launches);
    BOOST_TEST(d.iterations == default_timed_launches);
    BOOST_TEST(d.target_rel_noise == default_target_rel_noise);
    BOOST_TEST((d.mode == timing_mode::cold));

    timing_options t;
    t.warmup = 3;
    t.iterations = 30;
    t.mode = timing_mode::hot;
    t.target_rel_noise = 0;
    t.dominated_above_us = {{"big", 1218.5}};
    BOOST_TEST(
        json::serialize(t.to_json()) ==
        R"({"warmup":3,"iterations":30,"mode":"hot","target_rel_noise":0E0,"dominated_above_us":{"big":1.2185E3}})");
    BOOST_TEST((timing_options::from_json(t.to_json()) == t));
}

BOOST_AUTO_TEST_CASE(bad_fields_are_named)
{
    BOOST_TEST(error_of("[]") == "'timing' must be an object");
    BOOST_TEST(error_of(R"({"mode": "warm"})") == "'timing.mode' must be \"cold\" or \"hot\"");
    BOOST_TEST(error_of(R"({"iterations": 0})") == "'timing.iterations' must be an integer from 1 to 100000");
    BOOST_TEST(error_of(R"({"warmup": 1.5})") == "'timing.warmup' must be an integer from 0 to 100000");
    BOOST_TEST(error_of(R"({"target_rel_noise": -0.1})") ==
               "'timing.target_rel_noise' must be a number >= 0");
    BOOST_TEST(error_of(R"({"dominated_above_us": {"big": 0}})") ==
               "'timing.dominated_above_us.big' must be a number > 0");
}

BOOST_AUTO_TEST_CASE(modes_and_stops_have_one_spelling)
{
    BOOST_TEST((timing_mode_from("hot") == timing_mode::hot));
    BOOST_TEST(!timing_mode_from("HOT").has_value());
    for (timing_stop s :
         {timing_stop::fixed, timing_stop::quiet, timing_stop::ceiling, timing_stop::dominated})
        BOOST_TEST((timing_stop_from(to_string(s)) == s));
    BOOST_TEST(!timing_stop_from("bored").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
