#pragma once

// `warpsmith bench-strategies SUITE.json` (SPEC §7; docs/bench-strategies.md): every run of a suite
// is a `warpsmith tune` or `warpsmith optimize` child process of the same binary, one after the
// other, each with its own run directory under <results>/bench-<suite>/. After each run its run
// directory is read back (run_view.hpp) into the database (bench_database.hpp); at the end the
// comparison table is queried and returned.
//
// Why a process per run rather than the engine in-process: tune and optimize each assemble their
// run (workload parts, provider, evaluation cache, tune files, roofline, final summary) in their
// command files, and a child process reuses all of that unchanged, so a suite run is exactly the
// command a user would type (stored with the run). A run that crashes, hangs its workers or leaks
// GPU memory cannot disturb the runs after it, and every run starts from the same clean state,
// which fair comparisons need. The cost is one process start per run (milliseconds against
// minutes of search).
//
// Ctrl-C: the first is passed to the running child (which finalizes its run, exit 130), no further
// run starts, the table is printed and the command exits 130; a second one is passed on too (the
// child aborts at once; its journal is intact). Children run in their own process group so that a
// terminal's Ctrl-C reaches them only through this forwarding, exactly once per press.

#include "engine/report/bench_database.hpp"
#include "engine/report/strategy_suite.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace warpsmith::report
{

struct bench_options
{
    std::filesystem::path suite_file;
    std::filesystem::path db = "results/bench-strategies.sqlite";
    std::filesystem::path results = "results";  ///< Runs go to <results>/bench-<suite name>/.
    std::vector<std::string> run_args;          ///< Appended to every run (--run-arg).
    std::filesystem::path program;              ///< The warpsmith binary (default: this process's).
    std::string command_line;                   ///< Stored with the session.
    double status_interval_s = 30;              ///< Progress of a long run, at most this often.
    /// Progress lines (default: stderr).
    std::function<void(const std::string&)> progress;
};

struct bench_outcome
{
    int exit_code = 0;  ///< 0, or 130 when interrupted.
    std::int64_t session = 0;
    std::vector<table_row> table;
    int runs = 0;
    int failed_runs = 0;
};

/// Runs the suite. Throws user_error for a bad suite or database, and when a run rejects its
/// command line (exit code 2: a bad flag in the suite's options), naming the run.
bench_outcome run_strategy_bench(const bench_options& opts);

/// "warpsmith tune ... --seed 1 ..." with shell quoting where needed.
std::string shell_command(const std::filesystem::path& program, const std::vector<std::string>& args);

}  // namespace warpsmith::report
