// worker_process against the fake worker: request/response, deadlines, exits, protocol violations,
// stderr capture and graceful stop.

#include "engine/executors/worker_process.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/json.hpp>

#include <csignal>
#include <mutex>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

/// Starts a fake GPU worker, loads the fake workload and sends one evaluate; returns the exception.
asio::awaitable<std::optional<system_error>> evaluate_expecting_error(worker_process& w,
                                                                      std::string source,
                                                                      std::chrono::milliseconds deadline)
{
    co_await w.start(10s);
    co_await w.request(load_msg(), 10s);
    try
    {
        co_await w.request(evaluate_msg(source), deadline);
    }
    catch (const system_error& e)
    {
        co_return e;
    }
    co_return std::nullopt;
}

bool process_alive(int pid)
{
    return pid > 0 && ::kill(pid, 0) == 0;
}

std::vector<std::string> fake_argv(std::vector<std::string> extra = {})
{
    std::vector<std::string> argv{fake_worker_path(), "--device", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(worker_process_suite, io_fixture)

BOOST_AUTO_TEST_CASE(request_response_and_graceful_stop)
{
    temp_dir tmp;
    auto log = tmp.path() / "events.log";
    {
        worker_process w(ioc.get_executor(), fake_argv({"--log", log.string()}), "gpu0");
        auto body = [&]() -> asio::awaitable<void>
        {
            json::object hello = co_await w.start(10s);
            BOOST_TEST(hello.at("ok").as_bool());
            BOOST_TEST(hello.at("mode").as_string() == "gpu");
            BOOST_TEST(hello.at("protocol").as_int64() == 1);
            BOOST_TEST(w.hello().at("mode").as_string() == "gpu");
            BOOST_TEST(w.running());

            json::object info;
            info["op"] = "device_info";
            json::object r = co_await w.request(info, 5s);
            BOOST_TEST(r.at("ok").as_bool());
            BOOST_TEST(r.at("id").as_int64() == 2);
            BOOST_TEST(r.at("device").at("name").as_string() == "Fake GPU");

            json::object bad;
            bad["op"] = "no_such_op";
            json::object r2 = co_await w.request(bad, 5s);
            BOOST_TEST(!r2.at("ok").as_bool());
            BOOST_TEST(r2.at("error").at("kind").as_string() == "bad_request");

            co_await w.stop(2s);
        };
        run_coro(ioc, body());
        BOOST_TEST(!w.running());
        BOOST_TEST(w.exit_code() == 0);
        BOOST_TEST(w.exit_description() == "exit code 0");
    }
    drain();
    auto events = read_fake_log(log);
    BOOST_TEST(events_named(events, "shutdown").size() == 1u);
    BOOST_TEST(events_named(events, "hello").size() == 1u);
}

BOOST_AUTO_TEST_CASE(deadline_kills_the_child)
{
    worker_process w(ioc.get_executor(), fake_argv(), "gpu0");
    auto err = run_coro(ioc, evaluate_expecting_error(w, "// FAKE: hang", 300ms));
    BOOST_REQUIRE(err.has_value());
    BOOST_TEST((worker_errc(*err) == errc::worker_timeout));
    BOOST_TEST(std::string(err->what()).find("within 300 ms") != std::string::npos);
    int pid = w.pid();
    BOOST_TEST(!w.running());
    BOOST_TEST(w.exit_description() == "killed by signal 9");
    BOOST_TEST(!process_alive(pid));
    drain();
}

BOOST_AUTO_TEST_CASE(child_exit_reports_exit_code)
{
    worker_process w(ioc.get_executor(), fake_argv(), "gpu0");
    auto err =
        run_coro(ioc, evaluate_expecting_error(w, "// FAKE: crash=42 FAKE: stderr=about_to_crash", 10s));
    BOOST_REQUIRE(err.has_value());
    BOOST_TEST((worker_errc(*err) == errc::worker_exited));
    BOOST_TEST(w.exit_code() == 42);
    BOOST_TEST(std::string(err->what()).find("exit code 42") != std::string::npos);
    // The child's last stderr line is part of the diagnosis.
    BOOST_TEST(std::string(err->what()).find("about_to_crash") != std::string::npos);
    BOOST_TEST(w.stderr_tail().find("fake_worker: about_to_crash") != std::string::npos);

    // Requests after the exit fail at once with worker_exited.
    auto again = [&]() -> asio::awaitable<void>
    {
        json::object m;
        m["op"] = "hello";
        co_await w.request(m, 1s);
    };
    try
    {
        run_coro(ioc, again());
        BOOST_FAIL("request after exit succeeded");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST((worker_errc(e) == errc::worker_exited));
    }
    drain();
}

BOOST_AUTO_TEST_CASE(malformed_line_is_a_protocol_error)
{
    worker_process w(ioc.get_executor(), fake_argv(), "gpu0");
    auto err = run_coro(ioc, evaluate_expecting_error(w, "// FAKE: malformed", 10s));
    BOOST_REQUIRE(err.has_value());
    BOOST_TEST((worker_errc(*err) == errc::worker_protocol));
    BOOST_TEST(std::string(err->what()).find("not a JSON object") != std::string::npos);
    // A worker that broke the protocol is not trusted further: it is killed.
    BOOST_TEST(!w.running());
    drain();
}

BOOST_AUTO_TEST_CASE(stderr_is_forwarded_to_the_log_seam)
{
    std::vector<std::string> lines;
    std::mutex m;
    auto sink = [&](log_level, std::string_view line)
    {
        std::lock_guard lock(m);
        lines.emplace_back(line);
    };
    set_log_sink(sink, log_level::debug);
    {
        worker_process w(ioc.get_executor(), fake_argv(), "gpu3");
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await w.start(10s);
            co_await w.request(load_msg(), 10s);
            auto r = co_await w.request(evaluate_msg("// FAKE: stderr=diagnostic_line"), 10s);
            BOOST_TEST(r.at("result").at("status").as_string() == "valid");
            co_await w.stop(2s);
            co_await pause(100ms);
        };
        run_coro(ioc, body());
        BOOST_TEST(w.stderr_tail().find("fake_worker: diagnostic_line") != std::string::npos);
    }
    drain();
    set_log_sink(nullptr);
    bool found = false;
    for (const auto& l : lines)
        found = found || l.find("[gpu3] fake_worker: diagnostic_line") != std::string::npos;
    BOOST_TEST(found);
}

BOOST_AUTO_TEST_CASE(a_worker_compiling_without_the_sandbox_is_said_once)
{
    std::mutex m;
    std::vector<std::string> lines;
    set_log_sink(
        [&](log_level l, std::string_view line)
        {
            std::lock_guard lock(m);
            if (l == log_level::warn)
                lines.emplace_back(line);
        },
        log_level::debug);
    for (int i = 0; i < 2; ++i)
    {
        worker_process w(
            ioc.get_executor(), fake_argv({"--unsandboxed-compiles"}), "gpu" + std::to_string(i));
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await w.start(10s);
            co_await w.stop(2s);
        };
        run_coro(ioc, body());
    }
    set_log_sink(nullptr);
    std::size_t said = 0;
    for (const auto& l : lines)
        if (l.find("compiles run without the Landlock file-system sandbox (unavailable: "
                   "landlock_create_ruleset: ENOSYS (fake))") != std::string::npos)
            ++said;
    BOOST_TEST(said == 1u);
}

BOOST_AUTO_TEST_CASE(stop_escalates_to_sigkill)
{
    worker_process w(ioc.get_executor(), fake_argv({"--ignore-shutdown"}), "gpu0");
    auto body = [&]() -> asio::awaitable<void>
    {
        co_await w.start(10s);
        co_await w.stop(200ms);
    };
    run_coro(ioc, body());
    BOOST_TEST(!w.running());
    BOOST_TEST(w.exit_description() == "killed by signal 9");
    drain();
}

BOOST_AUTO_TEST_CASE(missing_program_is_a_user_error)
{
    worker_process w(ioc.get_executor(), {"/nonexistent/warpsmith-worker", "--device", "0"}, "gpu0");
    auto body = [&]() -> asio::awaitable<void> { co_await w.start(5s); };
    BOOST_CHECK_EXCEPTION(
        run_coro(ioc, body()),
        user_error,
        [](const user_error& e)
        { return std::string(e.what()).find("/nonexistent/warpsmith-worker") != std::string::npos; });
    drain();
}

BOOST_AUTO_TEST_CASE(refused_hello_is_a_user_error)
{
    worker_process w(ioc.get_executor(), fake_argv({"--no-device"}), "gpu0");
    auto body = [&]() -> asio::awaitable<void> { co_await w.start(5s); };
    BOOST_CHECK_EXCEPTION(run_coro(ioc, body()),
                          user_error,
                          [](const user_error& e)
                          { return std::string(e.what()).find("no_device") != std::string::npos; });
    BOOST_TEST(!w.running());
    drain();
}

BOOST_AUTO_TEST_CASE(exit_before_hello_is_worker_exited)
{
    worker_process w(ioc.get_executor(), fake_argv({"--exit-at-start", "5"}), "gpu0");
    auto body = [&]() -> asio::awaitable<void> { co_await w.start(5s); };
    BOOST_CHECK_EXCEPTION(run_coro(ioc, body()),
                          boost::system::system_error,
                          [](const boost::system::system_error& e)
                          {
                              return worker_errc(e) == errc::worker_exited &&
                                     std::string(e.what()).find("exit code 5") != std::string::npos;
                          });
    drain();
}

BOOST_AUTO_TEST_CASE(shell_launcher_command_is_stopped_as_a_group)
{
    // A --worker-cmd runs through /bin/sh; the shell and the worker share a process group, which
    // kill() reaches as a whole.
    std::vector<std::string> argv{"/bin/sh", "-c", fake_worker_path() + " --device 0; echo after"};
    worker_process w(ioc.get_executor(), argv, "gpu0");
    auto err = run_coro(ioc, evaluate_expecting_error(w, "// FAKE: hang", 300ms));
    BOOST_REQUIRE(err.has_value());
    BOOST_TEST((worker_errc(*err) == errc::worker_timeout));
    BOOST_TEST(!w.running());
    drain();
}

BOOST_AUTO_TEST_SUITE_END()
