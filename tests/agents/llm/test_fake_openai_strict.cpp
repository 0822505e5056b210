// The strict fake OpenAI server refuses what the real API refuses: one deliberately wrong request
// of each kind (an unknown field, wrong nesting, a wrong type, a missing required field, an
// unpaired function call or output, a lone reasoning item, a reasoning item without its encrypted
// content when nothing is stored, a non-strict schema marked strict, reasoning for a model that
// does not reason, max_tokens for an OpenAI reasoning model, an unanswered tool call), each with the
// API's 400 body {"error": {"message", "type", "param", "code"}}; valid requests pass. Also the
// JSON-shape checker on its own.

#include "agents/http/http_client.hpp"
#include "tests/agents/support/async_test.hpp"
#include "tests/agents/support/fake_openai_server.hpp"
#include "tests/agents/support/json_shape.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using namespace warpsmith::test;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace
{

struct answer
{
    unsigned status = 0;
    json::value body;
};

answer post(boost::asio::io_context& ioc,
            http::http_client& c,
            const std::string& path,
            const std::string& body)
{
    http::http_request r;
    r.method = "POST";
    r.path = path;
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = body;
    try
    {
        auto resp = run_coro(ioc, c.request(std::move(r)), 30s);
        return answer{resp.status, json::parse(resp.body)};
    }
    catch (const http::http_status_error& e)
    {
        return answer{e.status(), json::parse(e.body())};
    }
}

struct bad_request
{
    const char* what;
    const char* path;  ///< "/responses" or "/chat/completions"
    const char* body;
    unsigned status;
    const char* param;    ///< nullptr: null
    const char* code;     ///< nullptr: null
    const char* message;  ///< a part of the message
};

const bad_request bad_requests[] = {
    {"unknown field",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "max_tokens": 5})",
     400,
     "max_tokens",
     "unknown_parameter",
     "Unknown parameter: 'max_tokens'"},
    {"wrong nesting",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "text": {"type": "json_schema", "name": "x"}})",
     400,
     "text.type",
     "unknown_parameter",
     "Unknown parameter"},
    {"chat field on responses",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "response_format": {"type": "json_object"}})",
     400,
     "response_format",
     "unknown_parameter",
     "Unknown parameter"},
    {"wrong type",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "max_output_tokens": "100"})",
     400,
     "max_output_tokens",
     "invalid_type",
     "expected an integer"},
    {"wrong enum value",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "reasoning": {"effort": "extreme"}})",
     400,
     "reasoning.effort",
     "invalid_value",
     "'extreme'"},
    {"missing required field",
     "/responses",
     R"({"model": "gpt-5-mini", "input": [{"role": "user", "content": "hi"},
        {"type": "function_call_output", "output": "{}"}]})",
     400,
     "input[1].call_id",
     "missing_required_parameter",
     "Missing required parameter"},
    {"function tool without strict",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "tools": [{"type": "function", "name": "f", "parameters": {}}]})",
     400,
     "tools[0].strict",
     "missing_required_parameter",
     "Missing required parameter"},
    {"output without its call",
     "/responses",
     R"({"model": "gpt-5-mini", "input": [{"role": "user", "content": "hi"},
        {"type": "function_call_output", "call_id": "call_9", "output": "{}"}]})",
     400,
     "input",
     nullptr,
     "No tool call found for function call output with call_id call_9"},
    {"call without its output",
     "/responses",
     R"({"model": "gpt-5-mini", "input": [{"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
        {"role": "user", "content": "go on"}]})",
     400,
     "input",
     nullptr,
     "No tool output found for function call call_1"},
    {"lone reasoning item",
     "/responses",
     R"({"model": "gpt-5-mini", "input": [{"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": []}, {"role": "user", "content": "again"}]})",
     400,
     "input",
     nullptr,
     "without its required following item"},
    {"reasoning not stored",
     "/responses",
     R"({"model": "gpt-5-mini", "store": false, "input": [{"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "{}"}]})",
     404,
     "input",
     nullptr,
     "Items are not persisted when `store` is set to false"},
    {"strict schema that is not strict",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "text": {"format": {"type": "json_schema", "name": "p",
        "strict": true, "schema": {"type": "object", "properties": {"a": {"type": "string"}}}}}})",
     400,
     "text.format.schema",
     "invalid_json_schema",
     "'additionalProperties' is required"},
    {"strict schema with an optional property",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "text": {"format": {"type": "json_schema", "name": "p",
        "strict": true, "schema": {"type": "object", "additionalProperties": false, "required": [],
        "properties": {"a": {"type": "string"}}}}}})",
     400,
     "text.format.schema",
     "invalid_json_schema",
     "Missing 'a'"},
    {"reasoning for a model that does not reason",
     "/responses",
     R"({"model": "gpt-4o", "input": "hi", "reasoning": {"effort": "low"}})",
     400,
     "reasoning.effort",
     "unsupported_parameter",
     "Unsupported parameter: 'reasoning.effort'"},
    {"web search filters misplaced",
     "/responses",
     R"({"model": "gpt-5-mini", "input": "hi", "tools": [{"type": "web_search", "allowed_domains": ["nvidia.com"]}]})",
     400,
     "tools[0].allowed_domains",
     "unknown_parameter",
     "Unknown parameter"},
    {"max_tokens for a reasoning model",
     "/chat/completions",
     R"({"model": "gpt-5-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 100})",
     400,
     "max_tokens",
     "unsupported_parameter",
     "Use 'max_completion_tokens' instead"},
    {"reasoning_effort for a model that does not reason",
     "/chat/completions",
     R"({"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}], "reasoning_effort": "low"})",
     400,
     "reasoning_effort",
     "unsupported_parameter",
     "Unsupported parameter"},
    {"no messages",
     "/chat/completions",
     R"({"model": "m"})",
     400,
     "messages",
     "missing_required_parameter",
     "Missing required parameter: 'messages'"},
    {"tool message without a call",
     "/chat/completions",
     R"({"model": "m", "messages": [{"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_1", "content": "{}"}]})",
     400,
     "messages.[1].role",
     nullptr,
     "must be a response to a preceding message with 'tool_calls'"},
    {"tool call without an answer",
     "/chat/completions",
     R"({"model": "m", "messages": [{"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
         "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "user", "content": "go on"}]})",
     400,
     "messages.[1].role",
     nullptr,
     "did not have response messages: call_1"},
    {"tool call missing its function",
     "/chat/completions",
     R"({"model": "m", "messages": [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function"}]}]})",
     400,
     "messages[0].tool_calls[0].function",
     "missing_required_parameter",
     "Missing required parameter"},
    {"response_format json_schema without a name",
     "/chat/completions",
     R"({"model": "m", "messages": [{"role": "user", "content": "hi"}],
        "response_format": {"type": "json_schema", "json_schema": {"schema": {}}}})",
     400,
     "response_format.json_schema.name",
     "missing_required_parameter",
     "Missing required parameter"},
    {"strict function that is not strict",
     "/chat/completions",
     R"({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function",
        "function": {"name": "f", "strict": true, "parameters": {"type": "object", "properties": {}}}}]})",
     400,
     "tools[0].function.parameters",
     "invalid_json_schema",
     "'additionalProperties' is required"},
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(fake_openai_strict_suite, io_fixture)

BOOST_AUTO_TEST_CASE(a_wrong_request_of_each_kind_gets_the_api_error_body)
{
    fake_openai_server server;
    http::http_client_options ho;
    ho.base_url = server.base_url();
    ho.retry.max_attempts = 1;
    http::http_client client(ioc.get_executor(), ho);
    for (const auto& b : bad_requests)
    {
        BOOST_TEST_CONTEXT(b.what)
        {
            const auto a = post(ioc, client, b.path, b.body);
            BOOST_TEST(a.status == b.status);
            BOOST_REQUIRE(a.body.is_object());
            const auto& e = a.body.at("error").as_object();
            BOOST_TEST(e.size() == 4u);  // message, type, param, code: nothing else
            BOOST_TEST(e.at("type") == "invalid_request_error");
            const std::string message(e.at("message").as_string());
            BOOST_TEST(message.find(b.message) != std::string::npos, message);
            if (b.param)
                BOOST_TEST(e.at("param") == b.param, json::serialize(e));
            else
                BOOST_TEST(e.at("param").is_null());
            if (b.code)
                BOOST_TEST(e.at("code") == b.code, json::serialize(e));
            else
                BOOST_TEST(e.at("code").is_null());
        }
    }
    BOOST_TEST(server.rejected().size() == std::size(bad_requests));
    BOOST_TEST(server.request_count() == std::size(bad_requests));
    server.stop();
}

BOOST_AUTO_TEST_CASE(valid_requests_pass_and_lenient_mode_takes_anything)
{
    const char* good_responses = R"({"model": "gpt-5-mini", "instructions": "x", "store": false,
        "include": ["reasoning.encrypted_content"], "reasoning": {"effort": "xhigh"}, "max_output_tokens": 4000,
        "input": [{"role": "user", "content": "[warpsmith task=other]"},
                  {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
                  {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}",
                   "status": "completed"},
                  {"type": "function_call_output", "call_id": "c1", "output": "{}"},
                  {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": "t", "annotations": [
                       {"type": "url_citation", "url": "https://docs.nvidia.com/", "title": "t",
                        "start_index": 0, "end_index": 1}]}]},
                  {"role": "user", "content": "more"}],
        "tools": [{"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"},
                   "strict": false},
                  {"type": "web_search", "filters": {"allowed_domains": ["docs.nvidia.com"]}}],
        "max_tool_calls": 4, "tool_choice": "auto",
        "text": {"format": {"type": "json_schema", "name": "p", "strict": true, "schema": {"type": "object",
                 "additionalProperties": false, "required": ["a"], "properties": {"a": {"type": "array",
                 "items": {"type": "object", "additionalProperties": false, "required": [],
                           "properties": {}}}}}}}})";
    const char* good_chat =
        R"({"model": "gpt-5-mini", "max_completion_tokens": 100, "reasoning_effort": "low",
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "[warpsmith task=other]"},
                     {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                      "function": {"name": "f", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": "{}"}],
        "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                   "parameters": {"type": "object"}}}],
        "stream": false, "store": true})";
    for (bool strict : {true, false})
    {
        fake_openai_options fo;
        fo.strict = strict;
        fake_openai_server server(fo);
        http::http_client_options ho;
        ho.base_url = server.base_url();
        ho.retry.max_attempts = 1;
        http::http_client client(ioc.get_executor(), ho);
        BOOST_TEST(post(ioc, client, "/responses", good_responses).status == 200u);
        BOOST_TEST(post(ioc, client, "/chat/completions", good_chat).status == 200u);
        const auto lenient = post(ioc, client, "/responses", bad_requests[0].body);
        BOOST_TEST(lenient.status == (strict ? 400u : 200u));
        server.stop();
    }
}

BOOST_AUTO_TEST_CASE(json_shape_reports_the_first_violation_with_its_path)
{
    json_shape shape(json::parse(R"({
        "type": "object", "required": ["a"], "additionalProperties": false,
        "properties": {
            "a": {"type": "array", "items": {"$ref": "#/$defs/item"}},
            "n": {"type": ["integer", "null"], "minimum": 1}
        },
        "$defs": {"item": {"oneOf": [
            {"type": "object", "required": ["type", "x"], "additionalProperties": false,
             "properties": {"type": {"const": "one"}, "x": {"type": "string"}}},
            {"type": "object", "required": ["type"], "additionalProperties": false,
             "properties": {"type": {"const": "two"}, "y": {"enum": ["p", "q"]}}}]}}})"));
    BOOST_TEST(
        !shape.check(json::parse(R"({"a": [{"type": "one", "x": "s"}, {"type": "two"}], "n": null})")));
    struct probe
    {
        const char* doc;
        const char* param;
        const char* code;
    };
    const probe probes[] = {
        {R"({})", "a", "missing_required_parameter"},
        {R"({"a": [], "b": 1})", "b", "unknown_parameter"},
        {R"({"a": {}})", "a", "invalid_type"},
        {R"({"a": [], "n": 1.5})", "n", "invalid_type"},
        {R"({"a": [], "n": 0})", "n", "integer_below_min_value"},
        {R"({"a": [{"type": "one"}]})", "a[0].x", "missing_required_parameter"},
        {R"({"a": [{"type": "two", "y": "r"}]})", "a[0].y", "invalid_value"},
        {R"({"a": [{"type": "three"}]})", "a[0].type", "invalid_value"},
    };
    for (const auto& p : probes)
    {
        BOOST_TEST_CONTEXT(p.doc)
        {
            const auto v = shape.check(json::parse(p.doc));
            BOOST_REQUIRE(v.has_value());
            BOOST_TEST(v->param == p.param);
            BOOST_TEST(v->code == p.code);
        }
    }
    // The shipped shapes load.
    BOOST_CHECK_NO_THROW(json_shape::load(api_shapes_dir() / "responses.json"));
    BOOST_CHECK_NO_THROW(json_shape::load(api_shapes_dir() / "chat-completions.json"));
}

BOOST_AUTO_TEST_SUITE_END()
