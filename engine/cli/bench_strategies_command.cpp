// warpsmith bench-strategies SUITE.json: strategies x workloads x seeds under equal budgets
// (SPEC §7; docs/bench-strategies.md). Each run is a `warpsmith tune` / `warpsmith optimize` child
// of this binary (engine/report/strategy_bench.hpp says why); results accumulate in an SQLite file
// and one comparison table is printed at the end.

#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/report/bench_database.hpp"
#include "engine/report/strategy_bench.hpp"
#include "harness/core/error.hpp"
#include "harness/core/terminal_text.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace warpsmith
{

namespace fs = std::filesystem;

namespace
{

struct bench_args
{
    std::string suite;
    std::string db = "results/bench-strategies.sqlite";
    std::string results = "results";
    std::vector<std::string> run_args;
    bool dry_run = false;
    bool show = false;
    std::int64_t session = 0;
    bool sql = false;
    CLI::App* cmd = nullptr;
};

std::string command_line()
{
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string arg, out;
    while (std::getline(f, arg, '\0'))
        out += (out.empty() ? "" : " ") + arg;
    return out;
}

void print(const std::string& raw)
{
    // Suite names, options and run statuses are text from the suite's author.
    const std::string s = terminal_text(raw);
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
}

int run_bench(const bench_args& a)
{
    if (a.sql)
    {
        print(std::string("-- schema\n") + report::bench_database::schema_sql() +
              "\n-- the comparison table of session ?1\n" + report::bench_database::table_sql());
        return 0;
    }
    if (a.suite.empty())
        throw user_error("bench-strategies: give a SUITE.json (e.g. bench/suites/autotune-sgemm.json)");
    if (a.dry_run)
    {
        const auto suite = report::load_strategy_suite(a.suite);
        const auto plan =
            report::plan_runs(suite, fs::absolute(fs::path(a.results) / ("bench-" + suite.name)), a.run_args);
        for (const auto& r : plan)
            print("# " + r.label() + "\n" + report::shell_command("warpsmith", r.args) + "\n");
        return 0;
    }
    if (a.show)
    {
        const auto suite = report::load_strategy_suite(a.suite);
        std::error_code ec;
        if (!fs::exists(a.db, ec))
            throw user_error("--db " + a.db + ": no such database (run the suite first)");
        report::bench_database db(a.db);
        std::int64_t session = a.session;
        if (session == 0)
        {
            const auto latest = db.latest_session(suite.name);
            if (!latest)
                throw user_error("--db " + a.db + ": no runs of suite '" + suite.name + "' yet");
            session = *latest;
        }
        const auto table = db.table(session);
        if (table.empty())
            throw user_error("--db " + a.db + ": session " + std::to_string(session) + " has no runs");
        print("suite " + suite.name + ", session " + std::to_string(session) + " (" + a.db + ")\n" +
              report::format_table(table));
        return 0;
    }

    report::bench_options o;
    o.suite_file = a.suite;
    o.db = a.db;
    o.results = a.results;
    o.run_args = a.run_args;
    o.command_line = command_line();
    const auto outcome = report::run_strategy_bench(o);
    std::string out = report::format_table(outcome.table);
    out += "session " + std::to_string(outcome.session) + ": " + std::to_string(outcome.runs) +
           (outcome.runs == 1 ? " run" : " runs") +
           (outcome.failed_runs ? " (" + std::to_string(outcome.failed_runs) + " failed)" : "") +
           (outcome.exit_code == 130 ? ", interrupted" : "") + "; database " + a.db +
           " (warpsmith bench-strategies --sql prints the query behind this table)\n";
    print(out);
    return outcome.exit_code;
}

constexpr const char* bench_footer = R"(Example:
  warpsmith bench-strategies bench/suites/autotune-sgemm.json
  warpsmith bench-strategies bench/suites/autotune-sgemm.json --dry-run
  warpsmith bench-strategies bench/suites/smoke.json --db /tmp/smoke.sqlite --run-arg=--worker=build/bin/fake_worker
  warpsmith bench-strategies bench/suites/autotune-sgemm.json --show
  sqlite3 results/bench-strategies.sqlite 'SELECT strategy, seed, best_speedup FROM runs'

Each run is `warpsmith tune` (provider autotune) or `warpsmith optimize` (every other provider) with
the suite's seed and budget, in its own run directory under <results>/bench-<suite>/, each with its
report.html. The table aggregates over seeds: mean (min-max). Ctrl-C stops after the current run
(which finalizes) and prints the table of what ran; exit 130. docs/bench-strategies.md has the suite
format, the database schema and the SQL behind the table.)";

}  // namespace

void add_bench_strategies_command(CLI::App& app)
{
    auto a = std::make_shared<bench_args>();
    CLI::App* cmd = app.add_subcommand(
        "bench-strategies",
        "Compare search strategies on workloads and seeds under equal budgets (SQLite results)");
    a->cmd = cmd;
    cmd->add_option("suite", a->suite, "Suite file (bench/suites/*.json; docs/bench-strategies.md)");
    cmd->add_option("--db", a->db, "SQLite results file (default results/bench-strategies.sqlite)");
    cmd->add_option("--results", a->results, "Run directories go to <DIR>/bench-<suite>/ (default results)");
    cmd->add_option("--run-arg",
                    a->run_args,
                    "One more argument for every run, repeatable: --run-arg=--gpus --run-arg=0,1");
    cmd->add_flag("--dry-run", a->dry_run, "Print every run's command and run nothing");
    cmd->add_flag(
        "--show", a->show, "Print the table of the suite's latest session (or --session N) from --db");
    cmd->add_option("--session", a->session, "With --show: this session instead of the latest");
    cmd->add_flag("--sql", a->sql, "Print the database schema and the query behind the table");
    cmd->footer(bench_footer);
    auto run = [a] { exit_with(run_bench(*a)); };
    cmd->callback(run);
}

}  // namespace warpsmith
