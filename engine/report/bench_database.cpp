#include "engine/report/bench_database.hpp"

#include "engine/report/heatmap.hpp"
#include "engine/run/journal.hpp"
#include "harness/core/error.hpp"

#include <boost/json/serialize.hpp>

#include <cstdio>
#include <sqlite3.h>
#include <unistd.h>

namespace warpsmith::report
{

namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

constexpr int schema_version = 1;

constexpr const char* schema = R"SQL(
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id           INTEGER PRIMARY KEY,
  suite        TEXT NOT NULL,     -- the suite's "name"
  suite_path   TEXT NOT NULL,
  suite_json   TEXT NOT NULL,     -- the suite as run (paths resolved)
  command_line TEXT NOT NULL,
  host         TEXT,
  tool_version TEXT NOT NULL,
  started      TEXT NOT NULL,     -- UTC, ISO 8601
  ended        TEXT,
  status       TEXT NOT NULL      -- running, finished, interrupted, failed
);
CREATE TABLE IF NOT EXISTS runs (
  id                   INTEGER PRIMARY KEY,
  session_id           INTEGER NOT NULL REFERENCES sessions(id),
  suite                TEXT NOT NULL,
  strategy             TEXT NOT NULL,   -- the suite's strategy name (table row label)
  provider             TEXT NOT NULL,   -- autotune, scripted, openai, openai-chat, ...
  strategy_kind        TEXT,            -- --strategy: anneal, genetic, refine, ...
  options              TEXT NOT NULL,   -- JSON: the strategy's extra flags
  workload             TEXT NOT NULL,   -- workload name
  workload_path        TEXT NOT NULL,
  seed                 INTEGER NOT NULL,
  budget               TEXT NOT NULL,   -- JSON: the suite's budget
  command              TEXT NOT NULL,   -- JSON array: the warpsmith arguments of the run
  run_dir              TEXT,            -- results/bench-<suite>/run-NNN (NULL: no run started)
  exit_code            INTEGER,
  status               TEXT NOT NULL,   -- finished, interrupted, failed, incomplete, error
  stop_reason          TEXT,
  error                TEXT,
  device               TEXT,
  best_id              TEXT,            -- winning candidate, 'initial', or NULL (nothing valid)
  best_score_us        REAL,
  best_speedup         REAL,            -- geomean speedup over the reference (confirmed if confirmed)
  roofline_fraction    REAL,            -- geomean over cases of floor / time, 0..1
  time_to_best_s       REAL,            -- seconds from run start to the winner's evaluation
  time_to_best_evals   INTEGER,         -- the winner's evaluation index (1-based; 0: initial)
  candidates_proposed  INTEGER,
  candidates_evaluated INTEGER,
  candidates_valid     INTEGER,
  valid_fraction       REAL,
  tokens_input         INTEGER,
  tokens_output        INTEGER,
  tokens               INTEGER,         -- input + output
  cost_usd             REAL,
  wall_seconds         REAL,
  gpu_busy_fraction    REAL,
  started              TEXT,
  ended                TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_id);
CREATE INDEX IF NOT EXISTS runs_by_strategy ON runs(suite, strategy, workload);
CREATE TABLE IF NOT EXISTS candidates (
  run_id              INTEGER NOT NULL REFERENCES runs(id),
  candidate           TEXT NOT NULL,    -- c0001, ...
  evaluation          INTEGER,          -- 1-based finish order (NULL: pending)
  branch              INTEGER,
  iteration           INTEGER,
  parent              TEXT,
  status              TEXT NOT NULL,    -- valid, invalid, pending
  failure_kind        TEXT,
  score_us            REAL,
  speedup             REAL,             -- over the reference on the same GPU
  elapsed_s           REAL,             -- seconds from run start to its result
  gpu                 INTEGER,
  registers           INTEGER,
  spill_bytes         INTEGER,
  static_shared_bytes INTEGER,
  case_median_us      TEXT,             -- JSON {"case": median}
  rationale           TEXT,
  PRIMARY KEY (run_id, candidate)
);
)SQL";

constexpr const char* table_query = R"SQL(
SELECT strategy, workload, COUNT(*) AS runs, COUNT(best_speedup) AS runs_with_best,
       AVG(best_speedup), MIN(best_speedup), MAX(best_speedup),
       AVG(roofline_fraction) * 100, MIN(roofline_fraction) * 100, MAX(roofline_fraction) * 100,
       AVG(time_to_best_s), MIN(time_to_best_s), MAX(time_to_best_s),
       AVG(candidates_evaluated), MIN(candidates_evaluated), MAX(candidates_evaluated),
       AVG(valid_fraction) * 100, MIN(valid_fraction) * 100, MAX(valid_fraction) * 100,
       AVG(tokens), MIN(tokens), MAX(tokens),
       AVG(cost_usd), MIN(cost_usd), MAX(cost_usd)
FROM runs
WHERE session_id = ?1
GROUP BY strategy, workload
ORDER BY MIN(id);
)SQL";

/// A prepared statement that finalizes itself.
class statement
{
public:
    statement(sqlite3* db, const char* sql, const fs::path& file) : db_(db), file_(file)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
            throw user_error(file.string() + ": " + sqlite3_errmsg(db));
    }
    ~statement() { sqlite3_finalize(stmt_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;

    statement& bind(int i, const std::string& s)
    {
        check(sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT));
        return *this;
    }
    statement& bind(int i, std::int64_t x)
    {
        check(sqlite3_bind_int64(stmt_, i, x));
        return *this;
    }
    statement& bind(int i, double x)
    {
        check(sqlite3_bind_double(stmt_, i, x));
        return *this;
    }
    statement& bind_null(int i)
    {
        check(sqlite3_bind_null(stmt_, i));
        return *this;
    }
    template <class T>
    statement& bind(int i, const std::optional<T>& x)
    {
        if (!x)
            return bind_null(i);
        if constexpr (std::is_floating_point_v<T>)
            return bind(i, static_cast<double>(*x));
        else if constexpr (std::is_integral_v<T>)
            return bind(i, static_cast<std::int64_t>(*x));
        else
            return bind(i, std::string(*x));
    }
    /// Makes the statement ready to run again with new bindings.
    void reset()
    {
        sqlite3_reset(stmt_);
        sqlite3_clear_bindings(stmt_);
    }
    /// Steps once; true while a row is available.
    bool step()
    {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW)
            return true;
        if (rc != SQLITE_DONE)
            throw user_error(file_.string() + ": " + sqlite3_errmsg(db_));
        return false;
    }
    std::optional<double> real(int col) const
    {
        if (sqlite3_column_type(stmt_, col) == SQLITE_NULL)
            return std::nullopt;
        return sqlite3_column_double(stmt_, col);
    }
    std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
    std::string text(int col) const
    {
        const auto* p = sqlite3_column_text(stmt_, col);
        return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
    }

private:
    void check(int rc)
    {
        if (rc != SQLITE_OK)
            throw user_error(file_.string() + ": " + sqlite3_errmsg(db_));
    }
    sqlite3* db_;
    const fs::path& file_;
    sqlite3_stmt* stmt_ = nullptr;
};

std::string host_name()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

std::string json_args(const std::vector<std::string>& args)
{
    json::array a;
    for (const auto& s : args)
        a.push_back(json::value(s));
    return json::serialize(a);
}

}  // namespace

const char* bench_database::schema_sql()
{
    return schema;
}

const char* bench_database::table_sql()
{
    return table_query;
}

bench_database::bench_database(const fs::path& file) : file_(file)
{
    std::error_code ec;
    if (file.has_parent_path())
        fs::create_directories(file.parent_path(), ec);
    if (ec)
        throw user_error("--db " + file.string() + ": cannot create " + file.parent_path().string() + ": " +
                         ec.message());
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
    {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw user_error("--db " + file.string() + ": cannot open: " + msg);
    }
    // Several benchmarks (or a reader) may use one file: wait for locks rather than fail at once.
    sqlite3_busy_timeout(db_, 10000);
    try
    {
        exec("PRAGMA foreign_keys = ON");
        exec(schema);
        {
            statement get(db_, "SELECT value FROM meta WHERE key = 'schema_version'", file_);
            if (get.step())
            {
                const int v = std::atoi(get.text(0).c_str());
                if (v > schema_version)
                    throw user_error("--db " + file.string() + ": schema version " + std::to_string(v) +
                                     " is newer than this warpsmith's (" + std::to_string(schema_version) +
                                     ")");
            }
            else
                exec("INSERT INTO meta(key, value) VALUES ('schema_version', '" +
                     std::to_string(schema_version) + "')");
        }
    }
    catch (...)
    {
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

bench_database::~bench_database()
{
    if (db_)
        sqlite3_close(db_);
}

void bench_database::exec(const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK)
    {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        // "file is not a database" and the like: the --db file is something else.
        throw user_error("--db " + file_.string() + ": " + msg);
    }
}

std::int64_t bench_database::begin_session(const strategy_suite& suite, const std::string& command_line)
{
    statement s(db_,
                "INSERT INTO sessions(suite, suite_path, suite_json, command_line, host, tool_version, "
                "started, status) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running')",
                file_);
    s.bind(1, suite.name)
        .bind(2, suite.file.string())
        .bind(3, json::serialize(suite.json))
        .bind(4, command_line)
        .bind(5, host_name())
        .bind(6, std::string(WARPSMITH_VERSION))
        .bind(7, utc_timestamp());
    s.step();
    return sqlite3_last_insert_rowid(db_);
}

void bench_database::end_session(std::int64_t session, const std::string& status)
{
    statement s(db_, "UPDATE sessions SET ended = ?1, status = ?2 WHERE id = ?3", file_);
    s.bind(1, utc_timestamp()).bind(2, status).bind(3, session);
    s.step();
}

std::int64_t bench_database::add_run(std::int64_t session,
                                     const strategy_suite& suite,
                                     const planned_run& plan,
                                     int exit_code,
                                     const std::string& error,
                                     const std::string& started,
                                     const std::string& ended,
                                     const std::optional<run_view>& view)
{
    exec("BEGIN IMMEDIATE");
    try
    {
        std::optional<run_metrics> m;
        if (view)
            m = metrics_of(*view);
        statement s(
            db_,
            "INSERT INTO runs(session_id, suite, strategy, provider, strategy_kind, options, workload, "
            "workload_path, seed, budget, command, run_dir, exit_code, status, stop_reason, error, device, "
            "best_id, best_score_us, best_speedup, roofline_fraction, time_to_best_s, time_to_best_evals, "
            "candidates_proposed, candidates_evaluated, candidates_valid, valid_fraction, tokens_input, "
            "tokens_output, tokens, cost_usd, wall_seconds, gpu_busy_fraction, started, ended) VALUES "
            "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
            "?21, "
            "?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35)",
            file_);
        const auto& st = *plan.strategy;
        s.bind(1, session)
            .bind(2, suite.name)
            .bind(3, st.name)
            .bind(4, st.provider)
            .bind(
                5,
                st.strategy.empty() ? std::optional<std::string>() : std::optional<std::string>(st.strategy))
            .bind(6, json::serialize(st.options_json))
            .bind(7, plan.workload->name)
            .bind(8, plan.workload->path)
            .bind(9, static_cast<std::int64_t>(plan.seed))
            .bind(10, json::serialize(suite.budget.to_json()))
            .bind(11, json_args(plan.args))
            .bind(12, view ? std::optional<std::string>(view->dir.string()) : std::nullopt)
            .bind(13, static_cast<std::int64_t>(exit_code))
            .bind(14, m ? m->status : std::string("error"))
            .bind(15,
                  m && !m->stop_reason.empty() ? std::optional<std::string>(m->stop_reason) : std::nullopt)
            .bind(16, error.empty() ? std::optional<std::string>() : std::optional<std::string>(error))
            .bind(17, m && !m->device.empty() ? std::optional<std::string>(m->device) : std::nullopt)
            .bind(18, m ? m->best_id : std::nullopt)
            .bind(19, m ? m->best_score_us : std::nullopt)
            .bind(20, m ? m->best_speedup : std::nullopt)
            .bind(21, m ? m->roofline_fraction : std::nullopt)
            .bind(22, m ? m->time_to_best_s : std::nullopt)
            .bind(23, m ? m->time_to_best_evals : std::nullopt)
            .bind(24, m ? std::optional<int>(m->proposed) : std::nullopt)
            .bind(25, m ? std::optional<int>(m->evaluated) : std::nullopt)
            .bind(26, m ? std::optional<int>(m->valid) : std::nullopt)
            .bind(27, m ? m->valid_fraction : std::nullopt)
            .bind(28, m ? std::optional<std::int64_t>(m->tokens_input) : std::nullopt)
            .bind(29, m ? std::optional<std::int64_t>(m->tokens_output) : std::nullopt)
            .bind(30, m ? std::optional<std::int64_t>(m->tokens_input + m->tokens_output) : std::nullopt)
            .bind(31, m ? std::optional<double>(m->cost_usd) : std::nullopt)
            .bind(32, m ? m->wall_seconds : std::nullopt)
            .bind(33, m ? m->gpu_busy_fraction : std::nullopt)
            .bind(34, started)
            .bind(35, ended);
        s.step();
        const std::int64_t run_id = sqlite3_last_insert_rowid(db_);
        if (view)
        {
            statement c(
                db_,
                "INSERT INTO candidates(run_id, candidate, evaluation, branch, iteration, parent, status, "
                "failure_kind, score_us, speedup, elapsed_s, gpu, registers, spill_bytes, "
                "static_shared_bytes, "
                "case_median_us, rationale) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                "?14, ?15, ?16, ?17)",
                file_);
            for (const auto& rc : view->candidates)
            {
                const auto& ec = rc.rec.ec;
                json::object medians;
                for (const auto& [k, x] : ec.case_median_us)
                    medians[k] = x;
                const bool compiled = rc.rec.compiled && ec.compile.compiled;
                const auto& res = ec.compile.resources;
                c.bind(1, run_id)
                    .bind(2, rc.id())
                    .bind(3, rc.pending() ? std::optional<int>() : std::optional<int>(rc.evaluation_index))
                    .bind(4, static_cast<std::int64_t>(ec.branch))
                    .bind(5, static_cast<std::int64_t>(ec.iteration))
                    .bind(6, ec.parent)
                    .bind(7,
                          std::string(rc.pending() ? "pending"
                                      : ec.valid   ? "valid"
                                                   : "invalid"))
                    .bind(8,
                          !rc.pending() && !ec.valid ? std::optional<std::string>(ec.failure_kind)
                                                     : std::nullopt)
                    .bind(9, rc.valid() ? std::optional<double>(ec.score_us) : std::nullopt)
                    .bind(10,
                          rc.valid() && ec.speedup_vs_reference > 0
                              ? std::optional<double>(ec.speedup_vs_reference)
                              : std::nullopt)
                    .bind(11, rc.evaluated_at_s)
                    .bind(12, rc.rec.gpu >= 0 ? std::optional<int>(rc.rec.gpu) : std::nullopt)
                    .bind(13, compiled ? std::optional<int>(res.registers) : std::nullopt)
                    .bind(14,
                          compiled ? std::optional<int>(res.spill_stores_bytes + res.spill_loads_bytes)
                                   : std::nullopt)
                    .bind(15, compiled ? std::optional<int>(res.static_shared_bytes) : std::nullopt)
                    .bind(16,
                          rc.valid() ? std::optional<std::string>(json::serialize(medians)) : std::nullopt)
                    .bind(17, ec.rationale);
                c.step();
                c.reset();
            }
        }
        exec("COMMIT");
        return run_id;
    }
    catch (...)
    {
        char* err = nullptr;
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, &err);
        sqlite3_free(err);
        throw;
    }
}

std::vector<table_row> bench_database::table(std::int64_t session)
{
    std::vector<table_row> out;
    statement s(db_, table_query, file_);
    s.bind(1, session);
    while (s.step())
    {
        table_row r;
        r.strategy = s.text(0);
        r.workload = s.text(1);
        r.runs = static_cast<int>(s.int64(2));
        r.runs_with_best = static_cast<int>(s.int64(3));
        int col = 4;
        for (auto* st : {&r.speedup,
                         &r.roofline_pct,
                         &r.time_to_best_s,
                         &r.evaluated,
                         &r.valid_pct,
                         &r.tokens,
                         &r.cost_usd})
        {
            st->mean = s.real(col);
            st->min = s.real(col + 1);
            st->max = s.real(col + 2);
            col += 3;
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::optional<std::int64_t> bench_database::latest_session(const std::string& suite_name)
{
    statement s(
        db_, "SELECT MAX(id) FROM sessions WHERE suite = ?1 AND id IN (SELECT session_id FROM runs)", file_);
    s.bind(1, suite_name);
    if (s.step() && s.real(0))
        return s.int64(0);
    return std::nullopt;
}

namespace
{

std::string stat_text(const table_row::stat& s, const char* f, const char* suffix, int runs)
{
    if (!s.mean)
        return "-";
    auto one = [&](double x)
    {
        char buf[48];
        std::snprintf(buf, sizeof buf, f, x);
        return std::string(buf);
    };
    std::string out = one(*s.mean) + suffix;
    if (runs > 1 && s.min && s.max && one(*s.min) != one(*s.max))
        out += " (" + one(*s.min) + "-" + one(*s.max) + ")";
    return out;
}

}  // namespace

std::string format_table(const std::vector<table_row>& rows)
{
    struct column
    {
        std::string head;
        bool left;
    };
    const std::vector<column> cols{{"strategy", true},
                                   {"workload", true},
                                   {"runs", false},
                                   {"speedup", false},
                                   {"% roofline", false},
                                   {"time to best (s)", false},
                                   {"evaluated", false},
                                   {"valid %", false},
                                   {"tokens", false},
                                   {"cost ($)", false}};
    std::vector<std::vector<std::string>> cells;
    for (const auto& r : rows)
    {
        const int n = r.runs;
        cells.push_back(
            {r.strategy,
             r.workload,
             std::to_string(r.runs) + (r.runs_with_best < r.runs
                                           ? " (" + std::to_string(r.runs - r.runs_with_best) + " no valid)"
                                           : ""),
             stat_text(r.speedup, "%.2f", "x", n),
             stat_text(r.roofline_pct, "%.0f", "%", n),
             stat_text(r.time_to_best_s, "%.2f", "", n),
             stat_text(r.evaluated, "%.0f", "", n),
             stat_text(r.valid_pct, "%.0f", "%", n),
             stat_text(r.tokens, "%.0f", "", n),
             stat_text(r.cost_usd, "%.4f", "", n)});
    }
    std::vector<std::size_t> width(cols.size());
    for (std::size_t j = 0; j < cols.size(); ++j)
    {
        width[j] = cols[j].head.size();
        for (const auto& row : cells)
            width[j] = std::max(width[j], row[j].size());
    }
    auto line = [&](const std::vector<std::string>& row)
    {
        std::string out;
        for (std::size_t j = 0; j < cols.size(); ++j)
        {
            const auto pad = std::string(width[j] - row[j].size(), ' ');
            out += (j ? "  " : "") + (cols[j].left ? row[j] + pad : pad + row[j]);
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        return out + "\n";
    };
    std::vector<std::string> head;
    head.reserve(cols.size());
    for (const auto& c : cols)
        head.push_back(c.head);
    std::string out = line(head);
    for (const auto& row : cells)
        out += line(row);
    return out;
}

}  // namespace warpsmith::report
