// warpsmith: the command-line program. Commands are registered here, in the order `--help` lists
// them; each lives in its own file (engine/cli/commands.hpp).

#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"

#include <CLI/CLI.hpp>

int main(int argc, char** argv)
{
    auto add_commands = [](CLI::App& app)
    {
        warpsmith::add_device_info_command(app);
        warpsmith::add_compile_command(app);
        warpsmith::add_eval_command(app);
        warpsmith::add_run_command(app);
        warpsmith::add_optimize_command(app);
        warpsmith::add_tune_command(app);
        warpsmith::add_report_command(app);
        warpsmith::add_profile_command(app);
        warpsmith::add_bench_strategies_command(app);
    };
    return warpsmith::cli_main(argc, argv, add_commands);
}
