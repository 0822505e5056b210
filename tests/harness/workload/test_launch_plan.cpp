// Launch plans: JSON forms (strings, integers, 1-3 entries, optional shared bytes), evaluation, and
// errors that name the field.

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/launch_plan.hpp"
#include "tests/harness/workload/workload_test_util.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using warpsmith::test::error_of;

namespace
{

launch_plan plan(std::string_view json)
{
    return launch_plan::from_json(parse_json(json, "test"), "w.json: launch");
}

std::string plan_error(std::string_view json)
{
    return error_of<user_error>([&] { (void)plan(json); });
}

std::string eval_error(std::string_view json, const variables& vars)
{
    const auto p = plan(json);
    return error_of<expression_error>([&] { (void)p.evaluate(vars); });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(launch_plan_suite)

BOOST_AUTO_TEST_CASE(three_dimensions_strings_and_integers)
{
    const auto p = plan(R"j({"grid": ["ceil_div(N,16)", "ceil_div(M,16)", 1], "block": ["16", 16, "1"],
                            "shared_bytes": "2*16*16*4"})j");
    const auto d = p.evaluate({{"M", 37}, {"N", 61}});
    BOOST_TEST(d.grid == (std::array<std::int64_t, 3>{4, 3, 1}), boost::test_tools::per_element());
    BOOST_TEST(d.block == (std::array<std::int64_t, 3>{16, 16, 1}), boost::test_tools::per_element());
    BOOST_TEST(d.shared_bytes == 2048);
    BOOST_TEST(d.threads_per_block() == 256);
}

BOOST_AUTO_TEST_CASE(missing_dimensions_are_one_and_shared_defaults_to_zero)
{
    const auto p = plan(R"j({"grid": ["ceil_div(n, 256)"], "block": [256]})j");
    const auto d = p.evaluate({{"n", 1001}});
    BOOST_TEST(d.grid == (std::array<std::int64_t, 3>{4, 1, 1}), boost::test_tools::per_element());
    BOOST_TEST(d.block == (std::array<std::int64_t, 3>{256, 1, 1}), boost::test_tools::per_element());
    BOOST_TEST(d.shared_bytes == 0);
    // A bare expression is shorthand for one dimension.
    const auto q = plan(R"j({"grid": "ceil_div(n, 128)", "block": 128})j");
    BOOST_TEST((q.evaluate({{"n", 1001}}) == launch_dims{{8, 1, 1}, {128, 1, 1}, 0}));
    // The default plan is a single thread.
    BOOST_TEST((launch_plan{}.evaluate({}) == launch_dims{}));
}

BOOST_AUTO_TEST_CASE(json_round_trip)
{
    const auto p = plan(R"j({"grid": ["ceil_div(N,BN)", "ceil_div(M,BM)"], "block": ["(BM/TM)*(BN/TN)"],
                            "shared_bytes": "BM*4"})j");
    const auto j = p.to_json();
    BOOST_TEST(boost::json::serialize(j) ==
               R"j({"grid":["ceil_div(N,BN)","ceil_div(M,BM)","1"],"block":["(BM/TM)*(BN/TN)","1","1"],)j"
               R"j("shared_bytes":"BM*4"})j");
    const auto back = launch_plan::from_json(j, "again");
    BOOST_TEST(boost::json::serialize(back.to_json()) == boost::json::serialize(j));
    const variables vars{{"N", 1000}, {"M", 500}, {"BN", 64}, {"BM", 128}, {"TM", 8}, {"TN", 4}};
    BOOST_TEST((back.evaluate(vars) == p.evaluate(vars)));
    BOOST_TEST((p.evaluate(vars) == launch_dims{{16, 4, 1}, {256, 1, 1}, 512}));
}

BOOST_AUTO_TEST_CASE(launch_dims_json)
{
    const launch_dims d{{4, 3, 1}, {16, 16, 1}, 128};
    BOOST_TEST(boost::json::serialize(to_json(d)) ==
               R"j({"grid":[4,3,1],"block":[16,16,1],"shared_bytes":128})j");
}

BOOST_AUTO_TEST_CASE(parse_errors_name_the_field)
{
    BOOST_TEST(plan_error(R"j({"block": [1]})j") == "w.json: launch: 'grid' is missing");
    BOOST_TEST(plan_error(R"j({"grid": [1]})j") == "w.json: launch: 'block' is missing");
    BOOST_TEST(plan_error(R"j({"grid": [1,1,1,1], "block": [1]})j") ==
               "w.json: launch.grid: must have 1 to 3 entries, got 4");
    BOOST_TEST(plan_error(R"j({"grid": [], "block": [1]})j") ==
               "w.json: launch.grid: must have 1 to 3 entries, got 0");
    BOOST_TEST(plan_error(R"j({"grid": [1], "block": [16, "16*"]})j") ==
               "w.json: launch.block[1]: expression '16*': unexpected end of expression at column 4");
    BOOST_TEST(plan_error(R"j({"grid": [true], "block": [1]})j") ==
               "w.json: launch.grid[0]: must be an integer or an expression string, got true");
    BOOST_TEST(plan_error(R"j({"grid": [1], "block": [1], "shared": 0})j") ==
               "w.json: launch: unknown key 'shared' (did you mean 'shared_bytes'?)");
    BOOST_TEST(plan_error(R"j({"grid": [1], "block": [1], "shared_bytes": 1.5})j") ==
               "w.json: launch.shared_bytes: must be an integer or an expression string, got 1.5");
    BOOST_TEST(plan_error(R"j([1, 2])j") == "w.json: launch: must be a JSON object, got [1,2]");
}

BOOST_AUTO_TEST_CASE(evaluation_errors_name_the_field)
{
    BOOST_TEST(eval_error(R"j({"grid": ["ceil_div(N,BM)"], "block": [1]})j", {{"N", 5}}) ==
               "launch.grid[0]: expression 'ceil_div(N,BM)': unknown identifier 'BM' at column 12");
    BOOST_TEST(eval_error(R"j({"grid": [1], "block": [16, "N-N"]})j", {{"N", 5}}) ==
               "launch.block[1]: 'N-N' evaluates to 0, must be positive");
    BOOST_TEST(eval_error(R"j({"grid": [1, 1, -2], "block": [1]})j", {}) ==
               "launch.grid[2]: '-2' evaluates to -2, must be positive");
    BOOST_TEST(eval_error(R"j({"grid": [1], "block": [1], "shared_bytes": "N-10"})j", {{"N", 5}}) ==
               "launch.shared_bytes: 'N-10' evaluates to -5, must not be negative");
    BOOST_TEST(eval_error(R"j({"grid": ["N/0"], "block": [1]})j", {{"N", 5}}) ==
               "launch.grid[0]: expression 'N/0': division by zero at column 2");
}

BOOST_AUTO_TEST_SUITE_END()
