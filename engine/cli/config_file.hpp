#pragma once

// --config FILE (docs/cli.md): a JSON object mirroring a command's flags ({"max-iterations": 7,
// "gpus": "0,1", "nvidia-research": true}); keys are flag names without the dashes ('_' may stand
// for '-'), arrays give a flag several values, and a flag given on the command line wins.

#include <CLI/CLI.hpp>
#include <string>

namespace warpsmith
{

/// Adds the values of the config file `path` to the options of `cmd` that the command line left
/// unset, and runs their callbacks. Throws user_error naming the file and key for anything that is
/// not a flag of `cmd` (or names another config file) and for values the flag refuses.
void apply_config_file(CLI::App& cmd, const std::string& path);

}  // namespace warpsmith
