// --config FILE (engine/cli/config_file.hpp): a JSON object whose keys are a command's flags; the
// command line wins, and anything that is not a flag is refused with the file and key named.

#include "engine/cli/config_file.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace json = boost::json;
using namespace warpsmith;

namespace
{

struct command_fixture
{
    CLI::App app{"test"};
    CLI::App* cmd = app.add_subcommand("optimize", "");
    int iterations = 5;
    std::vector<std::string> gpus;
    bool research = false;
    test::temp_dir dir{"warpsmith-config-file"};

    command_fixture()
    {
        cmd->add_option("--max-iterations", iterations);
        cmd->add_option("--gpus", gpus);
        cmd->add_flag("--nvidia-research", research);
    }

    std::string write(const json::value& v)
    {
        const auto path = (dir.path() / "config.json").string();
        write_json_file(path, v);
        return path;
    }

    std::string error_of(const json::value& v)
    {
        try
        {
            apply_config_file(*cmd, write(v));
        }
        catch (const user_error& e)
        {
            return e.what();
        }
        return "";
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(config_file_suite, command_fixture)

BOOST_AUTO_TEST_CASE(keys_set_the_flags_the_command_line_left_unset)
{
    const char* argv[] = {"test", "optimize", "--max-iterations", "9"};
    app.parse(4, argv);
    apply_config_file(
        *cmd,
        write(
            json::object{{"max_iterations", 3}, {"gpus", json::array{"0", "1"}}, {"nvidia-research", true}}));
    BOOST_TEST(iterations == 9);  // the command line wins
    BOOST_TEST(gpus == (std::vector<std::string>{"0", "1"}));
    BOOST_TEST(research);
}

BOOST_AUTO_TEST_CASE(what_is_not_a_flag_is_refused)
{
    const char* argv[] = {"test", "optimize"};
    app.parse(2, argv);
    BOOST_TEST(error_of(json::array{}).find("must be a JSON object whose keys are optimize flags") !=
               std::string::npos);
    BOOST_TEST(
        error_of(json::object{{"colour", "red"}}).find("unknown key 'colour' (keys are optimize flags)") !=
        std::string::npos);
    BOOST_TEST(error_of(json::object{{"config", "other.json"}}).find("cannot name another config file") !=
               std::string::npos);
    BOOST_TEST(error_of(json::object{{"max-iterations", json::object{}}})
                   .find("'max-iterations' must be a string, number or boolean") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
