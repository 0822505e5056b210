#include "engine/report/strategy_bench.hpp"

#include "engine/report/number_text.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/run/journal.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/terminal_text.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace warpsmith::report
{

namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

volatile std::sig_atomic_t g_signals = 0;
volatile std::sig_atomic_t g_last_signal = 0;

extern "C" void on_bench_signal(int sig)
{
    g_last_signal = sig;
    g_signals = g_signals + 1;
}

/// Catches SIGINT and SIGTERM for the lifetime of a benchmark and restores the previous handlers.
class signal_guard
{
public:
    signal_guard()
    {
        g_signals = 0;
        struct sigaction sa
        {
        };
        sa.sa_handler = on_bench_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int_);
        sigaction(SIGTERM, &sa, &old_term_);
    }
    ~signal_guard()
    {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    signal_guard(const signal_guard&) = delete;
    signal_guard& operator=(const signal_guard&) = delete;

private:
    struct sigaction old_int_
    {
    };
    struct sigaction old_term_
    {
    };
};

std::string quote(const std::string& s)
{
    const bool plain = !s.empty() && s.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                         "-_./=:,+@%") == std::string::npos;
    if (plain)
        return s;
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string read_file(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::set<std::string> run_dirs(const fs::path& dir)
{
    std::set<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().rfind("run-", 0) == 0)
            out.insert(it->path().filename().string());
    return out;
}

/// The last "warpsmith: ..." line of a child's stderr, without the prefix.
std::string error_line(const std::string& err)
{
    std::istringstream in(err);
    std::string line, last, last_any;
    while (std::getline(in, line))
    {
        if (line.empty())
            continue;
        last_any = line;
        if (line.rfind("warpsmith: ", 0) == 0)
            last = line.substr(11);
    }
    return last.empty() ? last_any : last;
}

struct child_result
{
    int exit_code = -1;
    std::optional<fs::path> run_dir;
};

/// The last --json-progress status line of a running child: "12 evaluated, 11 valid, best 1.84x".
std::string child_status(const fs::path& out)
{
    const auto text = read_file(out);
    auto pos = text.rfind("\"status\":");
    if (pos == std::string::npos)
        return {};
    const auto begin = text.rfind('\n', pos);
    const auto end = text.find('\n', pos);
    if (end == std::string::npos)
        return {};
    try
    {
        const auto line = json::parse(text.substr(begin == std::string::npos ? 0 : begin + 1,
                                                  end - (begin == std::string::npos ? 0 : begin + 1)));
        // A progress line of the child warpsmith, read leniently: it only decorates the status.
        const json::object* st = lenient::object_at(line, "status");
        const auto evaluated = lenient::int_at(st, "evaluated");
        const auto valid = lenient::int_at(st, "valid");
        if (!evaluated || !valid)
            return {};
        std::string s = std::to_string(*evaluated) + " evaluated, " + std::to_string(*valid) + " valid";
        if (const auto b = lenient::number_at(st, "best_speedup"))
            s += ", best " + fmt("%.2fx", *b);
        return s;
    }
    catch (const std::exception&)
    {
        return {};
    }
}

}  // namespace

std::string shell_command(const fs::path& program, const std::vector<std::string>& args)
{
    std::string s = quote(program.string());
    for (const auto& a : args)
    {
        s += ' ';
        s += quote(a);
    }
    return s;
}

bench_outcome run_strategy_bench(const bench_options& opts)
{
    auto print = opts.progress ? opts.progress
                               : [](const std::string& line)
    {
        std::fprintf(stderr, "%s\n", terminal_text(line).c_str());  // quotes the suite's options
        std::fflush(stderr);
    };
    const auto suite = load_strategy_suite(opts.suite_file);
    fs::path program = opts.program;
    if (program.empty())
    {
        std::error_code ec;
        program = fs::read_symlink("/proc/self/exe", ec);
        if (ec)
            throw user_error("cannot find the warpsmith binary (/proc/self/exe): " + ec.message());
    }
    const fs::path results = fs::absolute(opts.results / ("bench-" +
                                                          [&]
                                                          {
                                                              std::string n = suite.name;
                                                              for (auto& c : n)
                                                                  if (c == '/')
                                                                      c = '_';
                                                              return n;
                                                          }()));
    const auto plan = plan_runs(suite, results, opts.run_args);
    bench_database db(opts.db);
    std::error_code ec;
    fs::create_directories(results / "logs", ec);
    if (ec)
        throw user_error("cannot create " + (results / "logs").string() + ": " + ec.message());

    bench_outcome outcome;
    outcome.session = db.begin_session(suite, opts.command_line);
    auto plural = [](std::size_t n, const char* what)
    { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    print("bench-strategies " + suite.name + ": " + plural(plan.size(), "run") + " (" +
          (suite.strategies.size() == 1 ? std::string("1 strategy")
                                        : std::to_string(suite.strategies.size()) + " strategies") +
          " x " + plural(suite.workloads.size(), "workload") + " x " + plural(suite.seeds.size(), "seed") +
          "), session " + std::to_string(outcome.session) + " in " + opts.db.string());
    signal_guard guard;
    std::string session_status = "finished";
    try
    {
        for (const auto& run : plan)
        {
            if (g_signals > 0)
                break;
            const std::string tag =
                "[" + std::to_string(run.index + 1) + "/" + std::to_string(plan.size()) + "] " + run.label();
            print(tag + ": " + shell_command("warpsmith", run.args));
            const auto stem =
                "session" + std::to_string(outcome.session) + "-run" + std::to_string(run.index + 1);
            const auto out_file = results / "logs" / (stem + ".jsonl");
            const auto err_file = results / "logs" / (stem + ".err");
            const auto before = run_dirs(results);
            const std::string started = utc_timestamp();

            // The child: its own process group (see the header), stdin from /dev/null, stdout (JSON
            // progress and summary) and stderr to log files.
            std::vector<std::string> argv_s{program.string()};
            argv_s.insert(argv_s.end(), run.args.begin(), run.args.end());
            std::vector<char*> argv;
            argv.reserve(argv_s.size() + 1);
            for (auto& a : argv_s)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            posix_spawn_file_actions_t fa;
            posix_spawn_file_actions_init(&fa);
            posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
            posix_spawn_file_actions_addopen(&fa, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            posix_spawnattr_t attr;
            posix_spawnattr_init(&attr);
            posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
            posix_spawnattr_setpgroup(&attr, 0);
            sigset_t defaults;
            sigemptyset(&defaults);
            sigaddset(&defaults, SIGINT);
            sigaddset(&defaults, SIGTERM);
            posix_spawnattr_setsigdefault(&attr, &defaults);
            pid_t pid = -1;
            const int rc = posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), environ);
            posix_spawn_file_actions_destroy(&fa);
            posix_spawnattr_destroy(&attr);
            if (rc != 0)
                throw user_error("cannot start " + program.string() + ": " + std::strerror(rc));

            int forwarded = 0;
            int status = 0;
            auto last_status = std::chrono::steady_clock::now();
            for (;;)
            {
                const pid_t r = ::waitpid(pid, &status, WNOHANG);
                if (r == pid)
                    break;
                while (forwarded < g_signals)
                {
                    ::kill(pid, g_last_signal == SIGTERM ? SIGTERM : SIGINT);
                    ++forwarded;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                if (opts.status_interval_s > 0 && std::chrono::steady_clock::now() - last_status >
                                                      std::chrono::duration<double>(opts.status_interval_s))
                {
                    last_status = std::chrono::steady_clock::now();
                    if (auto st = child_status(out_file); !st.empty())
                        print(tag + ": " + st);
                }
            }
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            const std::string ended = utc_timestamp();

            // The run directory: from the summary line, else the one this run created.
            std::optional<fs::path> dir;
            {
                std::istringstream lines(read_file(out_file));
                std::string line;
                while (std::getline(lines, line))
                {
                    if (line.find("\"type\":\"summary\"") == std::string::npos)
                        continue;
                    try
                    {
                        const auto v = json::parse(line);
                        if (auto run = lenient::string_at(v, "run"))
                            dir = fs::path(*run);
                    }
                    catch (const std::exception&)
                    {
                    }
                }
                if (!dir)
                {
                    const auto after = run_dirs(results);
                    for (const auto& d : after)
                        if (!before.count(d))
                            dir = results / d;
                }
            }
            std::optional<run_view> view;
            std::string error = code == 0 ? std::string() : error_line(read_file(err_file));
            if (dir)
            {
                try
                {
                    view = load_run_view(*dir);
                }
                catch (const std::exception& e)
                {
                    if (error.empty())
                        error = e.what();
                }
            }
            db.add_run(outcome.session, suite, run, code, error, started, ended, view);
            ++outcome.runs;
            if (code == 2 && !view)
            {
                throw user_error(
                    suite.file.filename().string() + ": " + run.label() +
                    ": the run rejected its command: " + (error.empty() ? "exit code 2" : error));
            }
            std::string line = tag + ": ";
            if (view)
            {
                const auto m = metrics_of(*view);
                line +=
                    m.status +
                    (m.stop_reason.empty() || m.stop_reason == m.status ? "" : " (" + m.stop_reason + ")");
                if (m.best_speedup)
                    line += ", " + fmt("%.2fx", *m.best_speedup) + " vs reference (" +
                            m.best_id.value_or("?") +
                            (m.time_to_best_s ? " after " + fmt("%.2f s", *m.time_to_best_s) : "") + ")";
                else
                    line += ", no valid kernel";
                line += ", " + std::to_string(m.evaluated) + " evaluated (" + std::to_string(m.valid) +
                        " valid) -> " + dir->string();
            }
            else
                line += "no run directory";
            if (code != 0 && code != 130)
            {
                ++outcome.failed_runs;
                line += "; exit " + std::to_string(code) + (error.empty() ? "" : ": " + error);
            }
            print(line);
            if (code == 130 || g_signals > 0)
            {
                session_status = "interrupted";
                break;
            }
        }
        if (g_signals > 0)
            session_status = "interrupted";
        db.end_session(outcome.session, session_status);
    }
    catch (...)
    {
        try
        {
            db.end_session(outcome.session, "failed");
        }
        catch (const std::exception&)
        {
        }
        throw;
    }
    outcome.table = db.table(outcome.session);
    outcome.exit_code = session_status == "interrupted" ? 130 : 0;
    return outcome;
}

}  // namespace warpsmith::report
