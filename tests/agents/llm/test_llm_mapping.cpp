// Sans-I/O tests of the model wire mappings: the OpenAI Responses API and Chat Completions request
// bodies, response parsing (text, refusals, tool calls, usage with cached and reasoning tokens),
// and the stream accumulators fed event by event (typed Responses events without [DONE]; chat
// chunks with tool-call fragments and [DONE]).

#include "agents/http/sse_parser.hpp"
#include "agents/llm/chat_mapping.hpp"
#include "agents/llm/protocol_error.hpp"
#include "agents/llm/responses_mapping.hpp"
#include "harness/core/error.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using namespace warpsmith::llm;
namespace json = boost::json;

namespace
{

model_request sample_request()
{
    model_request r;
    r.model = "gpt-5-mini";
    r.messages.push_back(message::system("be fast"));
    r.messages.push_back(message::user("[warpsmith task=propose] hello"));
    message a;
    a.role = role::assistant;
    a.tool_calls.push_back(tool_call{"call_1", "compile", R"({"entry":"k"})"});
    r.messages.push_back(a);
    r.messages.push_back(message::tool_result("call_1", R"({"compiled":true})"));
    r.tools.push_back(tool_definition{"compile", "compiles", json::object{{"type", "object"}}});
    r.schema = output_schema{"kernel_proposal", json::object{{"type", "object"}}, true};
    r.reasoning_effort = "medium";
    r.max_output_tokens = 1000;
    r.stream = true;
    return r;
}

http::sse_event ev(std::string event, std::string data)
{
    http::sse_event e;
    e.event = std::move(event);
    e.data = std::move(data);
    return e;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(responses_mapping_suite)

BOOST_AUTO_TEST_CASE(request_body_maps_every_part)
{
    const auto body = build_responses_body(sample_request());
    BOOST_TEST(body.at("model") == "gpt-5-mini");
    BOOST_TEST(body.at("instructions") == "be fast");
    const auto& input = body.at("input").as_array();
    BOOST_REQUIRE_EQUAL(input.size(), 3u);
    BOOST_TEST(input[0].at("role") == "user");
    BOOST_TEST(input[1].at("type") == "function_call");
    BOOST_TEST(input[1].at("call_id") == "call_1");
    BOOST_TEST(input[2].at("type") == "function_call_output");
    BOOST_TEST(input[2].at("output") == R"({"compiled":true})");
    BOOST_TEST(body.at("tools").at(0).at("type") == "function");
    BOOST_TEST(body.at("tools").at(0).at("name") == "compile");
    BOOST_TEST(body.at("text").at("format").at("type") == "json_schema");
    BOOST_TEST(body.at("text").at("format").at("strict") == true);
    BOOST_TEST(body.at("reasoning").at("effort") == "medium");
    BOOST_TEST(body.at("max_output_tokens") == 1000);
    BOOST_TEST(body.at("stream") == true);
    BOOST_TEST(!body.contains("tool_choice"));
}

BOOST_AUTO_TEST_CASE(provider_items_are_echoed_verbatim)
{
    auto r = sample_request();
    r.messages[2].provider_items =
        json::array{json::object{{"type", "reasoning"}, {"id", "rs_1"}},
                    json::object{{"type", "function_call"}, {"call_id", "call_1"}}};
    r.tools_disabled = true;
    const auto body = build_responses_body(r);
    const auto& input = body.at("input").as_array();
    BOOST_REQUIRE_EQUAL(input.size(), 4u);
    BOOST_TEST(input[1].at("type") == "reasoning");
    BOOST_TEST(input[1].at("id") == "rs_1");
    BOOST_TEST(body.at("tool_choice") == "none");
}

BOOST_AUTO_TEST_CASE(a_reasoning_item_without_its_following_item_is_left_out)
{
    auto r = sample_request();
    message cut;
    cut.role = role::assistant;
    cut.provider_items =
        json::array{json::object{{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array{}}}};
    r.messages.push_back(cut);
    r.messages.push_back(message::user("your answer was cut off"));
    message whole;
    whole.role = role::assistant;
    whole.provider_items = json::array{
        json::object{{"type", "reasoning"}, {"id", "rs_2"}, {"summary", json::array{}}},
        json::object{{"type", "reasoning"}, {"id", "rs_3"}, {"summary", json::array{}}},
        json::object{{"type", "function_call"}, {"call_id", "c9"}, {"name", "compile"}, {"arguments", "{}"}}};
    r.messages.push_back(whole);
    const auto body = build_responses_body(r);
    std::vector<std::string> ids;
    for (const auto& item : body.at("input").as_array())
        if (item.as_object().contains("id"))
            ids.emplace_back(item.at("id").as_string());
    // rs_1 stood alone, rs_2 was followed by another reasoning item: only rs_3 (before its call).
    BOOST_TEST(ids == std::vector<std::string>{"rs_3"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(web_search_tool_and_citations)
{
    auto r = sample_request();
    r.web_search_domains = {"docs.nvidia.com"};
    const auto body = build_responses_body(r);
    const auto& tool = body.at("tools").as_array().back();
    BOOST_TEST(tool.at("type") == "web_search");
    BOOST_TEST(tool.at("filters").at("allowed_domains").at(0) == "docs.nvidia.com");
    BOOST_TEST(body.at("max_tool_calls") == 4);
    const auto resp = parse_responses_body(json::parse(R"({"status": "completed", "output": [
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "see",
         "annotations": [{"type": "url_citation", "url": "https://docs.nvidia.com/a", "title": "A",
                          "start_index": 0, "end_index": 3},
                         {"type": "url_citation", "url": "https://docs.nvidia.com/a", "title": "A",
                          "start_index": 0, "end_index": 3}]}]}]})"));
    BOOST_REQUIRE_EQUAL(resp.citations.size(), 1u);
    BOOST_TEST(resp.citations[0].url == "https://docs.nvidia.com/a");
    BOOST_TEST(resp.usage.web_search_calls == 1);
    BOOST_TEST(model_response::from_json(resp.to_json()).citations.size() == 1u);
}

BOOST_AUTO_TEST_CASE(response_with_text_tools_and_usage)
{
    const auto v = json::parse(R"({"id": "resp_1", "model": "gpt-5-mini-2025-08-07", "status": "completed",
        "output": [{"type": "reasoning", "id": "rs_1", "summary": []},
                   {"type": "message", "content": [{"type": "output_text", "text": "Hello "},
                                                   {"type": "output_text", "text": "world"}]},
                   {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "history",
                    "arguments": "{\"id\":\"c0001\"}"}],
        "usage": {"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 400},
                  "output_tokens": 300, "output_tokens_details": {"reasoning_tokens": 120}, "total_tokens": 1300},
        "new_field_from_the_future": {"x": 1}})");
    const auto r = parse_responses_body(v);
    BOOST_TEST(r.id == "resp_1");
    BOOST_TEST(r.text == "Hello world");
    BOOST_REQUIRE_EQUAL(r.tool_calls.size(), 1u);
    BOOST_TEST(r.tool_calls[0].id == "call_9");
    BOOST_TEST(r.tool_calls[0].name == "history");
    BOOST_TEST(r.usage.input == 1000);
    BOOST_TEST(r.usage.cached_input == 400);
    BOOST_TEST(r.usage.output == 300);
    BOOST_TEST(r.usage.reasoning == 120);
    BOOST_TEST(r.output_items.size() == 3u);
}

BOOST_AUTO_TEST_CASE(refusal_and_incomplete)
{
    const auto r = parse_responses_body(json::parse(R"({"status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "I cannot help"}]}]})"));
    BOOST_TEST(r.status == "incomplete");
    BOOST_TEST(r.incomplete_reason == "max_output_tokens");
    BOOST_TEST(r.refusal == "I cannot help");
}

BOOST_AUTO_TEST_CASE(not_a_response_is_a_protocol_error)
{
    BOOST_CHECK_THROW(parse_responses_body(json::parse(R"({"hello": 1})")), boost::system::system_error);
    BOOST_CHECK_THROW(parse_responses_body(json::parse("[1,2]")), boost::system::system_error);
}

BOOST_AUTO_TEST_CASE(stream_events_until_completed)
{
    responses_stream s;
    s.on_event(ev("response.created",
                  R"({"type":"response.created","response":{"status":"in_progress","output":[]}})"));
    s.on_event(ev("response.output_text.delta", R"({"type":"response.output_text.delta","delta":"Hel"})"));
    s.on_event(ev("response.output_text.delta", R"({"type":"response.output_text.delta","delta":"lo"})"));
    BOOST_TEST(!s.done());
    BOOST_TEST(s.partial_text() == "Hello");
    BOOST_CHECK_THROW(s.result(), boost::system::system_error);  // no terminal event yet
    s.on_event(
        ev("response.completed", R"({"type":"response.completed","response":{"id":"r","status":"completed",
        "output":[{"type":"message","content":[{"type":"output_text","text":"Hello"}]}],
        "usage":{"input_tokens":5,"output_tokens":2}}})"));
    BOOST_TEST(s.done());
    BOOST_TEST(s.result().text == "Hello");
    BOOST_TEST(s.result().usage.input == 5);
}

BOOST_AUTO_TEST_CASE(stream_incomplete_failed_and_error_events)
{
    responses_stream a;
    a.on_event(ev("response.incomplete", R"({"type":"response.incomplete","response":{"status":"incomplete",
        "incomplete_details":{"reason":"max_output_tokens"},"output":[]}})"));
    BOOST_TEST(a.result().status == "incomplete");
    // A failed response is the server's failure, not an answer: server_reported_failure, which the
    // client retries (never answer validation).
    responses_stream b;
    try
    {
        b.on_event(ev("response.failed", R"({"type":"response.failed","response":{"status":"failed",
            "error":{"code":"server_error","message":"boom"},"output":[]}})"));
        BOOST_FAIL("a failed response must throw");
    }
    catch (const server_reported_failure& e)
    {
        BOOST_TEST(e.api_code() == "server_error");
        BOOST_TEST(std::string(e.what()).find("boom") != std::string::npos);
    }
    BOOST_CHECK_THROW(
        parse_responses_body(
            json::parse(R"({"status":"failed","error":{"code":"server_error","message":"x"},"output":[]})")),
        server_reported_failure);
    responses_stream c;
    try
    {
        c.on_event(ev("error", R"({"type":"error","code":"rate_limit_exceeded","message":"slow down"})"));
        BOOST_FAIL("an error event must throw");
    }
    catch (const server_reported_failure& e)
    {
        BOOST_TEST(e.api_code() == "rate_limit_exceeded");
        BOOST_TEST(std::string(e.what()).find("slow down") != std::string::npos);
        BOOST_TEST(std::string(e.what()).find("rate_limit_exceeded") != std::string::npos);
    }
    responses_stream d;
    BOOST_CHECK_THROW(d.on_event(ev("response.output_text.delta", "{not json")), boost::system::system_error);
}

BOOST_AUTO_TEST_CASE(api_error_messages)
{
    BOOST_TEST(
        api_error_message(R"({"error": {"message": "Incorrect API key", "code": "invalid_api_key"}})") ==
        "Incorrect API key");
    BOOST_TEST(api_error_code(R"({"error": {"message": "x", "code": "model_not_found"}})") ==
               "model_not_found");
    BOOST_TEST(api_error_message("<html>bad gateway</html>") == "<html>bad gateway</html>");
    BOOST_TEST(api_error_message(R"({"error": "plain"})") == "plain");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(chat_mapping_suite)

BOOST_AUTO_TEST_CASE(request_body_maps_every_part)
{
    chat_capabilities caps;
    caps.reasoning_effort = true;
    const auto body = build_chat_body(sample_request(), caps);
    const auto& m = body.at("messages").as_array();
    BOOST_REQUIRE_EQUAL(m.size(), 4u);
    BOOST_TEST(m[0].at("role") == "system");
    BOOST_TEST(m[2].at("tool_calls").at(0).at("function").at("name") == "compile");
    BOOST_TEST(m[2].at("content").is_null());
    BOOST_TEST(m[3].at("role") == "tool");
    BOOST_TEST(m[3].at("tool_call_id") == "call_1");
    BOOST_TEST(body.at("response_format").at("type") == "json_schema");
    BOOST_TEST(body.at("response_format").at("json_schema").at("name") == "kernel_proposal");
    BOOST_TEST(body.at("reasoning_effort") == "medium");
    BOOST_TEST(body.at("max_completion_tokens") == 1000);  // the default: what OpenAI takes
    BOOST_TEST(!body.contains("max_tokens"));
    BOOST_TEST(body.at("stream_options").at("include_usage") == true);
    BOOST_TEST(body.at("tools").at(0).at("function").at("name") == "compile");
}

BOOST_AUTO_TEST_CASE(capabilities_drop_unsupported_fields)
{
    chat_capabilities caps;
    caps.json_schema = false;
    caps.reasoning_effort = false;
    caps.stream_usage = false;
    caps.max_completion_tokens = false;  // an older compatible server
    const auto body = build_chat_body(sample_request(), caps);
    BOOST_TEST(!body.contains("response_format"));
    BOOST_TEST(!body.contains("reasoning_effort"));
    BOOST_TEST(!body.contains("stream_options"));
    BOOST_TEST(body.at("max_tokens") == 1000);
}

BOOST_AUTO_TEST_CASE(response_with_tools_and_usage)
{
    const auto r = parse_chat_body(json::parse(R"({"id": "c1", "model": "m", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "compile", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 10},
                  "completion_tokens_details": {"reasoning_tokens": 5}}})"));
    BOOST_REQUIRE_EQUAL(r.tool_calls.size(), 1u);
    BOOST_TEST(r.tool_calls[0].name == "compile");
    BOOST_TEST(r.usage.input == 50);
    BOOST_TEST(r.usage.cached_input == 10);
    BOOST_TEST(r.usage.output == 20);
    BOOST_TEST(r.usage.reasoning == 5);
    BOOST_TEST(r.status == "completed");
    const auto len = parse_chat_body(json::parse(
        R"({"choices": [{"message": {"content": [{"type": "text", "text": "ab"}]}, "finish_reason": "length"}]})"));
    BOOST_TEST(len.text == "ab");
    BOOST_TEST(len.status == "incomplete");
    BOOST_CHECK_THROW(parse_chat_body(json::parse(R"({"object": "error"})")), boost::system::system_error);
}

BOOST_AUTO_TEST_CASE(stream_chunks_with_tool_call_fragments)
{
    chat_stream s;
    s.on_event(
        ev("message", R"({"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})"));
    s.on_event(ev("message", R"({"choices":[{"index":0,"delta":{"content":"Hi "}}]})"));
    s.on_event(ev(
        "message",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"compile","arguments":"{\"ke"}}]}}]})"));
    s.on_event(ev(
        "message",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"history","arguments":"{}"}}]}}]})"));
    s.on_event(ev(
        "message",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"y\":1}"}}]}}]})"));
    s.on_event(ev("message", R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"));
    s.on_event(ev("message", R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}})"));
    BOOST_TEST(!s.done());
    s.on_event(ev("message", "[DONE]"));
    BOOST_TEST(s.done());
    const auto r = s.result();
    BOOST_TEST(r.text == "Hi ");
    BOOST_REQUIRE_EQUAL(r.tool_calls.size(), 2u);
    BOOST_TEST(r.tool_calls[0].id == "call_a");
    BOOST_TEST(r.tool_calls[0].arguments == R"({"key":1})");
    BOOST_TEST(r.tool_calls[1].name == "history");
    BOOST_TEST(r.usage.input == 7);
    BOOST_TEST(r.usage.output == 3);
}

BOOST_AUTO_TEST_CASE(stream_end_rules)
{
    chat_stream cut;
    cut.on_event(ev("message", R"({"choices":[{"index":0,"delta":{"content":"partial"}}]})"));
    BOOST_CHECK_THROW(cut.result(), boost::system::system_error);  // neither [DONE] nor a finish_reason
    chat_stream lenient;
    lenient.on_event(
        ev("message", R"({"choices":[{"index":0,"delta":{"content":"all"},"finish_reason":"stop"}]})"));
    BOOST_TEST(lenient.result().text == "all");  // servers that close without [DONE]
    chat_stream err;
    BOOST_CHECK_THROW(err.on_event(ev("message", R"({"error":{"message":"overloaded"}})")),
                      boost::system::system_error);
    chat_stream empty;
    BOOST_CHECK_THROW(empty.result(), boost::system::system_error);
}

BOOST_AUTO_TEST_SUITE_END()
