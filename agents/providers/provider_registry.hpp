#pragma once

// --provider NAME -> a strategy (SPEC §5 "Providers"; docs/agents.md, docs/autotune.md). The one
// place that maps a provider name to what proposes candidates:
//
//   scripted                     the candidates of a directory (agents/providers/scripted_strategy)
//   openai, openai-chat, replay  a model client and an LLM strategy (agents/strategies/llm_setup)
//   autotune                     a parameter search over the workload's tunables
//                                (agents/autotune/autotune_strategy)
//
// One table row per provider in provider_registry.cpp; a provider adds its row, its fields in
// provider_options (the flags that fill them are in engine/cli/optimize_command.cpp) and the parts
// of run.json it needs to be rebuilt on --resume.

#include "agents/autotune/autotune_strategy.hpp"
#include "agents/providers/scripted_strategy.hpp"
#include "agents/strategies/llm_setup.hpp"
#include "agents/strategy.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

struct provider_options
{
    std::string name = "scripted";  ///< --provider
    std::uint64_t seed = 0;         ///< --seed (strategies that draw random numbers)
    /// --strategy: refine, beam or evolve for the model providers; grid, random, local, anneal or
    /// genetic for autotune; empty: the provider's default (providers()).
    std::string strategy;

    // scripted
    std::optional<std::filesystem::path> candidates_dir;  ///< --candidates DIR
    std::chrono::nanoseconds scripted_latency{0};         ///< --scripted-latency-ms
    sleep_function sleep;                                 ///< Tests / bench: simulated clock.

    /// openai, openai-chat, replay: the model flags. Its provider, seed and strategy are this
    /// object's (model_options()).
    llm_options llm;
    /// autotune: the optimizer's settings. Its strategy and seed are this object's
    /// (tune_options()).
    autotune_options tune;

    /// The model providers' options as used: llm with name, seed and strategy applied.
    llm_options model_options() const;
    /// autotune's options as used: tune with strategy and seed applied.
    autotune_options tune_options() const;

    /// run.json "config.provider" (paths absolute), and "config.llm" for the model providers or
    /// "config.tune" for autotune, which --resume reads back with from_config().
    void to_config(boost::json::object& config) const;
    /// The options recorded in a run's config (run.json "config"); user_error naming origin when a
    /// part is missing.
    static provider_options from_config(const boost::json::object& config, std::string_view origin);
};

struct provider_info
{
    std::string name;
    std::string summary;                  ///< One line for --help.
    std::vector<std::string> strategies;  ///< What --strategy may name; empty: no --strategy.
    std::string default_strategy;
};

/// Every provider, in the order --help lists them.
std::vector<provider_info> providers();

/// What make_strategy builds.
struct provider_strategy
{
    std::unique_ptr<strategy> strat;
    /// Model providers: the first failure that every further request would repeat (a rejected
    /// key, an unknown model), as one line, once the run has met one; null for other providers.
    /// Valid while strat lives.
    std::function<std::optional<std::string>()> fatal_error;
};

/// Builds the strategy; model clients run on ex. Throws user_error before anything starts: an
/// unknown provider (listing the known ones), a missing or conflicting option ("--provider
/// scripted needs --candidates DIR", --strategy for a provider without strategies, an unknown
/// strategy), a model provider without its key, a workload autotune cannot tune.
provider_strategy make_strategy(const provider_options& opts,
                                const workload& w,
                                boost::asio::any_io_executor ex);

}  // namespace warpsmith
