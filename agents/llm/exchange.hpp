#pragma once

// One multi-turn exchange with a model (SPEC §5): send the conversation; while the model calls
// tools (at most max_tool_rounds rounds), run them and send their results; when it answers, check
// the answer and, if it cannot be used, tell it precisely why and ask again (at most
// max_answer_repairs times). Every request's usage is reported as soon as it is known, and the
// exchange stops when the budget says so. The decisions are in exchange_policy (sans-I/O); the
// coroutine only performs them.

#include "agents/llm/llm_records.hpp"
#include "agents/llm/model_client.hpp"
#include "agents/llm/tools.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::llm
{

struct exchange_settings
{
    int max_tool_rounds = 4;     ///< Rounds of tool calls; then tools are withdrawn.
    int max_answer_repairs = 2;  ///< Follow-ups after an unusable answer (or tools called after
                                 ///< they were withdrawn, or too many calls in one answer).
    std::size_t max_tool_calls_per_answer = 16;  ///< More calls in one answer: the answer is unusable.
    std::size_t max_tool_output_bytes = std::size_t{64} * 1024;  ///< A longer tool answer becomes an error.
    std::size_t max_problems_shown = 20;  ///< Problems of one answer told; then "and N more".
    std::size_t max_problem_bytes = 500;  ///< One problem's text (it quotes the answer).
    std::size_t max_echoed_answer_bytes = 256 * 1024 + 16 * 1024;  ///< A refused answer sent back.
};

/// Checks the text of an answer; returns the problems (empty: accepted). Keeps what it parsed.
using answer_validator = std::function<std::vector<std::string>(const model_response&)>;
/// Renders the follow-up for an unusable answer.
using repair_renderer = std::function<std::string(const std::vector<std::string>&)>;
/// Reports the usage of one request; false when a budget is exhausted (no more requests).
using usage_reporter = std::function<bool(const token_usage&)>;

struct exchange_outcome
{
    bool accepted = false;
    /// Why it stopped without an accepted answer: "budget", "refused", "unusable", "incomplete".
    std::string stop_reason;
    std::vector<std::string> problems;  ///< Of the last unusable answer.
    std::string refusal;
    std::vector<std::string> records;     ///< llm/ record file names, in order.
    std::vector<url_citation> citations;  ///< Pages cited by any answer (hosted web search), each once.
    token_usage usage;
    int requests = 0;
    int tool_calls = 0;
    int answer_repairs = 0;
    /// The conversation at the end, the last answer included (to continue it).
    std::vector<message> conversation;
};

/// What to do after a response (the sans-I/O core of the exchange).
struct exchange_step
{
    enum class kind
    {
        run_tools,       ///< Execute resp.tool_calls, append results, ask again.
        withdraw_tools,  ///< Tool rounds exhausted: answer the calls with a note, ask again without tools.
        validate,        ///< Check the text.
        refused,         ///< The model refused: stop.
    } action = kind::validate;
};

exchange_step next_step(const model_response& resp, int tool_rounds_done, const exchange_settings& s);

/// Runs the exchange. `req` holds the conversation so far (system + user) and the tools; it is
/// extended in place as the exchange goes. Awaitable on the io_context. Throws what the client
/// throws (fatal_provider_error, system_error) and std::runtime_error when the answer stays
/// unusable after the repairs ("the model's answer could not be used after 2 follow-ups: ...").
/// A refusal or an exhausted budget is an outcome, not an exception.
boost::asio::awaitable<exchange_outcome> run_exchange(model_client& client,
                                                      model_request req,
                                                      tool_executor* tools,
                                                      answer_validator validate,
                                                      repair_renderer repair,
                                                      usage_reporter report_usage,
                                                      record_writer* records,
                                                      exchange_settings settings);

}  // namespace warpsmith::llm
