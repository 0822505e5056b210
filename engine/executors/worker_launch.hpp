#pragma once

// How to start a warpsmith-worker: the local binary, or any launcher command (`--worker-cmd`,
// SPEC §1 "Beyond one machine"), e.g. "ssh gpu7 warpsmith-worker" or
// "srun --gres=gpu:1 warpsmith-worker". A command template is run through /bin/sh -c; "{device}" in
// it is replaced by the device index, otherwise " --device K" is appended (GPU mode) or
// " --compile" (compile mode).

#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct worker_launch
{
    std::string worker_binary;            ///< Local warpsmith-worker (default: next to warpsmith).
    std::optional<std::string> command;   ///< --worker-cmd template, when given.
    std::vector<std::string> extra_args;  ///< e.g. {"--cache-dir", "..."}.

    /// argv for a GPU worker of device k / a compile worker.
    std::vector<std::string> gpu_argv(int device) const;
    std::vector<std::string> compile_argv() const;

    /// The warpsmith-worker next to the running executable (/proc/self/exe), else on PATH.
    static std::string default_worker_binary();
};

}  // namespace warpsmith
