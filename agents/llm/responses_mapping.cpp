#include "agents/llm/responses_mapping.hpp"

#include "agents/http/http_message.hpp"
#include "agents/llm/protocol_error.hpp"
#include "harness/core/error.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace warpsmith::llm
{

namespace json = boost::json;
using lenient::array_at;
using lenient::int_or;
using lenient::object_at;
using lenient::string_or;
using lenient::value_at;

namespace
{

json::value parse_event_data(const http::sse_event& ev)
{
    return parse_wire_json(ev.data,
                           "the Responses stream sent an event '" + ev.event + "' whose data is not JSON");
}

void add_citation(model_response& r, const std::string& url, const std::string& title)
{
    if (url.empty())
        return;
    for (const auto& c : r.citations)
        if (c.url == url)
            return;
    r.citations.push_back(url_citation{url, title});
}

}  // namespace

json::object build_responses_body(const model_request& req)
{
    json::object body;
    body["model"] = req.model;
    json::array input;
    std::string instructions;
    for (std::size_t i = 0; i < req.messages.size(); ++i)
    {
        const auto& m = req.messages[i];
        switch (m.role)
        {
            case role::system:
                if (!instructions.empty())
                    instructions += "\n\n";
                instructions += m.content;
                break;
            case role::user:
                input.push_back(json::object{{"role", "user"}, {"content", m.content}});
                break;
            case role::assistant:
                if (!m.provider_items.empty())
                {
                    for (std::size_t k = 0; k < m.provider_items.size(); ++k)
                    {
                        // The API refuses a reasoning item that is not followed by the item it
                        // produced (an answer cut off after its reasoning has nothing else).
                        const auto& item = m.provider_items[k];
                        if (string_or(item, "type") == "reasoning" &&
                            (k + 1 == m.provider_items.size() ||
                             string_or(m.provider_items[k + 1], "type") == "reasoning"))
                            continue;
                        input.push_back(item);
                    }
                    break;
                }
                if (!m.content.empty())
                    input.push_back(json::object{{"role", "assistant"}, {"content", m.content}});
                for (const auto& c : m.tool_calls)
                    input.push_back(json::object{{"type", "function_call"},
                                                 {"call_id", c.id},
                                                 {"name", c.name},
                                                 {"arguments", c.arguments}});
                break;
            case role::tool:
                input.push_back(json::object{
                    {"type", "function_call_output"}, {"call_id", m.tool_call_id}, {"output", m.content}});
                break;
        }
    }
    if (!instructions.empty())
        body["instructions"] = instructions;
    body["input"] = std::move(input);
    if (!req.tools.empty() || !req.web_search_domains.empty())
    {
        json::array tools;
        for (const auto& t : req.tools)
            tools.push_back(json::object{{"type", "function"},
                                         {"name", t.name},
                                         {"description", t.description},
                                         {"parameters", t.parameters},
                                         {"strict", false}});
        if (!req.web_search_domains.empty())
        {
            json::array domains;
            for (const auto& d : req.web_search_domains)
                domains.push_back(json::value(d));
            tools.push_back(json::object{{"type", "web_search"},
                                         {"filters", json::object{{"allowed_domains", std::move(domains)}}}});
            body["max_tool_calls"] = req.max_web_searches;
        }
        body["tools"] = std::move(tools);
        if (req.tools_disabled)
            body["tool_choice"] = "none";
    }
    if (req.schema)
        body["text"] = json::object{{"format",
                                     json::object{{"type", "json_schema"},
                                                  {"name", req.schema->name},
                                                  {"schema", req.schema->schema},
                                                  {"strict", req.schema->strict}}}};
    if (!req.reasoning_effort.empty())
        body["reasoning"] = json::object{{"effort", req.reasoning_effort}};
    if (req.max_output_tokens)
        body["max_output_tokens"] = *req.max_output_tokens;
    if (req.stream)
        body["stream"] = true;
    return body;
}

model_response parse_responses_body(const json::value& v)
{
    const auto* output = array_at(v, "output");
    if (!v.is_object() || (!output && !value_at(v, "status")))
        throw_protocol_error("the Responses API answered with JSON that is not a response object: " +
                             http::one_line_excerpt(json::serialize(v), 200));
    model_response r;
    r.id = string_or(v, "id");
    r.model = string_or(v, "model");
    r.status = string_or(v, "status", "completed");
    if (const auto* d = object_at(v, "incomplete_details"))
        r.incomplete_reason = string_or(*d, "reason");
    if (r.status == "failed")
    {
        // Not an answer to validate: the server failed the request (the client retries it).
        const auto* e = object_at(v, "error");
        const std::string code = e ? string_or(*e, "code") : std::string();
        throw server_reported_failure(code,
                                      "the response failed" +
                                          (e ? ": " + string_or(*e, "message", code) : std::string()) +
                                          (code.empty() ? "" : " [" + code + "]"));
    }
    std::int64_t web_searches = 0;
    if (output)
    {
        r.output_items = *output;
        for (const auto& item : *output)
        {
            const auto type = string_or(item, "type");
            if (type == "message")
            {
                if (const auto* content = array_at(item, "content"))
                    for (const auto& part : *content)
                    {
                        const auto pt = string_or(part, "type");
                        if (pt == "output_text")
                        {
                            r.text += string_or(part, "text");
                            if (const auto* notes = array_at(part, "annotations"))
                                for (const auto& n : *notes)
                                    if (string_or(n, "type") == "url_citation")
                                        add_citation(r, string_or(n, "url"), string_or(n, "title"));
                        }
                        else if (pt == "refusal")
                            r.refusal += string_or(part, "refusal");
                    }
            }
            else if (type == "web_search_call")
                ++web_searches;
            else if (type == "function_call")
                r.tool_calls.push_back(tool_call{string_or(item, "call_id", string_or(item, "id")),
                                                 string_or(item, "name"),
                                                 string_or(item, "arguments")});
        }
    }
    if (const auto* u = object_at(v, "usage"))
    {
        r.usage.input = int_or(*u, "input_tokens");
        r.usage.output = int_or(*u, "output_tokens");
        if (const auto* d = object_at(*u, "input_tokens_details"))
            r.usage.cached_input = int_or(*d, "cached_tokens");
        if (const auto* d = object_at(*u, "output_tokens_details"))
            r.usage.reasoning = int_or(*d, "reasoning_tokens");
    }
    r.usage.web_search_calls = web_searches;
    return r;
}

void responses_stream::on_event(const http::sse_event& ev)
{
    if (ev.data.empty())
        return;
    const auto v = parse_event_data(ev);
    std::string type = string_or(v, "type", ev.event);
    if (type == "error" || ev.event == "error")
    {
        const auto* e = object_at(v, "error");
        const json::value& src = e ? json::value(*e) : v;
        const std::string code = string_or(src, "code");
        throw server_reported_failure(
            code,
            "the Responses stream reported an error: " + string_or(src, "message", "(no message)") +
                (code.empty() ? "" : " [" + code + "]"));
    }
    if (type == "response.output_text.delta")
        partial_text_ += string_or(v, "delta");
    else if (type == "response.completed" || type == "response.incomplete" || type == "response.failed")
    {
        const auto* resp = value_at(v, "response");
        if (!resp)
            throw_protocol_error("the Responses stream sent " + type + " without a response object");
        json::value terminal = *resp;
        if (type == "response.failed" && terminal.is_object())
            terminal.get_object()["status"] = "failed";  // parsing throws server_reported_failure
        result_ = parse_responses_body(terminal);
        if (type == "response.incomplete" && result_->status == "completed")
            result_->status = "incomplete";
    }
}

model_response responses_stream::result() const
{
    if (!result_)
        throw_protocol_error("the Responses stream ended before response.completed");
    return *result_;
}

std::string api_error_message(const std::string& body)
{
    boost::system::error_code ec;
    const auto v = json::parse(body, ec);
    if (!ec)
    {
        if (const auto* e = value_at(v, "error"))
        {
            if (e->is_string())
                return std::string(e->get_string());
            const auto msg = string_or(*e, "message");
            if (!msg.empty())
                return http::one_line_excerpt(msg, 300);
        }
        const auto msg = string_or(v, "message", string_or(v, "detail"));
        if (!msg.empty())
            return http::one_line_excerpt(msg, 300);
    }
    return http::one_line_excerpt(body, 200);
}

std::string api_error_code(const std::string& body)
{
    boost::system::error_code ec;
    const auto v = json::parse(body, ec);
    if (ec)
        return {};
    if (const auto* e = object_at(v, "error"))
    {
        if (auto code = lenient::string_at(e, "code"))
            return std::move(*code);
        return string_or(*e, "type");
    }
    return {};
}

std::string api_error_param(const std::string& body)
{
    boost::system::error_code ec;
    const auto v = json::parse(body, ec);
    if (ec)
        return {};
    if (const auto* e = object_at(v, "error"))
        return string_or(*e, "param");
    return {};
}

}  // namespace warpsmith::llm
