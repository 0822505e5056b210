#pragma once

// The results database of `warpsmith bench-strategies` (SPEC §7; docs/bench-strategies.md,
// "Database"): an SQLite file where sessions, runs and candidates accumulate, so strategies can be
// compared across days and machines with plain SQL. The schema (schema_sql()) is created when
// missing and versioned in the `meta` table. The comparison table is computed by SQL too
// (table_sql()), so the table the command prints is exactly what the documented query returns.

#include "engine/report/run_metrics.hpp"
#include "engine/report/run_view.hpp"
#include "engine/report/strategy_suite.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace warpsmith::report
{

/// One row of the comparison table: a strategy on a workload, aggregated over seeds.
struct table_row
{
    std::string strategy;
    std::string workload;
    int runs = 0;
    int runs_with_best = 0;  ///< Runs that found a valid kernel.
    struct stat
    {
        std::optional<double> mean, min, max;
    };
    stat speedup, roofline_pct, time_to_best_s, evaluated, valid_pct, tokens, cost_usd;
};

class bench_database
{
public:
    /// Opens (creating the file and its directory when needed) and creates the schema. Throws
    /// user_error naming the file when it cannot be opened, is not SQLite, or has a newer schema.
    explicit bench_database(const std::filesystem::path& file);
    ~bench_database();
    bench_database(const bench_database&) = delete;
    bench_database& operator=(const bench_database&) = delete;

    /// A new session (one `bench-strategies` invocation); returns its id.
    std::int64_t begin_session(const strategy_suite& suite, const std::string& command_line);
    void end_session(std::int64_t session, const std::string& status);

    /// A run: its plan, outcome and metrics, and one row per candidate of its run directory (when
    /// there is one). Returns the run id. Written in one transaction.
    std::int64_t add_run(std::int64_t session,
                         const strategy_suite& suite,
                         const planned_run& plan,
                         int exit_code,
                         const std::string& error,
                         const std::string& started,
                         const std::string& ended,
                         const std::optional<run_view>& view);

    /// The comparison table of a session (aggregated over seeds), in suite order.
    std::vector<table_row> table(std::int64_t session);
    /// The most recent session of a suite (by name), if any.
    std::optional<std::int64_t> latest_session(const std::string& suite_name);

    sqlite3* handle() { return db_; }
    const std::filesystem::path& file() const { return file_; }

    /// CREATE statements of the schema (docs/bench-strategies.md shows them).
    static const char* schema_sql();
    /// The query behind the comparison table; parameter ?1 is the session id.
    static const char* table_sql();

private:
    void exec(const std::string& sql);

    std::filesystem::path file_;
    sqlite3* db_ = nullptr;
};

/// The table as text, one line per row:
///   strategy  workload  runs  speedup  % roofline  time to best (s)  evaluated  valid %  tokens  cost ($)
/// each aggregate as "mean (min-max)" over seeds.
std::string format_table(const std::vector<table_row>& rows);

}  // namespace warpsmith::report
