#pragma once

// Chat Completions (POST {base}/chat/completions), the API of OpenAI-compatible servers (vLLM,
// llama.cpp server, Ollama, LM Studio, OpenRouter), as plain functions: the request body, the
// parsed response, and a stream accumulator. Streams are `data: {chat.completion.chunk}` events
// ending with `data: [DONE]`; tool calls arrive as fragments keyed by index; usage arrives in a
// last chunk with empty choices when stream_options.include_usage is sent.

#include "agents/http/sse_parser.hpp"
#include "agents/llm/model_types.hpp"

#include <boost/json/object.hpp>

#include <map>
#include <optional>
#include <string>

namespace warpsmith::llm
{

/// What the server is known to accept (servers differ; unsupported fields get a 400).
struct chat_capabilities
{
    bool json_schema = true;        ///< response_format {"type": "json_schema"}.
    bool reasoning_effort = false;  ///< "reasoning_effort" (OpenAI reasoning models, some servers).
    bool stream_usage = true;       ///< stream_options.include_usage.
    /// "max_completion_tokens" (what OpenAI accepts for every model; its o-series and gpt-5
    /// refuse "max_tokens") instead of the older "max_tokens" (some other servers know only that;
    /// openai_client learns it from their 400).
    bool max_completion_tokens = true;
};

boost::json::object build_chat_body(const model_request& req, const chat_capabilities& caps);

/// Maps a chat.completion object. Throws system_error(errc::llm_protocol) when `v` has no
/// choices array.
model_response parse_chat_body(const boost::json::value& v);

class chat_stream
{
public:
    /// Consumes one event; "[DONE]" ends the stream. Throws system_error(errc::llm_protocol)
    /// for data that is not JSON or an error object in the stream.
    void on_event(const http::sse_event& ev);
    /// "[DONE]" arrived.
    bool done() const { return done_; }
    /// The accumulated response. A stream that ended without [DONE] is accepted when a choice
    /// finished (finish_reason seen); otherwise throws system_error(errc::llm_protocol).
    model_response result() const;

private:
    struct partial_call
    {
        std::string id, name, arguments;
    };
    model_response resp_;
    std::map<int, partial_call> calls_;
    std::string finish_reason_;
    bool done_ = false;
    bool any_chunk_ = false;
};

/// Maps a Chat Completions finish_reason to the status vocabulary of model_response.
void apply_finish_reason(model_response& r, const std::string& finish_reason);

}  // namespace warpsmith::llm
