#pragma once

// What the strict fake OpenAI server checks in a request before answering it, the way the real API
// does, so that a client bug fails a test instead of passing it:
//  * the shape (field names, nesting, types, required fields) against the endpoint's JSON schema
//    in tests/agents/support/api-shapes (json_shape.hpp);
//  * Responses: every function_call_output answers an earlier function_call of the input and every
//    function_call is answered; a reasoning item is followed by the item it produced; with
//    "store": false a reasoning item must carry its encrypted_content (nothing is stored to look
//    up by id);
//  * Chat Completions: an assistant message with tool_calls is followed by a tool message for each
//    call, and a tool message answers a call of the assistant message before it;
//  * strict JSON schemas (text.format / response_format with strict true, and strict function
//    tools): every object lists all its properties in "required" and has additionalProperties
//    false;
//  * per model family: reasoning parameters only for models that reason (gpt-4*, gpt-3.5* and the
//    names in `models_without_reasoning` refuse them), max_tokens refused by o-series and gpt-5
//    models (max_completion_tokens instead), and, for a server configured as an older compatible
//    one, max_completion_tokens unknown.
// A violation is an api_error, which the fake answers as HTTP 400 (or 404) with the API's body
// {"error": {"message", "type": "invalid_request_error", "param", "code"}}.

#include <boost/json/object.hpp>

#include <optional>
#include <set>
#include <string>

namespace warpsmith::test
{

struct api_error
{
    unsigned status = 400;
    std::string message;
    std::string param;  ///< "" -> null
    std::string code;   ///< "" -> null
    std::string type = "invalid_request_error";

    /// {"error": {"message", "type", "param", "code"}}.
    std::string body() const;
};

struct request_rules
{
    /// Models that refuse reasoning parameters besides the gpt-4* and gpt-3.5* families.
    std::set<std::string> models_without_reasoning;
    /// Chat Completions: behave like an older compatible server that knows only max_tokens.
    bool chat_max_tokens_only = false;
};

/// Whether a model of this name reasons (o-series, gpt-5*, codex): such models refuse max_tokens.
bool is_reasoning_family(const std::string& model);

/// The first problem of a POST /v1/responses body, nullopt when the API would take it.
std::optional<api_error> check_responses_request(const boost::json::object& body, const request_rules& rules);
/// The first problem of a POST /v1/chat/completions body.
std::optional<api_error> check_chat_request(const boost::json::object& body, const request_rules& rules);

}  // namespace warpsmith::test
