#pragma once

// The OpenAI Responses API (POST /v1/responses) as plain functions (STYLE habit 1: no I/O here):
// the request body from a model_request, the model_response from a response object, and a stream
// accumulator fed with server-sent events. Streams carry typed events and end with
// response.completed / response.incomplete / response.failed or an "error" event; there is no
// "[DONE]" sentinel (STACK §7.6).
//
// Request mapping: a leading system message -> "instructions"; user/assistant text -> input
// messages; an assistant message that carries the output items of an earlier response -> those
// items verbatim (reasoning items included, as multi-turn function calling needs), else its tool
// calls -> "function_call" items; tool messages -> "function_call_output" items; tools ->
// {"type": "function", ...}; schema -> text.format {"type": "json_schema", ...}; reasoning effort
// -> reasoning.effort; max_output_tokens as is; web_search_domains -> a hosted
// {"type": "web_search", "filters": {"allowed_domains": [...]}} tool and max_tool_calls. A
// reasoning item of an earlier output that is not followed by its item (an answer cut off after
// reasoning) is left out: the API refuses it alone.

#include "agents/http/sse_parser.hpp"
#include "agents/llm/model_types.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace warpsmith::llm
{

boost::json::object build_responses_body(const model_request& req);

/// Maps a response object: text, refusal, tool calls, usage, the URLs cited by url_citation
/// annotations and the count of web_search_call items (usage.web_search_calls). Throws
/// system_error(errc::llm_protocol) when `v` is not a response object (no "output" array and
/// no "status"), and server_reported_failure when its status is "failed".
model_response parse_responses_body(const boost::json::value& v);

/// Feeds Responses API stream events in order; done() once a terminal event arrived.
class responses_stream
{
public:
    /// Consumes one event. Throws server_reported_failure for an "error" event or a
    /// response.failed, system_error(errc::llm_protocol) for a data field that is not JSON;
    /// the message carries the server's code and message.
    void on_event(const http::sse_event& ev);
    bool done() const { return result_.has_value(); }
    /// Text deltas received so far (for progress; the final text comes from the terminal event).
    const std::string& partial_text() const { return partial_text_; }
    /// The response of the terminal event. Throws system_error(errc::llm_protocol) when the
    /// stream ended without one ("the stream ended before response.completed").
    model_response result() const;

private:
    std::optional<model_response> result_;
    std::string partial_text_;
};

/// The human-readable message of an OpenAI error body ({"error": {"message", "code", "type"}}),
/// or a one-line excerpt of the body when it has another shape.
std::string api_error_message(const std::string& body);
/// The error code ("model_not_found", "invalid_api_key", ...) when the body has one.
std::string api_error_code(const std::string& body);
/// The request field an error names ({"error": {"param": "reasoning.effort"}}), "" when none.
std::string api_error_param(const std::string& body);

}  // namespace warpsmith::llm
