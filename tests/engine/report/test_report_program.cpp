// `warpsmith report` and `warpsmith bench-strategies` as processes, on the fake worker
// (tests/engine/executors/fake_worker.cpp): reports written at the end of optimize and tune and on
// demand, the smoke suite (bench/suites/smoke.json) writing SQLite rows that a query reads back, and
// one-line errors for bad input.

#include "engine/report/png_codec.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/cli/cli_test_support.hpp"
#include "tests/engine/report/report_test_support.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;

namespace
{

std::string fake()
{
    return (bin_dir() / "fake_worker").string();
}

std::vector<std::vector<std::string>> query(const fs::path& db, const std::string& sql)
{
    sqlite3* raw = nullptr;
    BOOST_REQUIRE(sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    BOOST_REQUIRE_MESSAGE(sqlite3_prepare_v2(raw, sql.c_str(), -1, &st, nullptr) == SQLITE_OK,
                          sqlite3_errmsg(raw));
    std::vector<std::vector<std::string>> rows;
    while (sqlite3_step(st) == SQLITE_ROW)
    {
        std::vector<std::string> row;
        for (int i = 0; i < sqlite3_column_count(st); ++i)
        {
            const auto* t = sqlite3_column_text(st, i);
            row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
        }
        rows.push_back(std::move(row));
    }
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return rows;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report_program_suite)

BOOST_AUTO_TEST_CASE(report_renders_a_run_directory_on_demand)
{
    temp_dir cwd;
    synthetic_run run(cwd.path() / "results" / "run-001", {.summary = false});
    auto r = run_warpsmith({"report", "results/run-001"}, cwd.path());
    BOOST_TEST(r.rc == 0, r.err);
    BOOST_TEST(r.out.find("results/run-001: incomplete, 6 candidates") != std::string::npos, r.out);
    for (const char* f : {"heatmap.svg", "heatmap.png", "report.html"})
        BOOST_TEST(fs::exists(run.dir() / f), f);
    const auto png = report::decode_png(slurp(run.dir() / "heatmap.png"), "heatmap.png");
    BOOST_TEST(png.width() > 300);
    BOOST_TEST(slurp(run.dir() / "report.html").find("has no final summary") != std::string::npos);

    auto out = run_warpsmith({"report", "results/run-001", "--out", "elsewhere", "--quiet"}, cwd.path());
    BOOST_TEST(out.rc == 0, out.err);
    BOOST_TEST(out.out.empty());
    BOOST_TEST(fs::exists(cwd.path() / "elsewhere" / "report.html"));

    auto help = run_warpsmith({"report", "--help"}, cwd.path());
    BOOST_TEST(help.out.find("Example:") != std::string::npos);

    for (const auto& args :
         std::vector<std::vector<std::string>>{{"report", "nope"},
                                               {"report", "."},
                                               {"report"},
                                               {"report", "results/run-001", ".", "--out", "x"}})
    {
        auto bad = run_warpsmith(args, cwd.path());
        BOOST_TEST(bad.rc == 2);
        BOOST_TEST(one_error_line(bad.err), bad.err);
    }
}

BOOST_AUTO_TEST_CASE(optimize_and_tune_write_their_reports)
{
    temp_dir cwd;
    const auto smoke = source_dir() / "bench/suites/smoke";
    auto opt = run_warpsmith({"optimize",
                              "--workload",
                              (smoke / "vadd").string(),
                              "--candidates",
                              (smoke / "candidates").string(),
                              "--gpus",
                              "0",
                              "--worker",
                              fake(),
                              "--compile-workers",
                              "1",
                              "--max-iterations",
                              "4",
                              "--confirm-top",
                              "1"},
                             cwd.path());
    BOOST_TEST(opt.rc == 0, opt.err);
    const auto run1 = cwd.path() / "results" / "run-001";
    BOOST_TEST(fs::exists(run1 / "heatmap.png"));
    const auto svg = slurp(run1 / "heatmap.svg");
    BOOST_TEST(svg.find("data-failure=\"mismatch\"") != std::string::npos);
    BOOST_TEST(svg.find("data-failure=\"compile_error\"") != std::string::npos);
    BOOST_TEST(svg.find("class=\"row valid best\" data-id=\"c0003\"") != std::string::npos);
    BOOST_TEST(slurp(run1 / "report.html").find("<section id=\"progress\">") != std::string::npos);

    auto tune = run_warpsmith({"tune",
                               (smoke / "vadd").string(),
                               "--strategy",
                               "random",
                               "--budget",
                               "3",
                               "--gpus",
                               "0",
                               "--worker",
                               fake(),
                               "--compile-workers",
                               "1",
                               "--no-eval-cache"},
                              cwd.path());
    BOOST_TEST(tune.rc == 0, tune.err);
    const auto html = slurp(cwd.path() / "results" / "run-002" / "report.html");
    BOOST_TEST(html.find("<section id=\"tune-curve\">") != std::string::npos);
    BOOST_TEST(html.find("autotune/random") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bench_strategies_runs_the_smoke_suite_into_sqlite)
{
    temp_dir cwd;
    const auto suite = (source_dir() / "bench/suites/smoke.json").string();
    auto r = run_warpsmith(
        {"bench-strategies", suite, "--db", "db/bench.sqlite", "--run-arg=--worker=" + fake()}, cwd.path());
    BOOST_TEST(r.rc == 0, r.err);
    // The table: one row per strategy (aggregated over both seeds).
    BOOST_TEST(r.out.find("strategy  workload    runs  speedup") == 0u, r.out);
    BOOST_TEST(r.out.find("scripted  smoke-vadd     2    2.22x") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("random    smoke-vadd     2    1.67x") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("session 1: 4 runs") != std::string::npos);
    BOOST_TEST(
        r.err.find("[4/4] random on smoke-vadd, seed 2: finished (max_candidates)") != std::string::npos,
        r.err);

    const auto db = cwd.path() / "db" / "bench.sqlite";
    const auto runs = query(db,
                            "SELECT strategy, seed, status, best_id, printf('%.2f', best_speedup), "
                            "candidates_evaluated, valid_fraction, run_dir FROM runs ORDER BY id");
    BOOST_REQUIRE(runs.size() == 4u);
    BOOST_TEST(runs[0][0] == "scripted");
    BOOST_TEST(runs[0][1] == "1");
    BOOST_TEST(runs[0][2] == "finished");
    BOOST_TEST(runs[0][3] == "c0003");
    BOOST_TEST(runs[0][4] == "2.22");
    BOOST_TEST(runs[0][5] == "4");
    BOOST_TEST(runs[0][6] == "0.5");
    BOOST_TEST(runs[1][0] == "random");
    BOOST_TEST(runs[3][1] == "2");
    for (const auto& row : runs)
        BOOST_TEST(fs::exists(fs::path(row[7]) / "report.html"), row[7]);
    const auto cands =
        query(db,
              "SELECT r.strategy, c.candidate, c.status, c.failure_kind FROM candidates c "
              "JOIN runs r ON r.id = c.run_id WHERE r.seed = 1 ORDER BY c.run_id, c.candidate");
    BOOST_REQUIRE(cands.size() == 8u);
    BOOST_TEST(cands[1][2] == "invalid");
    BOOST_TEST(cands[1][3] == "mismatch");
    BOOST_TEST(cands[3][3] == "compile_error");

    // The same table again from the database, and the SQL behind it.
    auto show = run_warpsmith({"bench-strategies", suite, "--db", "db/bench.sqlite", "--show"}, cwd.path());
    BOOST_TEST(show.rc == 0, show.err);
    BOOST_TEST(show.out.find("scripted  smoke-vadd     2    2.22x") != std::string::npos, show.out);
    auto sql = run_warpsmith({"bench-strategies", "--sql"}, cwd.path());
    BOOST_TEST(sql.out.find("GROUP BY strategy, workload") != std::string::npos);

    // A second invocation accumulates into the same file as session 2.
    auto again = run_warpsmith(
        {"bench-strategies", suite, "--db", "db/bench.sqlite", "--run-arg=--worker=" + fake()}, cwd.path());
    BOOST_TEST(again.rc == 0, again.err);
    BOOST_TEST(query(db, "SELECT COUNT(*) FROM runs")[0][0] == "8");
    BOOST_TEST(query(db, "SELECT COUNT(*) FROM sessions WHERE status = 'finished'")[0][0] == "2");

    auto dry = run_warpsmith({"bench-strategies", suite, "--dry-run"}, cwd.path());
    BOOST_TEST(dry.rc == 0, dry.err);
    BOOST_TEST(dry.out.find("# random on smoke-vadd, seed 2\nwarpsmith tune ") != std::string::npos, dry.out);
}

BOOST_AUTO_TEST_CASE(bench_strategies_rejects_bad_input_in_one_line)
{
    temp_dir cwd;
    std::ofstream(cwd.path() / "malformed.json") << "{\"name\": \"x\", \"seeds\": [1,]}";
    std::ofstream(cwd.path() / "unknown.json")
        << R"({"name": "x", "workloads": ["w"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "scripted"}], "extra": 1})";
    fs::create_directories(cwd.path() / "w");
    // A flag the run rejects (a model option on a tune): the run's own one-line error, naming the run.
    std::ofstream(cwd.path() / "badflag.json")
        << R"({"name": "badflag", "workloads": [")" << (source_dir() / "bench/suites/smoke/vadd").string()
        << R"("], "seeds": [1], "budget": {"candidates": 1},
        "strategies": [{"provider": "autotune", "strategy": "random", "options": {"max-tool-rounds": 1}}]})";
    // A flag a suite may not set is refused before any run (docs/bench-strategies.md).
    std::ofstream(cwd.path() / "workercmd.json")
        << R"({"name": "workercmd", "workloads": [")" << (source_dir() / "bench/suites/smoke/vadd").string()
        << R"("], "seeds": [1], "budget": {"candidates": 1}, "options": {"worker-cmd": "touch pwned"},
        "strategies": [{"provider": "autotune", "strategy": "random"}]})";
    // Nor can a value smuggle it in: a bare flag given a value that looks like a flag of its own.
    std::ofstream(cwd.path() / "smuggle.json")
        << R"({"name": "smuggle", "workloads": [")" << (source_dir() / "bench/suites/smoke/vadd").string()
        << R"("], "seeds": [1], "budget": {"candidates": 1},
        "options": {"gpus": "0", "no-measure": "--worker-cmd=touch pwned; false"},
        "strategies": [{"provider": "autotune", "strategy": "random"}]})";
    std::ofstream(cwd.path() / "notdb.sqlite") << std::string(4096, 'z');
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"bench-strategies", "missing.json"}, "missing.json"},
        {{"bench-strategies", "malformed.json"}, "malformed.json:1:"},
        {{"bench-strategies", "unknown.json"}, "unknown.json: extra: unknown key"},
        {{"bench-strategies", "badflag.json", "--db", "b.sqlite", "--run-arg=--worker=" + fake()},
         "random on smoke-vadd, seed 1: the run rejected its command"},
        {{"bench-strategies", "workercmd.json", "--db", "w.sqlite", "--run-arg=--worker=" + fake()},
         "workercmd.json: options.worker-cmd: 'worker-cmd' runs a program"},
        {{"bench-strategies", "smuggle.json", "--db", "s.sqlite", "--run-arg=--worker=" + fake()},
         "random on smoke-vadd, seed 1: the run rejected its command"},
        {{"bench-strategies", (source_dir() / "bench/suites/smoke.json").string(), "--db", "notdb.sqlite"},
         "notdb.sqlite"},
        {{"bench-strategies"}, "give a SUITE.json"},
        {{"bench-strategies",
          (source_dir() / "bench/suites/smoke.json").string(),
          "--show",
          "--db",
          "none.sqlite"},
         "no such database"},
    };
    for (const auto& [args, expected] : cases)
    {
        auto r = run_warpsmith(args, cwd.path());
        const std::string suite = args.size() > 1 ? args[1] : "";  // one case gives no suite at all
        BOOST_TEST(r.rc == 2, suite << ": rc " << r.rc << " " << r.err);
        // A run that rejects its flags is found once the suite has started (its progress lines
        // come first): the error is then the last line.
        const auto last = r.err.substr(r.err.rfind('\n', r.err.size() - 2) == std::string::npos
                                           ? 0
                                           : r.err.rfind('\n', r.err.size() - 2) + 1);
        const bool run_started = suite == "badflag.json" || suite == "smuggle.json";
        BOOST_TEST(one_error_line(run_started ? last : r.err), r.err);
        BOOST_TEST(last.find(expected) != std::string::npos, r.err);
    }
    BOOST_TEST(query(cwd.path() / "b.sqlite", "SELECT status FROM sessions")[0][0] == "failed");
    BOOST_TEST(!fs::exists(cwd.path() / "pwned"));
    BOOST_TEST(!fs::exists(cwd.path() / "w.sqlite"));
}

BOOST_AUTO_TEST_CASE(ctrl_c_finishes_the_current_run_and_prints_the_table)
{
    temp_dir cwd;
    const auto smoke = source_dir() / "bench/suites/smoke";
    // Three runs whose scripted "model" takes 1.5 s per proposal: the interrupt lands in the first.
    // A suite's candidates lie inside its folder.
    fs::copy(smoke / "candidates", cwd.path() / "candidates");
    std::ofstream(cwd.path() / "slow.json")
        << R"({"name": "slow", "workloads": [")" << (smoke / "vadd").string()
        << R"("], "seeds": [1, 2, 3], "budget": {"candidates": 4},
        "options": {"gpus": "0", "compile-workers": 1, "confirm-top": 1},
        "strategies": [{"name": "scripted", "provider": "scripted",
                        "options": {"candidates": "candidates", "scripted-latency-ms": 1500}}]})";
    std::vector<std::string> args{(bin_dir() / "warpsmith").string(),
                                  "bench-strategies",
                                  "slow.json",
                                  "--db",
                                  "b.sqlite",
                                  "--run-arg=--worker=" + fake()};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const auto out = cwd.path() / "out", err = cwd.path() / "err";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const auto old_cwd = fs::current_path();
    fs::current_path(cwd.path());
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    fs::current_path(old_cwd);
    posix_spawn_file_actions_destroy(&fa);
    BOOST_REQUIRE(rc == 0);
    // Wait until the first run has written its first journal event, then press Ctrl-C once.
    const auto journal = cwd.path() / "results" / "bench-slow" / "run-001" / "journal.jsonl";
    for (int i = 0; i < 600 && !(fs::exists(journal) && fs::file_size(journal) > 0); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_REQUIRE(fs::exists(journal));
    ::kill(pid, SIGINT);
    int status = 0;
    for (int i = 0; i < 1200 && ::waitpid(pid, &status, WNOHANG) != pid; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_REQUIRE(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 130);
    const auto text = slurp(out);
    BOOST_TEST(text.find("scripted  smoke-vadd     1") != std::string::npos, text);
    BOOST_TEST(text.find("session 1: 1 run, interrupted") != std::string::npos, text);
    const auto db = cwd.path() / "b.sqlite";
    BOOST_TEST(query(db, "SELECT status FROM sessions")[0][0] == "interrupted");
    const auto runs = query(db, "SELECT status, exit_code FROM runs");
    BOOST_REQUIRE(runs.size() == 1u);
    BOOST_TEST(runs[0][0] == "interrupted");
    BOOST_TEST(runs[0][1] == "130");
    // The interrupted run finalized its directory, report included.
    BOOST_TEST(fs::exists(journal.parent_path() / "report.html"));
}

BOOST_AUTO_TEST_SUITE_END()
