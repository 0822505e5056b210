#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>

using namespace warpsmith;

BOOST_AUTO_TEST_SUITE(json_file)

BOOST_AUTO_TEST_CASE(parse_error_names_origin_line_and_column)
{
    try
    {
        parse_json("{\n  \"a\": 1,\n  \"b\": }\n", "w.json");
        BOOST_FAIL("expected a user_error");
    }
    catch (const user_error& e)
    {
        std::string what = e.what();
        BOOST_TEST(what.find("w.json:3:") == 0, what);
        BOOST_TEST(what.find('\n') == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(trailing_garbage_is_rejected)
{
    BOOST_CHECK_THROW(parse_json("{} x", "t.json"), user_error);
}

BOOST_AUTO_TEST_CASE(missing_file_is_one_clear_line)
{
    try
    {
        read_json_file("/nonexistent/dir/workload.json");
        BOOST_FAIL("expected a user_error");
    }
    catch (const user_error& e)
    {
        std::string what = e.what();
        BOOST_TEST(what.find("/nonexistent/dir/workload.json: cannot read file") == 0, what);
    }
}

BOOST_AUTO_TEST_CASE(atomic_write_round_trips_pretty_json)
{
    test::temp_dir dir;
    auto path = dir.path() / "sub" / "x.json";
    boost::json::value v = {
        {"name", "sgemm"}, {"grid", {1, 2, 3}}, {"nested", {{"k", true}}}, {"empty", boost::json::object{}}};
    write_json_file(path, v);
    BOOST_TEST(read_json_file(path) == v);
    // No temporary files are left behind.
    int files = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(path.parent_path()))
        ++files;
    BOOST_TEST(files == 1);
    std::string text = read_text_file(path);
    BOOST_TEST(text.find("\"grid\": [1,2,3]") != std::string::npos, text);
    BOOST_TEST(text.back() == '\n');
}

BOOST_AUTO_TEST_SUITE_END()
