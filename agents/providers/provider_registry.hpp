#pragma once

// --provider NAME -> a strategy (SPEC §5 "Providers"). One table row per provider in
// provider_registry.cpp; a provider adds its row, its fields in provider_options (and the flags
// that fill them in engine/cli/optimize_command.cpp). Names the product defines but this build
// does not yet provide are refused with one line saying so.

#include "agents/providers/scripted_strategy.hpp"
#include "agents/strategy.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith {

struct provider_options
{
    std::string name = "scripted";                 ///< --provider
    std::uint64_t seed = 0;                        ///< --seed (strategies that draw random numbers)

    // scripted
    std::optional<std::filesystem::path> candidates_dir;  ///< --candidates DIR
    std::chrono::nanoseconds scripted_latency{0};         ///< --scripted-latency-ms
    sleep_function sleep;                                 ///< Tests / bench: simulated clock.

    /// The options as recorded in run.json (paths absolute).
    boost::json::object to_json() const;
};

struct provider_info
{
    std::string name;
    std::string summary;   ///< One line for --help.
    bool available = false;
};

/// Every provider name the product defines, with whether this build has it.
std::vector<provider_info> providers();

/// Builds the strategy. Throws user_error: unknown name (listing the known ones), a provider not
/// available in this build, or a missing option ("--provider scripted needs --candidates DIR").
std::unique_ptr<strategy> make_strategy(const provider_options& opts, const workload& w);

}  // namespace warpsmith
