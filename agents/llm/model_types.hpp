#pragma once

// The provider-neutral vocabulary of a model exchange (SPEC §5 "Providers"): messages, tool calls,
// tool definitions, a JSON schema for structured output, the request and the response, and the
// trace of one HTTP exchange that the llm/ records keep. The OpenAI Responses and Chat Completions
// mappings (responses_mapping.hpp, chat_mapping.hpp) translate these to and from wire JSON; the
// replay provider rebuilds responses from records (to_json/from_json below).

#include "agents/strategy.hpp"
#include "harness/core/error.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::llm
{

/// A function call the model asked for. `arguments` is the JSON text the model wrote (it may be
/// malformed; the tool executor reports that back to the model).
struct tool_call
{
    std::string id;  ///< call_id (Responses) / tool_calls[].id (Chat Completions).
    std::string name;
    std::string arguments;

    boost::json::object to_json() const;
    static tool_call from_json(const boost::json::value& v);
};

enum class role
{
    system,
    user,
    assistant,
    tool,
};

std::string_view to_string(role r);

struct message
{
    llm::role role = llm::role::user;
    std::string content;
    std::vector<tool_call> tool_calls;  ///< Assistant messages that call tools.
    std::string tool_call_id;           ///< Tool messages: the call they answer.
    /// Assistant messages from the Responses API: the response's output items, sent back verbatim
    /// in the next request (reasoning items included, as the API asks for multi-turn tool use).
    boost::json::array provider_items;

    static message system(std::string text);
    static message user(std::string text);
    static message tool_result(std::string call_id, std::string output);

    boost::json::object to_json() const;
    static message from_json(const boost::json::value& v);
};

struct tool_definition
{
    std::string name;
    std::string description;
    boost::json::object parameters;  ///< JSON schema of the arguments object.
};

/// Structured output: the answer must be one JSON document matching `schema`.
struct output_schema
{
    std::string name;  ///< [A-Za-z0-9_-], e.g. "kernel_proposal".
    boost::json::object schema;
    bool strict = true;  ///< OpenAI strict mode (every property required, no extras).
};

/// A web page the model cited (Responses API url_citation annotations of a hosted web search).
struct url_citation
{
    std::string url;
    std::string title;
};

struct model_request
{
    std::string model;
    std::vector<message> messages;        ///< A leading system message becomes instructions.
    std::vector<tool_definition> tools;   ///< Empty: no tools offered.
    bool tools_disabled = false;          ///< Tools stay declared but may not be called
                                          ///< (tool_choice "none"): the conversation already
                                          ///< holds calls, so the declarations must remain.
    std::optional<output_schema> schema;  ///< Structured output when the provider supports it.
    /// "" = not sent; else one of reasoning_effort_values() (sent as is).
    std::string reasoning_effort;
    /// Responses API: offer the hosted web search tool, limited to these domains (and their
    /// subdomains); empty: no web search. Other APIs ignore it.
    std::vector<std::string> web_search_domains;
    /// Responses API: the most hosted-tool calls (web searches) one response may make; each is
    /// billed (price_table), so a request that offers web search always bounds them.
    int max_web_searches = 4;
    std::optional<int> max_output_tokens;
    bool stream = false;

    // Bookkeeping for the llm/ records and for replay (never sent to the API).
    int branch = -1;  ///< -1: not a branch (workload inference).
    int iteration = 0;
    std::string purpose;  ///< "propose", "repair", "crossover", "infer", ...
};

/// The wire-level trace of one exchange (what llm/ records keep besides the parsed response).
struct exchange_trace
{
    std::string provider;              ///< "openai", "openai-chat", "replay".
    std::string url;                   ///< Full URL, never with credentials.
    std::string request_headers;       ///< format_headers_redacted().
    boost::json::value request_body;   ///< As sent.
    boost::json::value response_body;  ///< Whole body (non-streamed), parsed when JSON.
    boost::json::array events;         ///< Streamed: {"t_ms", "event", "data"} per SSE event.
    unsigned status = 0;
    int attempts = 0;
    std::chrono::system_clock::time_point t_send{};
    std::optional<std::chrono::system_clock::time_point> t_first_byte;
    std::chrono::system_clock::time_point t_complete{};
    std::string error;  ///< One line when the exchange failed.
};

struct model_response
{
    std::string id;
    std::string model;
    std::string text;     ///< Concatenated output text.
    std::string refusal;  ///< Non-empty when the model refused.
    std::vector<tool_call> tool_calls;
    /// "completed" or "incomplete" (output limit or content filter; see incomplete_reason). A
    /// failed response is never returned: it is a server_reported_failure (protocol_error.hpp).
    std::string status = "completed";
    std::string incomplete_reason;
    token_usage usage;                ///< cost_usd filled from the price table.
    boost::json::array output_items;  ///< Responses API: the raw output items.
    /// Pages cited in the output text (hosted web search), in order, each URL once.
    std::vector<url_citation> citations;
    exchange_trace trace;
    std::string record;  ///< llm/ record file name, "" when not recorded.

    /// The parsed part (no trace), as kept in records and re-served by replay.
    boost::json::object to_json() const;
    static model_response from_json(const boost::json::value& v);
};

/// Every reasoning effort of the current OpenAI API reference (ReasoningEffort): none, minimal,
/// low, medium, high, xhigh, max.
const std::vector<std::string>& reasoning_effort_values();

boost::json::object usage_to_json(const token_usage& u);
token_usage usage_from_json(const boost::json::value& v);

/// RFC 3339 UTC with milliseconds: "2025-01-31T12:00:00.123Z".
std::string format_time(std::chrono::system_clock::time_point t);

}  // namespace warpsmith::llm
