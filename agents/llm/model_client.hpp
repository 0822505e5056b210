#pragma once

// The model provider abstraction (SPEC §5 "Providers"): one awaitable call per exchange. The
// implementations are openai_client (Responses API or Chat Completions, over http_client) and
// replay_client (re-serves the llm/ records of an earlier run). Strategies, tools and inference
// talk only to this interface.

#include "agents/llm/model_types.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <string>

namespace warpsmith::llm
{

/// Called once per exchange when it ends, successfully (response non-null) or not (trace.error
/// set). Returns the name of the record written for it ("" when nothing was written); the client
/// stores it in model_response::record.
using exchange_observer =
    std::function<std::string(const model_request&, const model_response*, const exchange_trace&)>;

/// A provider error the user must fix and that every further request would repeat: a rejected key
/// (401/403), an unknown model or endpoint (404), an unreachable base URL, a certificate that does
/// not verify, an exhausted quota. One line; the CLI prints it and exits 2.
class fatal_provider_error : public user_error
{
public:
    using user_error::user_error;
};

class model_client
{
public:
    virtual ~model_client() = default;

    /// "openai", "openai-chat" or "replay".
    virtual std::string provider() const = 0;
    virtual std::string model() const = 0;
    /// Whether requests carry a JSON schema the server enforces (else answers are parsed leniently:
    /// JSON, or fenced blocks; prompts say which).
    virtual bool structured_output() const = 0;

    /// Performs one exchange: sends req (streamed when req.stream), returns the parsed response
    /// with usage priced and the record name set.
    ///
    /// Awaitable; resumes on the awaiting coroutine's executor (the engine's io_context). req is
    /// taken by value. Throws fatal_provider_error (see above); system_error for failures
    /// that may pass (timeouts and 5xx after retries, a malformed answer after protocol retries,
    /// HTTP 400/422 for this request). Cancellation: terminal, as http_client.
    virtual boost::asio::awaitable<model_response> complete(model_request req) = 0;

    void set_observer(exchange_observer obs) { observer_ = std::move(obs); }

protected:
    std::string notify(const model_request& req,
                       const model_response* resp,
                       const exchange_trace& trace) const
    {
        return observer_ ? observer_(req, resp, trace) : std::string();
    }

private:
    exchange_observer observer_;
};

}  // namespace warpsmith::llm
