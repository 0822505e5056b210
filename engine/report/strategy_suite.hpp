#pragma once

// A strategy benchmark suite (SPEC §7; docs/bench-strategies.md): strategies x workloads x seeds
// under one budget. Parsing checks everything before any run starts (one user_error line naming the
// file and field), and planning turns the suite into the `warpsmith tune` / `warpsmith optimize`
// command line of every run, so what a run did is always a command a user can repeat.
//
//   {"name": "autotune-sgemm",
//    "workloads": ["../workloads/sgemm"],            paths relative to the suite file
//    "seeds": [1, 2, 3],
//    "budget": {"candidates": 60, "wall_seconds": 900, "iterations": 10, "tokens": 2e6, "cost_usd": 5},
//    "options": {"gpus": "0"},                        flags given to every run (suite_options.hpp)
//    "share_eval_cache": false,                       tune runs: --no-eval-cache unless true
//    "strategies": [{"name": "anneal", "provider": "autotune", "strategy": "anneal"},
//                   {"name": "mine", "provider": "scripted", "options": {"candidates": "../kernels"}},
//                   {"name": "qwen", "provider": "openai-chat", "strategy": "refine",
//                    "options": {"base-url": "http://127.0.0.1:8000/v1", "model": "qwen2.5-coder"}}]}

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::report
{

struct suite_budget
{
    std::optional<std::int64_t> candidates;
    std::optional<std::int64_t> iterations;
    std::optional<double> wall_seconds;
    std::optional<std::int64_t> tokens;
    std::optional<double> cost_usd;

    boost::json::object to_json() const;
};

/// One flag of a run: "--name" with zero (a true boolean) or one value.
struct suite_flag
{
    std::string name;  ///< Without the leading dashes.
    std::optional<std::string> value;
};

struct suite_strategy
{
    std::string name;                  ///< Unique label in the table and the database.
    std::string provider;              ///< autotune, scripted, openai, openai-chat, replay, ...
    std::string strategy;              ///< --strategy (autotune: grid/random/local/anneal/genetic).
    std::vector<suite_flag> options;   ///< Extra flags of this strategy's runs.
    boost::json::object options_json;  ///< As written in the suite (paths resolved).

    bool is_tune() const { return provider == "autotune"; }
};

struct suite_workload
{
    std::string path;  ///< Absolute.
    std::string name;  ///< workload.json "name" (the directory name when unreadable).
};

struct strategy_suite
{
    std::filesystem::path file;
    std::string name;
    std::string description;
    std::vector<suite_workload> workloads;
    std::vector<std::uint64_t> seeds;
    suite_budget budget;
    std::vector<suite_flag> options;  ///< Flags given to every run.
    bool share_eval_cache = false;
    std::vector<suite_strategy> strategies;
    boost::json::object json;  ///< The suite as read (stored with every session).
};

/// Parses suite JSON; `dir` resolves relative paths. Throws user_error "<origin>: <field>: ...".
strategy_suite parse_strategy_suite(const boost::json::value& v,
                                    const std::filesystem::path& dir,
                                    std::string_view origin);
/// Reads and parses a suite file; checks that every workload exists.
strategy_suite load_strategy_suite(const std::filesystem::path& file);

/// One run of the suite: a strategy on a workload with a seed.
struct planned_run
{
    std::size_t index = 0;  ///< 0-based, in execution order.
    const suite_strategy* strategy = nullptr;
    const suite_workload* workload = nullptr;
    std::uint64_t seed = 0;
    std::vector<std::string> args;  ///< After the program name: "tune" or "optimize", ...

    std::string label() const;  ///< "anneal on sgemm, seed 2".
};

/// Every run in execution order: seeds outermost, then workloads, then strategies (so that slow
/// drift of the machine, such as temperature, spreads over all strategies alike). results_dir is
/// the --results of every run; extra_args are appended to every run (e.g. --worker PATH).
std::vector<planned_run> plan_runs(const strategy_suite& suite,
                                   const std::filesystem::path& results_dir,
                                   const std::vector<std::string>& extra_args);

}  // namespace warpsmith::report
