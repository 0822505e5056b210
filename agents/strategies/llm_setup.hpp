#pragma once

// From `warpsmith optimize` flags to a model client and an LLM strategy (docs/agents.md,
// "Flags"). The optimize command adds these flags with add_to() and checks them; the provider
// registry (agents/providers/provider_registry.hpp) builds the strategy with make_model_client()
// and make_llm_strategy() when --provider is openai, openai-chat or replay. The settings go to
// run.json ("config.llm", never the key) so --resume rebuilds the same thing. --strategy is a flag
// of the optimize command (autotune takes it too); the registry copies it into `strategy`.

#include "agents/llm/credentials.hpp"
#include "agents/llm/model_client.hpp"
#include "agents/llm/price_table.hpp"
#include "agents/strategies/llm_strategy.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI
{
class App;
}

namespace warpsmith
{

/// openai, openai-chat, replay.
bool is_llm_provider(std::string_view provider);

/// The documentation sites the hosted web search of --nvidia-research may read (subdomains
/// included): docs.nvidia.com, developer.nvidia.com.
const std::vector<std::string>& nvidia_research_domains();

/// A setting from the process environment, else "" (OPENAI_BASE_URL, OPENAI_ORG_ID,
/// OPENAI_PROJECT_ID), as the official SDK reads them. Never from ./.env, unlike the key: a .env
/// in the working directory comes with whatever directory the user works in (a cloned repository,
/// a downloaded run), and its OPENAI_BASE_URL would decide where the key is sent.
std::string openai_setting(const std::string& name);

struct llm_options
{
    std::string provider;                        ///< --provider
    std::string model;                           ///< --model ("" = gpt-5-mini for openai)
    std::string reasoning_effort;                ///< --reasoning-effort ("" = medium for openai)
    std::string base_url;                        ///< --base-url
    std::string strategy = "refine";             ///< refine|beam|evolve (--strategy, set by the registry)
    std::string api_key_env = "OPENAI_API_KEY";  ///< --api-key-env
    bool insecure_local = false;                 ///< --insecure-local
    bool no_api_key = false;                     ///< --no-api-key: send no key at all
    std::string price_table;                     ///< --price-table FILE
    std::string replay_from;                     ///< --replay-from RUN
    bool no_stream = false;                      ///< --no-stream
    std::string structured_output = "auto";      ///< --structured-output auto|schema|fenced
    double request_timeout_s = 600;              ///< --llm-timeout
    double stream_idle_timeout_s = 600;          ///< --stream-idle-timeout-s
    std::string store;                           ///< --store true|false ("" = not sent)
    int max_tool_rounds = 4;                     ///< --max-tool-rounds
    /// --nvidia-research: the nvidia_docs tool (local notes); with --provider openai also the
    /// hosted web search, limited to nvidia_research_domains().
    bool nvidia_research = false;
    std::uint64_t seed = 0;  ///< From --seed.
    int branches = 1;        ///< From --branches / --async: the concurrency cap.

    // Not flags (tests).
    std::optional<std::filesystem::path> extra_ca_file;
    std::optional<std::string> proxy;
    std::chrono::milliseconds retry_base_delay{500};

    /// Registers the model flags on the optimize command (all but --strategy).
    void add_to(CLI::App& cmd, const std::string& group);
    /// Flags given on the command line (or by --config) that only model providers take; empty
    /// when none. Used to refuse them with another provider.
    std::vector<std::string> given_llm_flags() const;
    /// Checks combinations (user_error, one line): a model-provider flag without a model
    /// provider, --replay-from without replay, openai-chat without --base-url or --model, an
    /// unknown strategy, reasoning effort or structured-output mode.
    void check() const;

    /// The model name actually used (defaults applied).
    std::string effective_model() const;
    /// --base-url, else the environment's OPENAI_BASE_URL (or ./.env's), else "".
    std::string effective_base_url() const;
    std::string effective_reasoning_effort() const;

    boost::json::object to_json() const;
    /// Reads what to_json() wrote (run.json config.llm).
    static llm_options from_json(const boost::json::value& v, std::string_view origin);

    /// --resume rebuilds the model client from run.json, which anyone may have written: a run
    /// directory from elsewhere could name https://attacker.example as base_url, or another
    /// credential (GITHUB_TOKEN) as api_key_env, and the key would go there. So a resumed run's
    /// base_url that is not loopback, and an api_key_env other than OPENAI_API_KEY, are used only
    /// when the command line names the same value again (`given`: this command's --base-url and
    /// --api-key-env; other values are refused too). Throws user_error, one line naming the flag to
    /// give. Nothing to confirm for providers that send no key (replay, autotune, scripted).
    void confirm_resumed_endpoint(const llm_options& given, std::string_view origin) const;
    /// Whether the command line gave `flag` (one of the model flags); false without a command.
    bool given(std::string_view flag) const;

private:
    CLI::App* cmd_ = nullptr;
};

struct model_client_bundle
{
    std::shared_ptr<llm::model_client> client;
    std::shared_ptr<llm::redactor> redact;
    std::shared_ptr<const llm::price_table> prices;
    std::string key_source;  ///< Where the key came from ("" when none).
};

/// Builds the client: reads the key (--api-key-env, else ./.env), the price table, the base URL.
/// Throws user_error: no key for openai, a bad price table, a bad --base-url, --insecure-local
/// with a non-loopback URL, a missing or empty --replay-from run.
model_client_bundle make_model_client(const llm_options& o, boost::asio::any_io_executor ex);

/// Builds the strategy on a client (make_model_client) for --strategy.
std::unique_ptr<llm_strategy> make_llm_strategy(const llm_options& o,
                                                const model_client_bundle& b,
                                                const workload& w);

}  // namespace warpsmith
