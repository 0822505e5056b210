#pragma once

// The timing flags every command that times kernels shares (eval, optimize, tune): --timing,
// --warmup, --iterations, --target-noise. Registered here once, with the defaults of
// harness/core/defaults.hpp; docs/cli.md describes them.

#include "engine/executors/gpu_executor.hpp"
#include "harness/core/defaults.hpp"

#include <string>

namespace CLI
{
class App;
}

namespace warpsmith
{

struct timing_args
{
    std::string mode = "cold";
    int warmup = default_warmup_launches;
    int iterations = default_timed_launches;
    double target_noise = default_target_rel_noise;

    /// Registers the four flags on cmd, in `group` when it is not empty.
    void add_to(CLI::App& cmd, const std::string& group = "");
    /// The evaluate request's timing options these flags ask for.
    timing_options options() const;
};

}  // namespace warpsmith
