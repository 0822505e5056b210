#include "agents/llm/model_types.hpp"

#include "harness/json/lenient.hpp"

#include <cstdio>
#include <ctime>

namespace warpsmith::llm
{

namespace json = boost::json;
using lenient::array_at;
using lenient::int_or;
using lenient::number_or;
using lenient::string_or;
using lenient::value_at;

const std::vector<std::string>& reasoning_effort_values()
{
    // openai-python's shared ReasoningEffort type (generated from the published API definition).
    static const std::vector<std::string> values{"none", "minimal", "low", "medium", "high", "xhigh", "max"};
    return values;
}

std::string_view to_string(role r)
{
    switch (r)
    {
        case role::system:
            return "system";
        case role::user:
            return "user";
        case role::assistant:
            return "assistant";
        case role::tool:
            return "tool";
    }
    return "user";
}

json::object tool_call::to_json() const
{
    return json::object{{"id", id}, {"name", name}, {"arguments", arguments}};
}

tool_call tool_call::from_json(const json::value& v)
{
    return tool_call{string_or(v, "id"), string_or(v, "name"), string_or(v, "arguments")};
}

message message::system(std::string text)
{
    message m;
    m.role = role::system;
    m.content = std::move(text);
    return m;
}

message message::user(std::string text)
{
    message m;
    m.role = role::user;
    m.content = std::move(text);
    return m;
}

message message::tool_result(std::string call_id, std::string output)
{
    message m;
    m.role = role::tool;
    m.tool_call_id = std::move(call_id);
    m.content = std::move(output);
    return m;
}

json::object message::to_json() const
{
    json::object o{{"role", to_string(role)}, {"content", content}};
    if (!tool_calls.empty())
    {
        json::array calls;
        for (const auto& c : tool_calls)
            calls.push_back(c.to_json());
        o["tool_calls"] = std::move(calls);
    }
    if (!tool_call_id.empty())
        o["tool_call_id"] = tool_call_id;
    if (!provider_items.empty())
        o["provider_items"] = provider_items;
    return o;
}

message message::from_json(const json::value& v)
{
    message m;
    const auto r = string_or(v, "role", "user");
    m.role = r == "system"      ? role::system
             : r == "assistant" ? role::assistant
             : r == "tool"      ? role::tool
                                : role::user;
    m.content = string_or(v, "content");
    if (const auto* calls = array_at(v, "tool_calls"))
        for (const auto& c : *calls)
            m.tool_calls.push_back(tool_call::from_json(c));
    m.tool_call_id = string_or(v, "tool_call_id");
    if (const auto* items = array_at(v, "provider_items"))
        m.provider_items = *items;
    return m;
}

json::object usage_to_json(const token_usage& u)
{
    json::object o{{"input_tokens", u.input},
                   {"cached_input_tokens", u.cached_input},
                   {"output_tokens", u.output},
                   {"reasoning_tokens", u.reasoning},
                   {"cost_usd", u.cost_usd}};
    // Only runs that searched the web carry the count (older files stay byte for byte the same).
    if (u.web_search_calls)
        o["web_search_calls"] = u.web_search_calls;
    return o;
}

token_usage usage_from_json(const json::value& v)
{
    token_usage u;
    u.input = int_or(v, "input_tokens");
    u.cached_input = int_or(v, "cached_input_tokens");
    u.output = int_or(v, "output_tokens");
    u.reasoning = int_or(v, "reasoning_tokens");
    u.web_search_calls = int_or(v, "web_search_calls");
    u.cost_usd = number_or(v, "cost_usd");
    return u.plausible();
}

json::object model_response::to_json() const
{
    json::array calls;
    for (const auto& c : tool_calls)
        calls.push_back(c.to_json());
    json::object o{{"id", id},
                   {"model", model},
                   {"status", status},
                   {"text", text},
                   {"tool_calls", std::move(calls)},
                   {"usage", usage_to_json(usage)}};
    if (!refusal.empty())
        o["refusal"] = refusal;
    if (!incomplete_reason.empty())
        o["incomplete_reason"] = incomplete_reason;
    if (!output_items.empty())
        o["output_items"] = output_items;
    if (!citations.empty())
    {
        json::array cites;
        for (const auto& c : citations)
            cites.push_back(json::object{{"url", c.url}, {"title", c.title}});
        o["citations"] = std::move(cites);
    }
    return o;
}

model_response model_response::from_json(const json::value& v)
{
    model_response r;
    r.id = string_or(v, "id");
    r.model = string_or(v, "model");
    r.status = string_or(v, "status", "completed");
    r.text = string_or(v, "text");
    r.refusal = string_or(v, "refusal");
    r.incomplete_reason = string_or(v, "incomplete_reason");
    if (const auto* calls = array_at(v, "tool_calls"))
        for (const auto& c : *calls)
            r.tool_calls.push_back(tool_call::from_json(c));
    if (const auto* u = value_at(v, "usage"))
        r.usage = usage_from_json(*u);
    if (const auto* items = array_at(v, "output_items"))
        r.output_items = *items;
    if (const auto* cites = array_at(v, "citations"))
        for (const auto& c : *cites)
            r.citations.push_back(url_citation{string_or(c, "url"), string_or(c, "title")});
    return r;
}

std::string format_time(std::chrono::system_clock::time_point t)
{
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[80];
    std::snprintf(buf,
                  sizeof buf,
                  "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                  tm.tm_year + 1900,
                  tm.tm_mon + 1,
                  tm.tm_mday,
                  tm.tm_hour,
                  tm.tm_min,
                  tm.tm_sec,
                  static_cast<int>(ms % 1000));
    return buf;
}

}  // namespace warpsmith::llm
