#include "engine/cli/timing_args.hpp"

#include "engine/cli/cli_app.hpp"

#include <CLI/CLI.hpp>
#include <sstream>

namespace warpsmith
{

namespace
{

std::string percent(double fraction)
{
    std::ostringstream s;
    s << fraction * 100 << "%";
    return s.str();
}

}  // namespace

void timing_args::add_to(CLI::App& cmd, const std::string& group)
{
    CLI::Option* options[] = {
        cmd.add_option("--timing", mode, "cold (L2 scrubbed before each launch, default) or hot")
            ->check(CLI::IsMember({"cold", "hot"})),
        cmd.add_option("--warmup",
                       warmup,
                       "Most warm-up launches per case (default " + std::to_string(default_warmup_launches) +
                           "; they stop once they reach " +
                           std::to_string(static_cast<int>(warmup_budget_ms)) +
                           " ms of the case's fastest validation run)")
            ->check(CLI::Range(0, protocol::max_timing_launches)),
        cmd.add_option(
               "--iterations",
               iterations,
               "The most measured launches per case (default " + std::to_string(default_timed_launches) + ")")
            ->check(CLI::Range(1, protocol::max_timing_launches)),
        cmd.add_option("--target-noise",
                       target_noise,
                       "Stop timing a case after a segment of " + std::to_string(timing_segment_launches) +
                           " launches once the median's 95% confidence interval half-width is below this "
                           "fraction of the median (default " +
                           std::to_string(default_target_rel_noise) + ", i.e. " +
                           percent(default_target_rel_noise) + "; 0 times every launch up to --iterations)")
            ->check(CLI::Range(0.0, 1.0)),
    };
    if (!group.empty())
        for (CLI::Option* o : options)
            o->group(group);
}

timing_options timing_args::options() const
{
    timing_options t;
    t.mode = protocol::timing_mode_from(mode).value_or(protocol::timing_mode::cold);
    t.warmup = warmup;
    t.iterations = iterations;
    t.target_rel_noise = target_noise;
    return t;
}

}  // namespace warpsmith
