// What reaches the user's terminal: control characters from text others wrote are shown, not sent.

#include "harness/core/terminal_text.hpp"

#include <boost/test/unit_test.hpp>

using namespace warpsmith;

BOOST_AUTO_TEST_SUITE(terminal_text_suite)

BOOST_AUTO_TEST_CASE(control_characters_are_written_out)
{
    // A case name a model made up: clears the screen and retitles the window when printed raw.
    BOOST_TEST(terminal_text("case '\x1b[2J\x1b]0;pwned\x07' is not valid") ==
               "case '\\x1b[2J\\x1b]0;pwned\\x07' is not valid");
    BOOST_TEST(terminal_text(std::string("a\0b\rc\bd\x7f", 8)) == "a\\x00b\\x0dc\\x08d\\x7f");
    // C1 controls in UTF-8 (U+009B is CSI on some terminals); other UTF-8 stays.
    BOOST_TEST(terminal_text("x\xc2\x9b"
                             "31my") == "x\\xc2\\x9b31my");
    BOOST_TEST(terminal_text("\xe2\x82\xac \xc2\xa0 \xc3\xa9") == "\xe2\x82\xac \xc2\xa0 \xc3\xa9");
    // Lines and tabs stay: log messages may span lines.
    BOOST_TEST(terminal_text("log:\n\tx") == "log:\n\tx");
    // Bytes that are not UTF-8 are written out: a lone 0x9b is CSI to a terminal in an 8-bit mode.
    BOOST_TEST(terminal_text("trailing \xc2") == "trailing \\xc2");
    BOOST_TEST(terminal_text("raw \x9b"
                             "31mRED \xff") == "raw \\x9b31mRED \\xff");
}

// Bidirectional controls show text in another order than it is read (a kernel's #error line,
// a provider's error body): written out as \uNNNN.
BOOST_AUTO_TEST_CASE(bidirectional_controls_are_written_out)
{
    BOOST_TEST(terminal_text("ok \xe2\x80\xae;gnihton") == "ok \\u202e;gnihton");
    BOOST_TEST(terminal_text("\xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8f \xd8\x9c") ==
               "\\u2066x\\u2069 \\u200f \\u061c");
    // Characters shown as nothing: zero-width space, word joiner, BOM, soft hyphen, Hangul filler,
    // and the tag characters that spell hidden ASCII ("ASCII smuggling").
    BOOST_TEST(terminal_text("a\xe2\x80\x8b"
                             "b\xe2\x81\xa0"
                             "c\xef\xbb\xbf"
                             "d\xc2\xad"
                             "e\xe3\x85\xa4"
                             "f") == "a\\u200bb\\u2060c\\ufeffd\\u00ade\\u3164f");
    BOOST_TEST(terminal_text("x\xf3\xa0\x81\x81\xf3\xa0\x81\x82") == "x\\U000e0041\\U000e0042");
    BOOST_TEST(terminal_text("\xe2\x80\xa8") == "\\u2028");
    // Neighbours of those ranges are ordinary text.
    BOOST_TEST(terminal_text("\xe2\x80\x94 \xe2\x80\xaf") == "\xe2\x80\x94 \xe2\x80\xaf");
}

BOOST_AUTO_TEST_SUITE_END()
