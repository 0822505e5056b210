// The command lines of child programs (engine/executors/command_line.hpp): PATH lookups and
// /bin/sh quoting, shared by worker processes, worker templates and the sanitizer command.

#include "engine/executors/command_line.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace warpsmith;

BOOST_AUTO_TEST_SUITE(command_line_suite)

BOOST_AUTO_TEST_CASE(plain_arguments_stay_as_they_are)
{
    BOOST_TEST(shell_quote("--device") == "--device");
    BOOST_TEST(shell_quote("/opt/ws/warpsmith-worker") == "/opt/ws/warpsmith-worker");
    BOOST_TEST(shell_quote("a=b:c,d") == "a=b:c,d");
}

BOOST_AUTO_TEST_CASE(other_arguments_are_single_quoted)
{
    BOOST_TEST(shell_quote("") == "''");
    BOOST_TEST(shell_quote("/tmp/my cache") == "'/tmp/my cache'");
    BOOST_TEST(shell_quote("it's") == "'it'\\''s'");
    BOOST_TEST(shell_quote("$HOME") == "'$HOME'");
}

BOOST_AUTO_TEST_CASE(path_directories_skip_empty_entries)
{
    const auto dirs = path_directories("/usr/bin::/bin:");
    BOOST_TEST_REQUIRE(dirs.size() == 2u);
    BOOST_TEST(dirs[0] == fs::path("/usr/bin"));
    BOOST_TEST(dirs[1] == fs::path("/bin"));
    BOOST_TEST(path_directories("").empty());
}

BOOST_AUTO_TEST_CASE(find_on_path_takes_the_first_executable)
{
    test::temp_dir tmp;
    const fs::path a = tmp.path() / "a";
    const fs::path b = tmp.path() / "b";
    fs::create_directories(a);
    fs::create_directories(b);
    std::ofstream(a / "tool") << "not executable\n";
    std::ofstream(b / "tool") << "#!/bin/sh\n";
    ::chmod((b / "tool").c_str(), 0755);
    const std::string list = a.string() + ":" + b.string();
    BOOST_TEST((find_on_path(list, "tool") == std::optional<fs::path>(b / "tool")));
    BOOST_TEST(!find_on_path(list, "missing"));
    BOOST_TEST((resolve_program((b / "tool").string()) == std::optional<fs::path>(b / "tool")));
    BOOST_TEST(!resolve_program((a / "tool").string()));
}

BOOST_AUTO_TEST_SUITE_END()
