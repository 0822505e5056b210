#include "engine/cli/nsight_args.hpp"

#include "engine/profile/ncu_tool.hpp"
#include "harness/core/log.hpp"

#include <CLI/CLI.hpp>

namespace warpsmith
{

void nsight_args::add_to(CLI::App& cmd, const std::string& use_help, bool with_budget)
{
    const char* group = "Nsight Compute (docs/nsight.md)";
    cmd.add_flag("--use-nsight", use_nsight, use_help)->group(group);
    if (with_budget)
        cmd.add_option("--profile-budget",
                       profile_budget,
                       "Profiles in this run (default: two per iteration reached)")
            ->check(CLI::NonNegativeNumber)
            ->group(group);
    cmd.add_option(
           "--ncu", ncu, "Nsight Compute's ncu (default: on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")
        ->group(group);
    cmd.add_option("--profile-timeout-ms",
                   profile_timeout_ms,
                   "Give up on one profile after this long (default 180000)")
        ->check(CLI::Range(1000, 86400000))
        ->group(group);
}

nsight_options nsight_args::options(const std::string& replay_from) const
{
    nsight_options n;
    n.enabled = use_nsight;
    n.budget = profile_budget;
    if (!ncu.empty())
        n.profiler.ncu = ncu;
    n.profiler.timeout = std::chrono::milliseconds(profile_timeout_ms);
    if (!n.enabled)
        return n;
    if (!replay_from.empty())
    {
        n.recorded_profiles = std::filesystem::path(replay_from) / "profiles";
        return n;
    }
    std::vector<std::string> looked;
    if (!find_ncu(n.profiler.ncu, &looked))
    {
        log_warn("--use-nsight: " + ncu_missing_message(looked) + "; the run goes on without profiles");
        n.enabled = false;
    }
    return n;
}

}  // namespace warpsmith
