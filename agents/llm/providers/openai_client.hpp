#pragma once

// The OpenAI providers (SPEC §5): `openai` speaks the Responses API (POST {base}/responses, default
// base https://api.openai.com/v1), `openai-chat` speaks Chat Completions (POST
// {base}/chat/completions) for OpenAI-compatible servers. The wire mapping is sans-I/O
// (responses_mapping.hpp, chat_mapping.hpp); this class only sends, streams, records and maps
// failures (provider_errors.hpp).
//
// * Transport retries (429/5xx/connection failures, Retry-After) are http_client's. On top of them,
//   an answer that arrives but cannot be used (a 200 whose body is not JSON, a stream cut after its
//   first byte or ended without its terminal event) is asked again up to protocol_retries times.
// * openai-chat with structured output "auto": a server that answers 400 to response_format
//   json_schema is asked again without it, and every later request goes without it (answers are
//   then parsed from fenced blocks; see docs/prompts.md).
// * A server that failed the request (response.failed, a stream "error" event, rate limits
//   included) is asked again after a back-off under the same retry policy (retry_options:
//   attempts and delays), never at once and never as a "fix your answer" follow-up.
// * A 429 insufficient_quota is final at once (fatal_provider_error), not retried.
// * Parameters a model refuses are learnt once per run from its 400 unsupported_parameter and
//   left out from then on, with one warning: reasoning (reasoning.effort, or reasoning_effort for
//   openai-chat) for models that do not reason, and for openai-chat max_completion_tokens on a
//   server that knows only max_tokens (or the reverse).
// * The API key is never sent over plain http to a host that is not loopback.
// * Every exchange, failed ones included, is reported to the observer (llm/ records).
//
// Threading: one io_context thread, like http_client.

#include "agents/http/http_client.hpp"
#include "agents/llm/chat_mapping.hpp"
#include "agents/llm/credentials.hpp"
#include "agents/llm/model_client.hpp"
#include "agents/llm/price_table.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace warpsmith::llm
{

enum class api_kind
{
    responses,  ///< --provider openai
    chat,       ///< --provider openai-chat
};

enum class structured_mode
{
    automatic,  ///< JSON schema; openai-chat falls back to fenced blocks on a 400.
    schema,     ///< Always send the JSON schema.
    fenced,     ///< Never send a schema: the model answers with fenced blocks.
};

struct openai_client_options
{
    api_kind api = api_kind::responses;
    std::string base_url;  ///< "" -> https://api.openai.com/v1
    std::string model;
    std::optional<api_key> key;   ///< Sent as "Authorization: Bearer".
    bool insecure_local = false;  ///< Verification off; only for loopback base URLs.
    structured_mode structured = structured_mode::automatic;
    chat_capabilities chat_caps;  ///< openai-chat: what the server accepts.

    std::chrono::milliseconds request_timeout{600'000};
    std::chrono::milliseconds connect_timeout{15'000};
    /// Longest silence in a stream (keep-alive comments count as traffic). Reasoning models may
    /// think long before their first event; the official SDK waits 600 s too.
    std::chrono::milliseconds stream_idle_timeout{600'000};
    /// OpenAI-Organization and OpenAI-Project headers ("" = not sent).
    std::string organization;
    std::string project;
    /// "store": sent only when set; false also asks for reasoning.encrypted_content (Responses),
    /// since the server then keeps no reasoning items to look up by id.
    std::optional<bool> store;
    std::size_t max_concurrent_requests = 8;
    http::retry_options retry;
    std::uint64_t retry_seed = 0;
    int protocol_retries = 2;
    std::optional<std::filesystem::path> extra_ca_file;  ///< Tests: the fake server's certificate.
    std::optional<std::string> proxy;                    ///< http_client_options::proxy.

    std::shared_ptr<const price_table> prices;  ///< null: built-in defaults.
    std::shared_ptr<const redactor> redact;     ///< null: redacts the key only.
};

class openai_client final : public model_client
{
public:
    /// Throws user_error: malformed base URL, --insecure-local with a non-loopback URL, `openai`
    /// against api.openai.com without a key, a key with a plain http URL of a non-loopback host.
    openai_client(boost::asio::any_io_executor ex, openai_client_options opts);
    ~openai_client() override;

    std::string provider() const override;
    std::string model() const override { return opts_.model; }
    bool structured_output() const override;
    boost::asio::awaitable<model_response> complete(model_request req) override;

    const http::http_client& http() const { return *http_; }

    /// Models this run learnt do not take reasoning parameters.
    const std::set<std::string>& models_without_reasoning() const { return no_reasoning_; }

private:
    boost::json::object body_for(const model_request& req) const;
    /// A 400 that names a parameter the model or server refuses: learns to leave it out. True when
    /// the request is worth sending again without it.
    bool learn_refused_parameter(const http::http_status_error& e,
                                 const model_request& req,
                                 const boost::json::object& sent);

    openai_client_options opts_;
    std::set<std::string> no_reasoning_;
    http::retry_policy failure_policy_;
    std::unique_ptr<http::http_client> http_;
    redactor redact_;
    std::string base_printable_;
    bool loopback_ = false;
};

}  // namespace warpsmith::llm
