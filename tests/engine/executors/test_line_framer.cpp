// The sans-I/O line framing under every split of the input.

#include "engine/executors/line_framer.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using warpsmith::line_framer;

namespace
{

std::vector<std::string> drain(line_framer& f)
{
    std::vector<std::string> out;
    while (auto l = f.next_line())
        out.push_back(*l);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(line_framer_suite)

BOOST_AUTO_TEST_CASE(every_split_gives_the_same_lines)
{
    const std::string input = "{\"id\":1}\n{\"id\":2,\"ok\":true}\r\n\nlast";
    const std::vector<std::string> expected{"{\"id\":1}", "{\"id\":2,\"ok\":true}", ""};
    for (std::size_t chunk = 1; chunk <= input.size(); ++chunk)
    {
        line_framer f(1024);
        std::vector<std::string> got;
        for (std::size_t i = 0; i < input.size(); i += chunk)
        {
            f.feed(std::string_view(input).substr(i, chunk));
            for (auto& l : drain(f))
                got.push_back(l);
        }
        BOOST_TEST(got == expected, "chunk size " << chunk);
        BOOST_TEST(f.pending() == 4u);
        BOOST_TEST(f.take_partial() == "last");
        BOOST_TEST(!f.overflowed());
    }
}

BOOST_AUTO_TEST_CASE(strict_mode_overflows)
{
    line_framer f(8);
    f.feed("12345678\n");
    BOOST_TEST(drain(f) == std::vector<std::string>{"12345678"});
    f.feed("1234");
    f.feed("56789");
    BOOST_TEST(f.overflowed());
    f.feed("\nmore\n");
    BOOST_TEST(drain(f).empty());
}

BOOST_AUTO_TEST_CASE(truncating_mode_cuts_and_resynchronizes)
{
    line_framer f(4, line_framer::overflow_policy::truncate);
    f.feed("abcdefgh");
    f.feed("ij\nxy\n");
    BOOST_TEST(drain(f) == (std::vector<std::string>{"abcd", "xy"}));
    BOOST_TEST(!f.overflowed());
}

BOOST_AUTO_TEST_SUITE_END()
