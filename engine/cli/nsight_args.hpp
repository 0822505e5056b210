#pragma once

// The Nsight Compute flags of the commands that search (docs/nsight.md): --use-nsight, --ncu,
// --profile-timeout-ms, and optimize's --profile-budget. optimize profiles the best candidate each
// round and gives the model a profile tool; tune profiles its winner once, at the end.

#include "engine/search/search_options.hpp"

#include <string>

namespace CLI
{
class App;
}

namespace warpsmith
{

struct nsight_args
{
    bool use_nsight = false;
    int profile_budget = -1;
    std::string ncu;
    int profile_timeout_ms = 180000;

    /// Registers the flags on cmd in the "Nsight Compute" group; `use_help` says what
    /// --use-nsight does for this command; --profile-budget only where `with_budget`.
    void add_to(CLI::App& cmd, const std::string& use_help, bool with_budget);

    /// The search's nsight options. Without ncu the run goes on without profiles (one warning
    /// says where it looked); a replay (`replay_from` not empty) answers from the recorded run's
    /// profiles/ and needs no ncu.
    nsight_options options(const std::string& replay_from = "") const;
};

}  // namespace warpsmith
