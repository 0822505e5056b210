#include "agents/http/sse_parser.hpp"
#include "harness/core/error.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace warpsmith;
using namespace warpsmith::http;
using namespace std::string_literals;

namespace
{

std::vector<sse_event> feed_whole(std::string_view s, sse_parser::options o = {})
{
    sse_parser p(o);
    return p.feed(s);
}

std::vector<sse_event> feed_bytewise(std::string_view s, sse_parser::options o = {})
{
    sse_parser p(o);
    std::vector<sse_event> out;
    for (char c : s)
        p.feed(std::string_view(&c, 1), out);
    return out;
}

bool same(const std::vector<sse_event>& a, const std::vector<sse_event>& b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].event != b[i].event || a[i].data != b[i].data || a[i].id != b[i].id ||
            a[i].retry != b[i].retry)
            return false;
    return true;
}

// A stream exercising every rule at once: all three line ends, comments, multi-line data, fields,
// UTF-8, a block without data, an empty data line, and [DONE].
const std::string mixed_stream =
    ": keep-alive\r\n"
    "event: response.output_text.delta\r\n"
    "id: 1\r\n"
    "data: {\"delta\":\"h\xC3\xA9llo \xE2\x82\xAC\"}\r\n"
    "\r\n"
    "data: line one\n"
    "data:line two\n"
    "data:  indented\n"
    "\n"
    "event: ping\r"
    "\r"
    "retry: 2500\r"
    "data: after cr\r"
    "\r"
    "data\n"
    "\n"
    "data: [DONE]\n"
    "\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(sse_parser_suite)

BOOST_AUTO_TEST_CASE(single_event_defaults_to_message)
{
    auto ev = feed_whole("data: hello\n\n");
    BOOST_TEST_REQUIRE(ev.size() == 1u);
    BOOST_TEST(ev[0].event == "message");
    BOOST_TEST(ev[0].data == "hello");
    BOOST_TEST(ev[0].id == "");
    BOOST_TEST(!ev[0].retry.has_value());
}

BOOST_AUTO_TEST_CASE(mixed_stream_parses_every_rule)
{
    sse_parser p;
    auto ev = p.feed(mixed_stream);
    BOOST_TEST_REQUIRE(ev.size() == 5u);
    BOOST_TEST(ev[0].event == "response.output_text.delta");
    BOOST_TEST(ev[0].id == "1");
    BOOST_TEST(ev[0].data == "{\"delta\":\"h\xC3\xA9llo \xE2\x82\xAC\"}");
    BOOST_TEST(ev[1].event == "message");
    BOOST_TEST(ev[1].data == "line one\nline two\n indented");  // one space stripped, only one
    BOOST_TEST(ev[1].id == "1");                                // the last id persists
    // "event: ping" alone had no data: nothing dispatched, and its type does not leak onward.
    BOOST_TEST(ev[2].event == "message");
    BOOST_TEST(ev[2].data == "after cr");
    BOOST_TEST(ev[2].retry.has_value());
    BOOST_TEST(ev[2].retry->count() == 2500);
    BOOST_TEST(ev[3].data == "");        // a bare "data" line is a field with an empty value
    BOOST_TEST(ev[4].data == "[DONE]");  // left to callers
    BOOST_TEST(!ev[4].retry.has_value());
    BOOST_TEST(p.comment_count() == 1u);
    BOOST_TEST(p.reconnection_time()->count() == 2500);
    BOOST_TEST(!p.has_partial_event());
}

BOOST_AUTO_TEST_CASE(byte_by_byte_equals_whole)
{
    BOOST_TEST(same(feed_bytewise(mixed_stream), feed_whole(mixed_stream)));
}

BOOST_AUTO_TEST_CASE(every_two_piece_split_equals_whole)
{
    auto whole = feed_whole(mixed_stream);
    for (std::size_t cut = 0; cut <= mixed_stream.size(); ++cut)
    {
        sse_parser p;
        std::vector<sse_event> out;
        p.feed(std::string_view(mixed_stream).substr(0, cut), out);
        p.feed(std::string_view(mixed_stream).substr(cut), out);
        BOOST_TEST(same(out, whole), "split at " << cut);
    }
}

BOOST_AUTO_TEST_CASE(every_three_piece_split_equals_whole)
{
    const std::string s = "data: a\r\n\r\ndata: b\r\rid: 9\ndata: \xF0\x9F\x98\x80\n\n";
    auto whole = feed_whole(s);
    BOOST_TEST_REQUIRE(whole.size() == 3u);
    for (std::size_t i = 0; i <= s.size(); ++i)
        for (std::size_t j = i; j <= s.size(); ++j)
        {
            sse_parser p;
            std::vector<sse_event> out;
            p.feed(std::string_view(s).substr(0, i), out);
            p.feed(std::string_view(s).substr(i, j - i), out);
            p.feed(std::string_view(s).substr(j), out);
            BOOST_TEST(same(out, whole), "split at " << i << "," << j);
        }
}

BOOST_AUTO_TEST_CASE(crlf_split_between_cr_and_lf_is_one_line_end)
{
    // If the LF after a piece-final CR were taken as a blank line, "a" would dispatch alone.
    sse_parser p;
    std::vector<sse_event> out;
    p.feed("data: a\r", out);
    p.feed("\n", out);
    p.feed("data: b\r", out);
    BOOST_TEST(out.empty());
    p.feed("\n\r", out);
    BOOST_TEST_REQUIRE(out.size() == 1u);  // the CR alone ends the blank line
    p.feed("\n", out);                     // ...and this LF belongs to it
    BOOST_TEST(out.size() == 1u);
    BOOST_TEST(out[0].data == "a\nb");
}

BOOST_AUTO_TEST_CASE(event_is_not_dispatched_before_its_blank_line)
{
    sse_parser p;
    BOOST_TEST(p.feed("data: x\n").empty());
    BOOST_TEST(p.has_partial_event());
    auto ev = p.feed("\n");
    BOOST_TEST_REQUIRE(ev.size() == 1u);
    BOOST_TEST(ev[0].data == "x");
}

BOOST_AUTO_TEST_CASE(utf8_split_inside_sequences_is_reassembled)
{
    // 2-, 3- and 4-byte sequences, split after every byte.
    const std::string text = "h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
    auto ev = feed_bytewise("data: " + text + "\n\n");
    BOOST_TEST_REQUIRE(ev.size() == 1u);
    BOOST_TEST(ev[0].data == text);
}

BOOST_AUTO_TEST_CASE(comments_and_keepalives_are_counted_not_dispatched)
{
    sse_parser p;
    auto ev = p.feed(": ping\n\n:\n\ndata: x\n: inside an event\ndata: y\n\n");
    BOOST_TEST_REQUIRE(ev.size() == 1u);
    BOOST_TEST(ev[0].data == "x\ny");
    BOOST_TEST(p.comment_count() == 3u);
}

BOOST_AUTO_TEST_CASE(fields_without_data_dispatch_nothing_but_take_effect)
{
    sse_parser p;
    BOOST_TEST(p.feed("event: ping\nid: 42\nretry: 100\n\n").empty());
    BOOST_TEST(p.last_event_id() == "42");
    BOOST_TEST(p.reconnection_time()->count() == 100);
    auto ev = p.feed("data: z\n\n");
    BOOST_TEST_REQUIRE(ev.size() == 1u);
    BOOST_TEST(ev[0].event == "message");
    BOOST_TEST(ev[0].id == "42");
}

BOOST_AUTO_TEST_CASE(malformed_and_unknown_fields_are_ignored)
{
    sse_parser p;
    auto ev = p.feed("retry: 12x\nfoo: bar\nid: a\0b\ndata: v\n\n"s);
    BOOST_TEST_REQUIRE(ev.size() == 1u);
    BOOST_TEST(!ev[0].retry.has_value());
    BOOST_TEST(ev[0].id == "");  // an id containing NUL is ignored
    BOOST_TEST(ev[0].data == "v");
}

BOOST_AUTO_TEST_CASE(field_name_without_colon_and_empty_value)
{
    auto ev = feed_whole("data:\n\ndata\ndata\n\n");
    BOOST_TEST_REQUIRE(ev.size() == 2u);
    BOOST_TEST(ev[0].data == "");
    BOOST_TEST(ev[1].data == "\n");
}

BOOST_AUTO_TEST_CASE(leading_byte_order_mark_is_skipped_even_when_split)
{
    auto ev = feed_bytewise(
        "\xEF\xBB\xBF"
        "data: x\n\n");
    BOOST_TEST_REQUIRE(ev.size() == 1u);
    BOOST_TEST(ev[0].data == "x");
    // Not a BOM: the bytes are content of the first line (here an unknown field, ignored).
    auto ev2 = feed_bytewise("\xEF\xBBzz\ndata: y\n\n");
    BOOST_TEST_REQUIRE(ev2.size() == 1u);
    BOOST_TEST(ev2[0].data == "y");
}

BOOST_AUTO_TEST_CASE(end_of_stream_discards_an_unterminated_event_by_default)
{
    sse_parser p;
    BOOST_TEST(p.feed("data: complete\n\ndata: partial").size() == 1u);
    BOOST_TEST(p.has_partial_event());
    BOOST_TEST(!p.finish().has_value());
    BOOST_TEST(!p.has_partial_event());
}

BOOST_AUTO_TEST_CASE(end_of_stream_flushes_in_lenient_mode)
{
    sse_parser::options o;
    o.dispatch_incomplete_at_end = true;
    {
        sse_parser p(o);
        BOOST_TEST(p.feed("event: done\ndata: partial").empty());
        auto last = p.finish();
        BOOST_TEST_REQUIRE(last.has_value());
        BOOST_TEST(last->event == "done");
        BOOST_TEST(last->data == "partial");
    }
    {
        sse_parser p(o);
        BOOST_TEST(p.feed("data: [DONE]\n").empty());
        auto last = p.finish();
        BOOST_TEST_REQUIRE(last.has_value());
        BOOST_TEST(last->data == "[DONE]");
    }
    {
        sse_parser p(o);
        p.feed(": only a comment\n");
        BOOST_TEST(!p.finish().has_value());
    }
}

BOOST_AUTO_TEST_CASE(runaway_line_is_a_protocol_error)
{
    sse_parser::options o;
    o.max_event_bytes = 64;
    sse_parser p(o);
    try
    {
        for (int i = 0; i < 100; ++i)
            p.feed("data: xxxxxxxx");
        BOOST_FAIL("expected a protocol error");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST((e.code() == make_error_code(errc::http_protocol)));
    }
    sse_parser q(o);
    BOOST_CHECK_THROW(
        {
            for (int i = 0; i < 100; ++i)
                q.feed("data: x\n");
        },
        boost::system::system_error);
}

BOOST_AUTO_TEST_SUITE_END()
