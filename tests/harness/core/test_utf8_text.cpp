// UTF-8 for text from others: cuts that never split a character, repair of bytes that are not
// UTF-8, and JSON text that a strict parser reads back whatever a compile log or a model held.

#include "harness/core/json_file.hpp"
#include "harness/core/utf8_text.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>

using namespace warpsmith;

BOOST_AUTO_TEST_SUITE(utf8_text_suite)

BOOST_AUTO_TEST_CASE(sequences_are_well_formed_or_not)
{
    const auto len = [](std::string_view s) { return utf8_sequence_length(s, 0); };
    BOOST_TEST(len("a") == 1u);
    BOOST_TEST(len("\xc3\xa9") == 2u);
    BOOST_TEST(len("\xe2\x86\x92") == 3u);
    BOOST_TEST(len("\xf0\x9f\x98\x80") == 4u);
    BOOST_TEST(len("\xe2\x86") == 0u);          // cut short
    BOOST_TEST(len("\x80") == 0u);              // a continuation byte alone
    BOOST_TEST(len("\xc0\xaf") == 0u);          // overlong
    BOOST_TEST(len("\xe0\x80\xaf") == 0u);      // overlong
    BOOST_TEST(len("\xed\xa0\x80") == 0u);      // a surrogate
    BOOST_TEST(len("\xf4\x90\x80\x80") == 0u);  // above U+10FFFF
    BOOST_TEST(len("\xff") == 0u);
    BOOST_TEST(static_cast<std::uint32_t>(utf8_code_point("\xe2\x80\xae", 0, 3)) == 0x202eu);
}

BOOST_AUTO_TEST_CASE(cuts_end_on_a_character_boundary)
{
    const std::string arrows = "ab\xe2\x86\x92\xe2\x86\x92";  // a b → →
    BOOST_TEST(utf8_prefix(arrows, 100) == arrows);
    BOOST_TEST(utf8_prefix(arrows, 2) == "ab");
    BOOST_TEST(utf8_prefix(arrows, 3) == "ab");
    BOOST_TEST(utf8_prefix(arrows, 4) == "ab");
    BOOST_TEST(utf8_prefix(arrows, 5) == "ab\xe2\x86\x92");
    BOOST_TEST(utf8_prefix(arrows, 7) == "ab\xe2\x86\x92");
    BOOST_TEST(utf8_prefix("\x80\x80\x80\x80\x80", 3).size() == 3u);  // not UTF-8: cut where asked
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_utf8_are_repaired)
{
    BOOST_TEST(valid_utf8("a\xff"
                          "b\xe2\x86") ==
               "a\xef\xbf\xbd"
               "b\xef\xbf\xbd\xef\xbf\xbd");
    BOOST_TEST(valid_utf8("caf\xc3\xa9") == "caf\xc3\xa9");
}

BOOST_AUTO_TEST_CASE(json_text_reads_back_whatever_its_strings_held)
{
    // A compile log cut inside a character, a Latin-1 comment, controls that a terminal or a
    // browser would act on.
    boost::json::object o{{"log", std::string("error \xe2\x86")},
                          {"latin1", std::string("caf\xe9")},
                          {"controls",
                           std::string("a\x7f"
                                       "b\xc2\x9b"
                                       "c\xe2\x80\xae"
                                       "d\xe2\x80\xa8")},
                          {"fine", "\xe2\x86\x92 \xc3\xa9 \xf0\x9f\x98\x80"}};
    for (const std::string text : {to_json_text(o), pretty_json(o)})
    {
        boost::json::parse_options strict;
        boost::system::error_code ec;
        const auto back = boost::json::parse(text, ec, {}, strict);
        BOOST_REQUIRE_MESSAGE(!ec, text);
        BOOST_TEST(back.at("log").as_string() == "error \xef\xbf\xbd\xef\xbf\xbd");
        BOOST_TEST(back.at("latin1").as_string() == "caf\xef\xbf\xbd");
        // The same characters, now as escapes in the text.
        BOOST_TEST(back.at("controls").as_string() ==
                   "a\x7f"
                   "b\xc2\x9b"
                   "c\xe2\x80\xae"
                   "d\xe2\x80\xa8");
        BOOST_TEST(text.find("\\u007f") != std::string::npos);
        BOOST_TEST(text.find("\\u009b") != std::string::npos);
        BOOST_TEST(text.find("\\u202e") != std::string::npos);
        BOOST_TEST(text.find("\\u2028") != std::string::npos);
        BOOST_TEST(back.at("fine").as_string() == "\xe2\x86\x92 \xc3\xa9 \xf0\x9f\x98\x80");
    }
    // Characters above U+FFFF are escaped as surrogate pairs (a tag character, U+E0041).
    const std::string tagged = to_json_text(boost::json::value("a\xf3\xa0\x81\x81"));
    BOOST_TEST(tagged == "\"a\\udb40\\udc41\"");
    BOOST_TEST(boost::json::parse(tagged).as_string() == "a\xf3\xa0\x81\x81");
    // Files others wrote are read even where they are not UTF-8.
    BOOST_TEST(parse_json("{\"d\": \"caf\xe9\"}", "w.json").at("d").as_string() == "caf\xe9");
}

BOOST_AUTO_TEST_SUITE_END()
