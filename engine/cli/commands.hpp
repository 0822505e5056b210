#pragma once

// The subcommands of `warpsmith`. Each add_*_command registers one subcommand, its options, its
// --help text (with an example in the footer) and its callback on the top-level app. main.cpp calls
// them in order; adding a command is one declaration here, one call in main.cpp and one source file
// in engine/cli/CMakeLists.txt. Helpers every command uses (exit codes, the io_context runner,
// worker options, number checks) are in engine/cli/cli_app.hpp; numbered output directories
// (results/eval-NNN) in engine/run/run_directory.hpp; what optimize and tune share in
// engine/cli/search_session.hpp.

namespace CLI
{
class App;
}

namespace warpsmith
{

void add_device_info_command(CLI::App& app);       ///< device_info_command.cpp
void add_compile_command(CLI::App& app);           ///< compile_command.cpp
void add_eval_command(CLI::App& app);              ///< eval_command.cpp
void add_run_command(CLI::App& app);               ///< run_command.cpp
void add_optimize_command(CLI::App& app);          ///< optimize_command.cpp
void add_tune_command(CLI::App& app);              ///< tune_command.cpp
void add_report_command(CLI::App& app);            ///< report_command.cpp
void add_profile_command(CLI::App& app);           ///< profile_command.cpp
void add_bench_strategies_command(CLI::App& app);  ///< bench_strategies_command.cpp

}  // namespace warpsmith
