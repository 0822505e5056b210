#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

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

BOOST_AUTO_TEST_CASE(an_atomic_write_goes_through_no_planted_link)
{
    // A folder from elsewhere (a results folder's eval-cache) may hold links named like the
    // temporary file or the file itself; neither may turn the write into one of the link's target.
    const auto dir =
        std::filesystem::temp_directory_path() / ("warpsmith-atomic-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    write_file_atomic(dir / "victim", "precious\n");
    for (int c = 0; c < 200; ++c)  // the guessable names the temporary file had before mkostemp
        std::filesystem::create_symlink(
            dir / "victim", dir / ("f.json.tmp." + std::to_string(::getpid()) + "." + std::to_string(c)));
    std::filesystem::create_symlink(dir / "victim", dir / "g.json");
    write_file_atomic(dir / "f.json", "{}\n");
    write_file_atomic(dir / "g.json", "{}\n");
    BOOST_TEST(read_text_file(dir / "victim") == "precious\n");
    BOOST_TEST(read_text_file(dir / "f.json") == "{}\n");
    BOOST_TEST(!std::filesystem::is_symlink(dir / "g.json"));  // the link is replaced, not followed
    BOOST_TEST(read_text_file(dir / "g.json") == "{}\n");
    std::filesystem::remove_all(dir);
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
