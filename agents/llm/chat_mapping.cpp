#include "agents/llm/chat_mapping.hpp"

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

/// Content may be a string or (some servers) an array of {"type": "text", "text"} parts.
std::string content_text(const json::value* c)
{
    if (!c)
        return {};
    if (c->is_string())
        return std::string(c->get_string());
    std::string out;
    if (c->is_array())
        for (const auto& p : c->get_array())
            out += string_or(p, "text");
    return out;
}

void read_usage(const json::value& v, token_usage& u)
{
    const auto* usage = object_at(v, "usage");
    if (!usage)
        return;
    u.input = int_or(*usage, "prompt_tokens");
    u.output = int_or(*usage, "completion_tokens");
    if (const auto* d = object_at(*usage, "prompt_tokens_details"))
        u.cached_input = int_or(*d, "cached_tokens");
    if (const auto* d = object_at(*usage, "completion_tokens_details"))
        u.reasoning = int_or(*d, "reasoning_tokens");
}

}  // namespace

void apply_finish_reason(model_response& r, const std::string& finish_reason)
{
    if (finish_reason == "length")
    {
        r.status = "incomplete";
        r.incomplete_reason = "max_output_tokens";
    }
    else if (finish_reason == "content_filter")
    {
        r.status = "incomplete";
        r.incomplete_reason = "content_filter";
    }
    else
        r.status = "completed";
}

json::object build_chat_body(const model_request& req, const chat_capabilities& caps)
{
    json::object body;
    body["model"] = req.model;
    json::array messages;
    for (const auto& m : req.messages)
    {
        json::object o{{"role", to_string(m.role)}};
        if (m.role == role::assistant && !m.tool_calls.empty())
        {
            o["content"] = m.content.empty() ? json::value(nullptr) : json::value(m.content);
            json::array calls;
            for (const auto& c : m.tool_calls)
                calls.push_back(
                    json::object{{"id", c.id},
                                 {"type", "function"},
                                 {"function", json::object{{"name", c.name}, {"arguments", c.arguments}}}});
            o["tool_calls"] = std::move(calls);
        }
        else
            o["content"] = m.content;
        if (m.role == role::tool)
            o["tool_call_id"] = m.tool_call_id;
        messages.push_back(std::move(o));
    }
    body["messages"] = std::move(messages);
    if (!req.tools.empty())
    {
        json::array tools;
        for (const auto& t : req.tools)
            tools.push_back(json::object{
                {"type", "function"},
                {"function",
                 json::object{
                     {"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
        body["tools"] = std::move(tools);
        if (req.tools_disabled)
            body["tool_choice"] = "none";
    }
    if (req.schema && caps.json_schema)
        body["response_format"] = json::object{{"type", "json_schema"},
                                               {"json_schema",
                                                json::object{{"name", req.schema->name},
                                                             {"schema", req.schema->schema},
                                                             {"strict", req.schema->strict}}}};
    if (!req.reasoning_effort.empty() && caps.reasoning_effort)
        body["reasoning_effort"] = req.reasoning_effort;
    if (req.max_output_tokens)
        body[caps.max_completion_tokens ? "max_completion_tokens" : "max_tokens"] = *req.max_output_tokens;
    if (req.stream)
    {
        body["stream"] = true;
        if (caps.stream_usage)
            body["stream_options"] = json::object{{"include_usage", true}};
    }
    return body;
}

model_response parse_chat_body(const json::value& v)
{
    const auto* choices = array_at(v, "choices");
    if (!choices)
        throw_protocol_error("the Chat Completions API answered with JSON that has no 'choices': " +
                             http::one_line_excerpt(json::serialize(v), 200));
    model_response r;
    r.id = string_or(v, "id");
    r.model = string_or(v, "model");
    if (!choices->empty())
    {
        const auto& choice = (*choices)[0];
        if (const auto* msg = object_at(choice, "message"))
        {
            r.text = content_text(lenient::value_at(msg, "content"));
            r.refusal = string_or(*msg, "refusal");
            if (const auto* calls = array_at(*msg, "tool_calls"))
                for (const auto& c : *calls)
                {
                    const auto* fn = object_at(c, "function");
                    r.tool_calls.push_back(tool_call{string_or(c, "id"),
                                                     fn ? string_or(*fn, "name") : "",
                                                     fn ? string_or(*fn, "arguments") : ""});
                }
        }
        apply_finish_reason(r, string_or(choice, "finish_reason"));
    }
    read_usage(v, r.usage);
    return r;
}

void chat_stream::on_event(const http::sse_event& ev)
{
    if (ev.data.empty())
        return;
    if (ev.data == "[DONE]")
    {
        done_ = true;
        return;
    }
    const auto v = parse_wire_json(ev.data, "the Chat Completions stream sent data that is not JSON");
    if (const auto* e = value_at(v, "error"))
    {
        const std::string code = e->is_string() ? std::string() : string_or(*e, "code");
        throw server_reported_failure(
            code,
            "the Chat Completions stream reported an error: " +
                (e->is_string() ? std::string(e->get_string()) : string_or(*e, "message", "(no message)")) +
                (code.empty() ? "" : " [" + code + "]"));
    }
    any_chunk_ = true;
    if (resp_.id.empty())
        resp_.id = string_or(v, "id");
    if (resp_.model.empty())
        resp_.model = string_or(v, "model");
    if (const auto* choices = array_at(v, "choices"))
        for (const auto& choice : *choices)
        {
            if (int_or(choice, "index") != 0)
                continue;
            if (const auto* delta = object_at(choice, "delta"))
            {
                resp_.text += content_text(lenient::value_at(delta, "content"));
                resp_.refusal += string_or(*delta, "refusal");
                if (const auto* calls = array_at(*delta, "tool_calls"))
                    for (const auto& c : *calls)
                    {
                        auto& pc = calls_[static_cast<int>(
                            int_or(c, "index", static_cast<std::int64_t>(calls_.size())))];
                        if (const auto id = string_or(c, "id"); !id.empty())
                            pc.id = id;
                        if (const auto* fn = object_at(c, "function"))
                        {
                            pc.name += string_or(*fn, "name");
                            pc.arguments += string_or(*fn, "arguments");
                        }
                    }
            }
            if (const auto fr = string_or(choice, "finish_reason"); !fr.empty())
                finish_reason_ = fr;
        }
    if (object_at(v, "usage"))
        read_usage(v, resp_.usage);
}

model_response chat_stream::result() const
{
    if (!done_ && finish_reason_.empty())
        throw_protocol_error(any_chunk_ ? "the Chat Completions stream ended before [DONE]"
                                        : "the Chat Completions stream ended without any chunk");
    model_response r = resp_;
    for (const auto& [index, pc] : calls_)
        r.tool_calls.push_back(
            tool_call{pc.id.empty() ? "call_" + std::to_string(index) : pc.id, pc.name, pc.arguments});
    apply_finish_reason(r, finish_reason_);
    return r;
}

}  // namespace warpsmith::llm
