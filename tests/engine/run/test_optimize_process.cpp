// `warpsmith optimize` as a real process, with the fake worker (tests/engine/executors/
// fake_worker.cpp) on "GPU 0" and the scripted provider with a simulated model latency:
//  * kill -9 in the middle of the search, a torn last journal line, --resume: every candidate file
//    is proposed exactly once and every proposed candidate evaluated exactly once (journal events);
//  * Ctrl-C: the run finalizes with the best so far and exits 130;
//  * bad input: one line on stderr, exit code 2, no run directory claimed;
//  * --provider autotune: the tune strategies through optimize, recorded so that --resume works;
//  * the hidden seed: random even with --seed, fixed by --hidden-seed, kept by --resume.
// Skipped with a message when the warpsmith or fake_worker binary is missing.

#include "engine/run/journal.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace
{

fs::path warpsmith_bin()
{
    return bin_dir() / "warpsmith";
}

fs::path fake_worker_bin()
{
    return bin_dir() / "fake_worker";
}

bool binaries_present()
{
    if (!fs::exists(warpsmith_bin()) || !fs::exists(fake_worker_bin()))
    {
        BOOST_TEST_MESSAGE("skipped: " << warpsmith_bin() << " or " << fake_worker_bin() << " is not built");
        return false;
    }
    return true;
}

fs::path data_dir()
{
    return source_dir() / "tests" / "engine" / "run" / "data";
}

/// A child process with stdout and stderr redirected to files.
struct child
{
    pid_t pid = -1;
    fs::path out, err;

    child(const std::vector<std::string>& args,
          const fs::path& cwd,
          const fs::path& out_file,
          const fs::path& err_file)
        : out(out_file), err(err_file)
    {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        // The child runs in the run's working directory (results/ goes there).
        std::vector<std::string> full{"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd.string()};
        full.insert(full.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : full)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        const int rc = posix_spawn(&pid, "/bin/sh", &fa, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        BOOST_REQUIRE_MESSAGE(rc == 0, "posix_spawn failed");
    }

    /// Exit code (128 + signal when killed), or -1 after the timeout (the child is then killed).
    int wait(std::chrono::seconds timeout = 120s)
    {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        int status = 0;
        while (std::chrono::steady_clock::now() < deadline)
        {
            const pid_t r = ::waitpid(pid, &status, WNOHANG);
            if (r == pid)
            {
                pid = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(10ms);
        }
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        pid = -1;
        return -1;
    }

    ~child()
    {
        if (pid > 0)
        {
            ::kill(pid, SIGKILL);
            int status = 0;
            ::waitpid(pid, &status, 0);
        }
    }
};

std::vector<std::string> optimize_args(const std::vector<std::string>& extra)
{
    std::vector<std::string> a{warpsmith_bin().string(),
                               "optimize",
                               "--worker",
                               fake_worker_bin().string(),
                               "--worker-arg=--evaluate-ms",
                               "--worker-arg=200",
                               "--compile-workers",
                               "2"};
    if (std::find(extra.begin(), extra.end(), "--gpus") == extra.end())
    {
        a.push_back("--gpus");
        a.push_back("0");
    }
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

std::vector<json::object> journal_of(const fs::path& run)
{
    return read_journal(run / "journal.jsonl").events;
}

int count(const std::vector<json::object>& ev, std::string_view type)
{
    int n = 0;
    for (const auto& e : ev)
        n += e.at("event").as_string() == type ? 1 : 0;
    return n;
}

bool has_pending(const std::vector<json::object>& ev)
{
    std::set<std::string> proposed, evaluated;
    for (const auto& e : ev)
    {
        if (e.at("event").as_string() == "proposed")
            proposed.insert(std::string(e.at("id").as_string()));
        else if (e.at("event").as_string() == "evaluated")
            evaluated.insert(std::string(e.at("id").as_string()));
    }
    return proposed.size() > evaluated.size();
}

std::string stderr_of(const child& c)
{
    return read_text_file(c.err);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(optimize_process_suite)

BOOST_AUTO_TEST_CASE(kill_9_then_resume_loses_no_candidate_and_repeats_none)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-kill9");
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    const fs::path run = tmp.path() / "results" / "run-001";
    bool had_pending = false;
    {
        child c(optimize_args({"--workload",
                               (data_dir() / "vadd").string(),
                               "--candidates",
                               (data_dir() / "candidates").string(),
                               "--scripted-latency-ms",
                               "150",
                               "--branches",
                               "2",
                               "--max-iterations",
                               "10",
                               "--confirm-top",
                               "2"}),
                tmp.path(),
                tmp.path() / "out1.txt",
                tmp.path() / "err1.txt");
        // Wait until some candidates are done and one is proposed but not yet evaluated, then kill -9.
        const auto deadline = std::chrono::steady_clock::now() + 60s;
        while (std::chrono::steady_clock::now() < deadline)
        {
            std::this_thread::sleep_for(5ms);
            if (!fs::exists(run / "journal.jsonl"))
                continue;
            const auto ev = journal_of(run);
            if (count(ev, "evaluated") >= 3 && has_pending(ev))
            {
                ::kill(c.pid, SIGKILL);
                break;
            }
        }
        BOOST_REQUIRE_EQUAL(c.wait(), 128 + SIGKILL);
        const auto ev = journal_of(run);
        had_pending = has_pending(ev);
        BOOST_TEST(count(ev, "run_finished") == 0);
        BOOST_TEST_MESSAGE("killed after " << count(ev, "evaluated")
                                           << " evaluations, pending: " << had_pending);
    }
    BOOST_TEST(had_pending);
    {
        // kill -9 in the middle of a write leaves a torn last line.
        std::ofstream j(run / "journal.jsonl", std::ios::app);
        j << "{\"seq\":999,\"event\":\"evalu";
    }
    // run.json names the candidates folder; a run directory can come from anyone, so --resume
    // reads that folder only when --candidates names it again.
    {
        child refused(optimize_args({"--resume", run.string(), "--scripted-latency-ms", "20"}),
                      tmp.path(),
                      tmp.path() / "out-refused.txt",
                      tmp.path() / "err-refused.txt");
        BOOST_TEST(refused.wait() == 2);
        BOOST_TEST(stderr_of(refused).find("config.provider.candidates is '") != std::string::npos,
                   stderr_of(refused));
        BOOST_TEST(stderr_of(refused).find("'; --resume uses it only when you give --candidates") !=
                       std::string::npos,
                   stderr_of(refused));
        child moved(optimize_args({"--resume",
                                   run.string(),
                                   "--candidates",
                                   tmp.path().string(),
                                   "--scripted-latency-ms",
                                   "20"}),
                    tmp.path(),
                    tmp.path() / "out-moved.txt",
                    tmp.path() / "err-moved.txt");
        BOOST_TEST(moved.wait() == 2);
        BOOST_TEST(stderr_of(moved).find("cannot change it on --resume") != std::string::npos,
                   stderr_of(moved));
    }
    child r(optimize_args({"--resume",
                           run.string(),
                           "--candidates",
                           (data_dir() / "candidates").string(),
                           "--scripted-latency-ms",
                           "20"}),
            tmp.path(),
            tmp.path() / "out2.txt",
            tmp.path() / "err2.txt");
    const int code = r.wait();
    BOOST_TEST_INFO("stderr: " << stderr_of(r));
    BOOST_REQUIRE_EQUAL(code, 0);

    const auto ev = journal_of(run);
    std::map<std::string, int> proposed, evaluated, files;
    for (const auto& e : ev)
    {
        const auto type = e.at("event").as_string();
        if (type == "proposed")
        {
            ++proposed[std::string(e.at("id").as_string())];
            ++files[std::string(e.at("meta").at("file").as_string())];
        }
        else if (type == "evaluated")
            ++evaluated[std::string(e.at("id").as_string())];
    }
    // The scripted directory holds 12 files: each proposed once, each candidate evaluated once.
    BOOST_TEST(files.size() == 12u);
    for (const auto& [f, n] : files)
        BOOST_TEST(n == 1, f);
    BOOST_TEST(proposed.size() == 12u);
    for (const auto& [id, n] : proposed)
    {
        BOOST_TEST(n == 1, id);
        BOOST_TEST(evaluated[id] == 1, id);
    }
    BOOST_TEST(evaluated.size() == 12u);
    BOOST_TEST(count(ev, "run_started") == 2);
    BOOST_TEST(ev.back().at("event").as_string() == "run_finished");
    const auto summary = read_json_file(run / "summary.json");
    BOOST_TEST(summary.at("status").as_string() == "finished");
    BOOST_TEST(summary.at("stop_reason").as_string() == "exhausted");
    BOOST_TEST(summary.at("resumed").as_bool());
    BOOST_TEST(summary.at("candidates").at("evaluated").as_int64() == 12);
    BOOST_TEST(summary.at("candidates").at("failures").at("compile_error").as_int64() == 1);
    // k12 (median 66 us) is the fastest file; speedup 200/66 over the reference.
    BOOST_TEST(summary.at("best").at("speedup_vs_reference").as_double() == 200.0 / 66,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(fs::exists(run / "best.cu"));
    const auto run_json = read_json_file(run / "run.json");
    // The killed session never wrote its end; the resumed one marks it aborted.
    const auto& sessions = run_json.at("sessions").as_array();
    BOOST_REQUIRE_EQUAL(sessions.size(), 2u);
    BOOST_TEST(sessions[0].at("status").as_string() == "aborted");
    BOOST_TEST(sessions[1].at("status").as_string() == "finished");
    BOOST_TEST(read_text_file(tmp.path() / "out2.txt").find("best: ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(ctrl_c_finalizes_with_the_best_so_far_and_exits_130)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-sigint");
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    const fs::path run = tmp.path() / "results" / "run-001";
    child c(optimize_args({"--workload",
                           (data_dir() / "vadd").string(),
                           "--candidates",
                           (data_dir() / "candidates").string(),
                           "--scripted-latency-ms",
                           "100",
                           "--branches",
                           "2",
                           "--max-iterations",
                           "10",
                           "--json-progress"}),
            tmp.path(),
            tmp.path() / "out.txt",
            tmp.path() / "err.txt");
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline)
    {
        std::this_thread::sleep_for(5ms);
        if (fs::exists(run / "journal.jsonl") && count(journal_of(run), "evaluated") >= 2)
            break;
    }
    ::kill(c.pid, SIGINT);
    const int code = c.wait();
    BOOST_TEST_INFO("stderr: " << stderr_of(c));
    BOOST_TEST(code == 130);
    const auto ev = journal_of(run);
    BOOST_TEST(ev.back().at("event").as_string() == "run_finished");
    BOOST_TEST(count(ev, "stop_requested") == 1);
    const auto summary = read_json_file(run / "summary.json");
    BOOST_TEST(summary.at("status").as_string() == "interrupted");
    BOOST_TEST(fs::exists(run / "best.cu"));
    // --json-progress: every stdout line is a JSON object; the last one is the summary.
    std::ifstream out(tmp.path() / "out.txt");
    std::string line, last;
    int lines = 0;
    while (std::getline(out, line))
    {
        ++lines;
        BOOST_CHECK_NO_THROW(json::parse(line));
        last = line;
    }
    BOOST_TEST(lines > 3);
    BOOST_TEST(json::parse(last).at("type").as_string() == "summary");
}

BOOST_AUTO_TEST_CASE(bad_input_gets_one_line_and_exit_code_2)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-badinput");
    const auto w = (data_dir() / "vadd").string();
    const auto cands = (data_dir() / "candidates").string();
    write_file_atomic(tmp.path() / "not-a-dir", "x");
    write_file_atomic(tmp.path() / "bad.json", "{\"max-iterations\": 3, \"colour\": \"red\"}");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--resume", (tmp.path() / "nowhere").string()}, "no such run directory"},
        {{"--resume", tmp.path().string()}, "not a warpsmith run"},
        {{"--resume", tmp.path().string(), "--workload", w}, "--workload cannot be combined with it"},
        {{"--workload", w, "--candidates", cands, "--async", "2", "--branches", "2"},
         "--async N replaces --branches"},
        {{"--description", "single-precision GEMM", "--candidates", cands}, "requires a model provider"},
        // The quick start: no provider named means openai, which needs a key.
        {{"--description", "single-precision GEMM", "--api-key-env", "WARPSMITH_UNSET_KEY"},
         "no OpenAI API key: set WARPSMITH_UNSET_KEY"},
        {{"--workload", w, "--provider", "openai", "--api-key-env", "WARPSMITH_UNSET_KEY"},
         "no OpenAI API key"},
        {{"--workload", w, "--provider", "gpt"}, "unknown provider"},
        {{"--workload", w, "--candidates", cands, "--strategy", "anneal"},
         "--strategy is an option of the model providers and of autotune, not of --provider scripted"},
        {{"--workload", w, "--provider", "autotune"}, "has no tunables"},
        {{"--workload", w, "--provider", "autotune", "--model", "m"},
         "--model is an option of the model providers"},
        {{"--workload",
          w,
          "--provider",
          "openai-chat",
          "--base-url",
          "http://127.0.0.1:9/v1",
          "--model",
          "m",
          "--strategy",
          "anneal"},
         "--strategy anneal: unknown strategy (refine, beam, evolve)"},
        {{"--resume", tmp.path().string(), "--strategy", "grid"}, "--strategy cannot be combined with it"},
        {{"--workload", w, "--provider", "scripted"}, "needs --candidates DIR"},
        {{"--workload", w, "--api-key-env", "WARPSMITH_UNSET_KEY"},
         "no OpenAI API key: set WARPSMITH_UNSET_KEY"},
        {{"--workload", w, "--candidates", (tmp.path() / "none").string()}, "no such directory"},
        {{"--workload", w, "--candidates", cands, "--config", (tmp.path() / "missing.json").string()},
         "missing.json"},
        {{"--workload", w, "--candidates", cands, "--config", (tmp.path() / "bad.json").string()},
         "unknown key 'colour'"},
        {{"--workload", w, "--candidates", cands, "--results", (tmp.path() / "not-a-dir").string()},
         "not-a-dir"},
        {{"--workload", w, "--candidates", cands, "--gpus", "0,x"}, "--gpus 0,x"},
        {{"--workload", w, "--candidates", cands, "--branches", "0"},
         "--branches: must be at least 1, got 0"},
    };
    int i = 0;
    for (const auto& [args, expect] : cases)
    {
        // A named number: "o" + std::to_string(i) makes g++ 12 warn (-Wrestrict) on the temporary.
        const std::string n = std::to_string(i);
        child c(optimize_args(args),
                tmp.path(),
                tmp.path() / ("o" + n + ".txt"),
                tmp.path() / ("e" + n + ".txt"));
        ++i;
        const int code = c.wait();
        const auto err = stderr_of(c);
        BOOST_TEST_INFO("case: " << expect << "; stderr: " << err);
        BOOST_TEST(code == 2);
        BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1);
        BOOST_TEST(err.rfind("warpsmith: ", 0) == 0);
        BOOST_TEST(err.find(expect) != std::string::npos);
    }
    BOOST_TEST(!fs::exists(tmp.path() / "results"));
}

BOOST_AUTO_TEST_CASE(autotune_provider_searches_the_tunables_and_resumes)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-autotune-provider");
    const auto w = (source_dir() / "tests" / "agents" / "autotune" / "data" / "vscale").string();
    {
        child c(optimize_args({"--workload",
                               w,
                               "--provider",
                               "autotune",
                               "--strategy",
                               "grid",
                               "--seed",
                               "3",
                               "--max-candidates",
                               "3",
                               "--confirm-top",
                               "1"}),
                tmp.path(),
                tmp.path() / "o1.txt",
                tmp.path() / "e1.txt");
        BOOST_TEST_REQUIRE(c.wait() == 0, stderr_of(c));
    }
    const auto run = tmp.path() / "results" / "run-001";
    const auto run_json = read_json_file(run / "run.json");
    BOOST_TEST(run_json.at("config").at("provider").at("name").as_string() == "autotune");
    BOOST_TEST(run_json.at("config").at("tune").at("strategy").as_string() == "grid");
    BOOST_TEST(run_json.at("config").at("tune").at("expected_evaluations").to_number<int>() == 3);
    BOOST_TEST(run_json.at("config").at("search").at("max_repairs").to_number<int>() == 0);
    auto events = journal_of(run);
    BOOST_TEST(count(events, "evaluated") == 3);
    for (const auto& e : events)
        if (e.at("event").as_string() == "proposed")
        {
            BOOST_TEST(e.at("meta").at("strategy").as_string() == "grid");
            BOOST_TEST(e.at("meta").at("point").as_object().contains("THREADS"));
        }

    // --resume rebuilds the grid from run.json and goes on where it stopped.
    {
        child c(optimize_args({"--resume", run.string(), "--max-candidates", "5", "--confirm-top", "0"}),
                tmp.path(),
                tmp.path() / "o2.txt",
                tmp.path() / "e2.txt");
        BOOST_TEST_REQUIRE(c.wait() == 0, stderr_of(c));
    }
    events = journal_of(run);
    BOOST_TEST(count(events, "evaluated") == 5);
    std::set<std::string> points;
    for (const auto& e : events)
        if (e.at("event").as_string() == "proposed")
            points.insert(json::serialize(e.at("meta").at("point")));
    BOOST_TEST(points.size() == 5u);  // no point proposed twice
}

namespace
{

std::uint64_t recorded_hidden_seed(const fs::path& run)
{
    return read_json_file(run / "run.json")
        .at("config")
        .at("search")
        .at("hidden_seed")
        .to_number<std::uint64_t>();
}

/// The hidden seed of every replay request in the run (candidates/*/requests/*.json).
std::set<std::uint64_t> request_hidden_seeds(const fs::path& run)
{
    std::set<std::uint64_t> out;
    for (const auto& e : fs::recursive_directory_iterator(run))
        if (e.is_regular_file() && e.path().parent_path().filename() == "requests")
            out.insert(read_json_file(e.path()).at("hidden_seed").to_number<std::uint64_t>());
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hidden_seed_is_random_even_with_seed_fixed_by_its_flag_and_kept_by_resume)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-hidden-seed");
    const auto w = (source_dir() / "tests" / "agents" / "autotune" / "data" / "vscale").string();
    const auto run = [&](int n)
    {
        // A named number: "run-00" + std::to_string(n) makes g++ 12 warn (-Wrestrict).
        const std::string digit = std::to_string(n);
        return tmp.path() / "results" / ("run-00" + digit);
    };
    // The same public seed twice: different hidden inputs (SPEC §3: not derivable from the public one).
    for (const char* n : {"1", "2"})
    {
        const std::string out = std::string("o") + n + ".txt", err = std::string("e") + n + ".txt";
        child c(optimize_args({"--workload",
                               w,
                               "--provider",
                               "autotune",
                               "--strategy",
                               "grid",
                               "--seed",
                               "3",
                               "--max-candidates",
                               "1",
                               "--confirm-top",
                               "0"}),
                tmp.path(),
                tmp.path() / out,
                tmp.path() / err);
        BOOST_TEST_REQUIRE(c.wait() == 0, stderr_of(c));
    }
    BOOST_TEST(recorded_hidden_seed(run(1)) != recorded_hidden_seed(run(2)));
    BOOST_TEST((request_hidden_seeds(run(1)) == std::set<std::uint64_t>{recorded_hidden_seed(run(1))}));

    // --hidden-seed fixes it, in run.json and in every replay request.
    {
        child c(optimize_args({"--workload",
                               w,
                               "--provider",
                               "autotune",
                               "--strategy",
                               "grid",
                               "--seed",
                               "3",
                               "--hidden-seed",
                               "4242",
                               "--max-candidates",
                               "2",
                               "--confirm-top",
                               "0"}),
                tmp.path(),
                tmp.path() / "o3.txt",
                tmp.path() / "e3.txt");
        BOOST_TEST_REQUIRE(c.wait() == 0, stderr_of(c));
    }
    BOOST_TEST(recorded_hidden_seed(run(3)) == 4242u);
    BOOST_TEST((request_hidden_seeds(run(3)) == std::set<std::uint64_t>{4242}));

    // --resume keeps the recorded one for the candidates it adds, and refuses a new one.
    {
        child c(optimize_args({"--resume", run(3).string(), "--max-candidates", "4", "--confirm-top", "0"}),
                tmp.path(),
                tmp.path() / "o4.txt",
                tmp.path() / "e4.txt");
        BOOST_TEST_REQUIRE(c.wait() == 0, stderr_of(c));
    }
    BOOST_TEST(count(journal_of(run(3)), "evaluated") == 4);
    BOOST_TEST(recorded_hidden_seed(run(3)) == 4242u);
    BOOST_TEST((request_hidden_seeds(run(3)) == std::set<std::uint64_t>{4242}));
    {
        child c(optimize_args({"--resume", run(3).string(), "--hidden-seed", "5"}),
                tmp.path(),
                tmp.path() / "o5.txt",
                tmp.path() / "e5.txt");
        BOOST_TEST(c.wait() == 2);
        BOOST_TEST(stderr_of(c).find("--hidden-seed cannot be combined with it") != std::string::npos,
                   stderr_of(c));
    }
}

BOOST_AUTO_TEST_SUITE_END()
