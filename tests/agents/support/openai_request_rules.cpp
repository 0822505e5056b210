#include "tests/agents/support/openai_request_rules.hpp"

#include "tests/agents/support/json_shape.hpp"

#include <boost/json.hpp>

#include <map>
#include <vector>

namespace warpsmith::test
{

namespace json = boost::json;

namespace
{

const json_shape& responses_shape()
{
    static const json_shape s = json_shape::load(api_shapes_dir() / "responses.json");
    return s;
}

const json_shape& chat_shape()
{
    static const json_shape s = json_shape::load(api_shapes_dir() / "chat-completions.json");
    return s;
}

std::string str(const json::value& v, std::string_view key)
{
    if (!v.is_object())
        return {};
    const auto* x = v.get_object().if_contains(key);
    return x && x->is_string() ? std::string(x->get_string()) : std::string();
}

bool starts_with(const std::string& s, std::string_view p)
{
    return s.rfind(p, 0) == 0;
}

bool refuses_reasoning(const std::string& model, const request_rules& rules)
{
    return rules.models_without_reasoning.count(model) || starts_with(model, "gpt-4") ||
           starts_with(model, "gpt-3.5") || starts_with(model, "chatgpt-4o");
}

api_error unsupported(const std::string& param, const std::string& hint = "")
{
    return api_error{400,
                     "Unsupported parameter: '" + param + "' is not supported with this model." + hint,
                     param,
                     "unsupported_parameter"};
}

/// Strict structured-output rules, checked recursively: objects list every property as required
/// and forbid others. `context` is the path inside the schema, for the message.
std::optional<std::string> strict_schema_problem(const json::value& s, const std::string& context)
{
    if (!s.is_object())
        return std::nullopt;
    const auto& o = s.get_object();
    const auto* props = o.if_contains("properties");
    const bool is_object_schema = str(s, "type") == "object" || props;
    if (is_object_schema)
    {
        const auto* extra = o.if_contains("additionalProperties");
        if (!extra || !extra->is_bool() || extra->get_bool())
            return "In context=(" + context +
                   "), 'additionalProperties' is required to be supplied and to be false.";
        if (props && props->is_object())
        {
            std::set<std::string> required;
            if (const auto* r = o.if_contains("required"); r && r->is_array())
                for (const auto& x : r->get_array())
                    if (x.is_string())
                        required.emplace(x.get_string());
            for (const auto& kv : props->get_object())
                if (!required.count(std::string(kv.key())))
                    return "In context=(" + context +
                           "), 'required' is required to be supplied and to be an array "
                           "including every key in properties. Missing '" +
                           std::string(kv.key()) + "'.";
            for (const auto& kv : props->get_object())
                if (auto p = strict_schema_problem(kv.value(),
                                                   context + (context.empty() ? "" : ", ") +
                                                       "'properties', '" + std::string(kv.key()) + "'"))
                    return p;
        }
    }
    for (const char* key : {"items", "anyOf", "$defs", "definitions"})
        if (const auto* x = o.if_contains(key))
        {
            if (x->is_array())
            {
                for (std::size_t i = 0; i < x->get_array().size(); ++i)
                    if (auto p = strict_schema_problem(x->get_array()[i],
                                                       context + (context.empty() ? "" : ", ") + "'" + key +
                                                           "', '" + std::to_string(i) + "'"))
                        return p;
            }
            else if (std::string_view(key) == "items")
            {
                if (auto p = strict_schema_problem(*x, context + (context.empty() ? "" : ", ") + "'items'"))
                    return p;
            }
            else if (x->is_object())
                for (const auto& kv : x->get_object())
                    if (auto p = strict_schema_problem(kv.value(),
                                                       context + (context.empty() ? "" : ", ") + "'" + key +
                                                           "', '" + std::string(kv.key()) + "'"))
                        return p;
        }
    return std::nullopt;
}

std::optional<api_error> strict_check(const json::value* schema,
                                      bool strict,
                                      const std::string& what,
                                      const std::string& param)
{
    if (!strict || !schema)
        return std::nullopt;
    if (auto p = strict_schema_problem(*schema, ""))
        return api_error{400, "Invalid schema for " + what + ": " + *p, param, "invalid_json_schema"};
    return std::nullopt;
}

bool is_true(const json::object& o, std::string_view key)
{
    const auto* x = o.if_contains(key);
    return x && x->is_bool() && x->get_bool();
}

std::optional<api_error> shape_error(const json_shape& shape, const json::object& body)
{
    if (auto v = shape.check(body))
        return api_error{400, v->message, v->param, v->code};
    return std::nullopt;
}

}  // namespace

std::string api_error::body() const
{
    return json::serialize(
        json::object{{"error",
                      json::object{{"message", message},
                                   {"type", type},
                                   {"param", param.empty() ? json::value(nullptr) : json::value(param)},
                                   {"code", code.empty() ? json::value(nullptr) : json::value(code)}}}});
}

bool is_reasoning_family(const std::string& model)
{
    return starts_with(model, "o1") || starts_with(model, "o3") || starts_with(model, "o4") ||
           starts_with(model, "gpt-5") || starts_with(model, "codex");
}

std::optional<api_error> check_responses_request(const json::object& body, const request_rules& rules)
{
    if (auto e = shape_error(responses_shape(), body))
        return e;
    const std::string model = str(body, "model");
    if (const auto* r = body.if_contains("reasoning"); r && r->is_object() && refuses_reasoning(model, rules))
        return unsupported(r->get_object().contains("effort") ? "reasoning.effort" : "reasoning");

    const auto* input = body.if_contains("input");
    const bool stored =
        !(body.contains("store") && body.at("store").is_bool() && !body.at("store").get_bool());
    if (input && input->is_array())
    {
        const auto& items = input->get_array();
        std::map<std::string, std::size_t> calls;  // call_id -> index, not yet answered
        for (std::size_t i = 0; i < items.size(); ++i)
        {
            const auto type = str(items[i], "type");
            const std::string where = "input[" + std::to_string(i) + "]";
            if (type == "reasoning")
            {
                const auto next = i + 1 < items.size() ? str(items[i + 1], "type") : std::string();
                const auto next_role = i + 1 < items.size() ? str(items[i + 1], "role") : std::string();
                const bool followed = next == "function_call" || next == "web_search_call" ||
                                      (next == "message" && next_role == "assistant") ||
                                      (next.empty() && next_role == "assistant");
                if (!followed)
                    return api_error{
                        400,
                        "Item '" + str(items[i], "id") +
                            "' of type 'reasoning' was provided without its required following item.",
                        "input",
                        ""};
                if (!stored && str(items[i], "encrypted_content").empty())
                    return api_error{
                        404,
                        "Item with id '" + str(items[i], "id") +
                            "' not found. Items are not persisted when `store` is set to false. Try "
                            "again with `store` set to true, or remove this item from your input.",
                        "input",
                        ""};
            }
            else if (type == "function_call")
                calls[str(items[i], "call_id")] = i;
            else if (type == "function_call_output")
            {
                const auto id = str(items[i], "call_id");
                auto it = calls.find(id);
                if (it == calls.end())
                    return api_error{400,
                                     "No tool call found for function call output with call_id " + id + ".",
                                     "input",
                                     ""};
                calls.erase(it);
            }
            (void)where;
        }
        if (!calls.empty())
            return api_error{
                400, "No tool output found for function call " + calls.begin()->first + ".", "input", ""};
    }
    if (const auto* tools = body.if_contains("tools"); tools && tools->is_array())
        for (std::size_t i = 0; i < tools->get_array().size(); ++i)
        {
            const auto& t = tools->get_array()[i];
            if (str(t, "type") != "function")
                continue;
            const auto& o = t.get_object();
            if (auto e = strict_check(o.if_contains("parameters"),
                                      is_true(o, "strict"),
                                      "function '" + str(t, "name") + "'",
                                      "tools[" + std::to_string(i) + "].parameters"))
                return e;
        }
    if (const auto* text = body.if_contains("text"); text && text->is_object())
        if (const auto* f = text->get_object().if_contains("format"); f && str(*f, "type") == "json_schema")
            if (auto e = strict_check(f->get_object().if_contains("schema"),
                                      is_true(f->get_object(), "strict"),
                                      "response_format '" + str(*f, "name") + "'",
                                      "text.format.schema"))
                return e;
    return std::nullopt;
}

std::optional<api_error> check_chat_request(const json::object& body, const request_rules& rules)
{
    if (rules.chat_max_tokens_only && body.contains("max_completion_tokens"))
        return api_error{400,
                         "Unrecognized request argument supplied: max_completion_tokens",
                         "max_completion_tokens",
                         "unsupported_parameter"};
    if (auto e = shape_error(chat_shape(), body))
        return e;
    const std::string model = str(body, "model");
    if (body.contains("max_tokens") && is_reasoning_family(model))
        return unsupported("max_tokens", " Use 'max_completion_tokens' instead.");
    if (body.contains("reasoning_effort") && refuses_reasoning(model, rules))
        return unsupported("reasoning_effort");

    const auto& messages = body.at("messages").get_array();
    std::set<std::string> open;  // tool_call ids of the last assistant message, not yet answered
    std::size_t open_at = 0;
    for (std::size_t i = 0; i < messages.size(); ++i)
    {
        const auto role = str(messages[i], "role");
        const std::string param = "messages.[" + std::to_string(i) + "].role";
        if (role == "tool")
        {
            const auto id = str(messages[i], "tool_call_id");
            if (!open.erase(id))
                return api_error{
                    400,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceding "
                    "message with 'tool_calls'.",
                    param,
                    ""};
            continue;
        }
        if (!open.empty())
            break;
        if (role == "assistant")
            if (const auto* calls = messages[i].get_object().if_contains("tool_calls");
                calls && calls->is_array())
            {
                for (const auto& c : calls->get_array())
                    open.insert(str(c, "id"));
                open_at = i;
            }
    }
    if (!open.empty())
    {
        std::string ids;
        for (const auto& id : open)
            ids += (ids.empty() ? "" : ", ") + id;
        return api_error{
            400,
            "An assistant message with 'tool_calls' must be followed by tool messages responding to "
            "each 'tool_call_id'. The following tool_call_ids did not have response messages: " +
                ids,
            "messages.[" + std::to_string(open_at) + "].role",
            ""};
    }
    if (const auto* tools = body.if_contains("tools"); tools && tools->is_array())
        for (std::size_t i = 0; i < tools->get_array().size(); ++i)
        {
            const auto& fn = tools->get_array()[i].get_object().at("function").get_object();
            if (auto e = strict_check(fn.if_contains("parameters"),
                                      is_true(fn, "strict"),
                                      "function '" + str(fn, "name") + "'",
                                      "tools[" + std::to_string(i) + "].function.parameters"))
                return e;
        }
    if (const auto* f = body.if_contains("response_format"); f && str(*f, "type") == "json_schema")
    {
        const auto& js = f->get_object().at("json_schema").get_object();
        if (auto e = strict_check(js.if_contains("schema"),
                                  is_true(js, "strict"),
                                  "response_format '" + str(js, "name") + "'",
                                  "response_format.json_schema.schema"))
            return e;
    }
    return std::nullopt;
}

}  // namespace warpsmith::test
