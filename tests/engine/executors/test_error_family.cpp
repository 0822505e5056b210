// One exception family for infrastructure failures (harness/core/error.hpp, docs/architecture.md,
// "Errors"): a worker that dies, a CUDA driver failure, an HTTP status or transport failure, a
// model API protocol error and Asio's own cancellation are all caught by one
// catch (const boost::system::system_error&), with their code and category intact and their
// one-line wording kept; user_error stays outside the family.

#include "agents/http/http_client.hpp"
#include "agents/http/http_message.hpp"
#include "agents/http/sse_parser.hpp"
#include "agents/llm/model_client.hpp"
#include "agents/llm/protocol_error.hpp"
#include "engine/executors/worker_process.hpp"
#include "harness/core/error.hpp"
#include "harness/cuda/cuda_error.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <boost/system/system_error.hpp>

#include <exception>
#include <functional>
#include <optional>
#include <string>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

/// What one catch of the family saw.
struct caught
{
    bool in_family = false;  ///< Caught by catch (const boost::system::system_error&).
    bool ours = false;       ///< And it is a warpsmith::system_error (or derived).
    boost::system::error_code code;
    std::string what;
};

/// Runs `f` under the single catch every infrastructure failure must reach. Anything else
/// (user_error included) propagates.
caught catch_family(const std::function<void()>& f)
{
    caught c;
    try
    {
        f();
    }
    catch (const boost::system::system_error& e)
    {
        c.in_family = true;
        c.ours = dynamic_cast<const system_error*>(&e) != nullptr;
        c.code = e.code();
        c.what = e.what();
    }
    return c;
}

bool ends_with(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// A loopback port with nothing listening on it.
unsigned short closed_port(asio::io_context& ioc)
{
    asio::ip::tcp::acceptor a(ioc, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    const unsigned short port = a.local_endpoint().port();
    a.close();
    return port;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(error_family, io_fixture)

BOOST_AUTO_TEST_CASE(wording_is_context_then_message)
{
    const system_error e(errc::worker_timeout, "gpu0: no answer");
    BOOST_TEST(std::string(e.what()) == "gpu0: no answer: worker did not answer in time");
    BOOST_TEST((e.code() == make_error_code(errc::worker_timeout)));
    BOOST_TEST(std::string(system_error(errc::cancelled, "").what()) == "cancelled");

    // Copies (exception_ptr) keep the wording and the code.
    const caught c = catch_family(
        [] {
            std::rethrow_exception(std::make_exception_ptr(system_error(errc::nvrtc_failure, "nvrtcCreate")));
        });
    BOOST_TEST(c.in_family);
    BOOST_TEST(c.ours);
    BOOST_TEST(c.what == "nvrtcCreate: NVRTC failure");
    BOOST_TEST(std::string(c.code.category().name()) == "warpsmith");

    const caught helper = catch_family([] { throw_system_error(errc::http_protocol, "GET /x"); });
    BOOST_TEST(helper.what == "GET /x: HTTP protocol error");
}

BOOST_AUTO_TEST_CASE(worker_errors_are_in_the_family)
{
    worker_process w(ioc.get_executor(), {fake_worker_path(), "--device", "0"}, "gpu0");
    auto body = [&]() -> asio::awaitable<void>
    {
        co_await w.start(10s);
        co_await w.request(load_msg(), 10s);
        co_await w.request(evaluate_msg("// FAKE: crash=42"), 10s);
    };
    const caught c = catch_family([&] { run_coro(ioc, body()); });
    BOOST_TEST(c.in_family);
    BOOST_TEST(c.ours);
    BOOST_TEST((c.code == make_error_code(errc::worker_exited)));
    BOOST_TEST((&c.code.category() == &warpsmith_category()));
    BOOST_TEST(c.what.rfind("gpu0: ", 0) == 0u, c.what);
    BOOST_TEST(c.what.find("exit code 42") != std::string::npos, c.what);
    BOOST_TEST(ends_with(c.what, ": worker process exited"), c.what);
    BOOST_TEST(c.what.find("[warpsmith:") == std::string::npos, c.what);  // not Boost's suffix
    drain();
}

BOOST_AUTO_TEST_CASE(cuda_errors_are_in_the_family)
{
    const caught c = catch_family([] { throw cuda::cuda_error(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc"); });
    BOOST_TEST(c.in_family);
    BOOST_TEST(c.ours);
    BOOST_TEST(c.code.value() == static_cast<int>(CUDA_ERROR_OUT_OF_MEMORY));
    BOOST_TEST((&c.code.category() == &cuda::cuda_category()));
    BOOST_TEST(std::string(c.code.category().name()) == "cuda");
    BOOST_TEST(c.what == "cuMemAlloc: " + c.code.message());
    BOOST_TEST(c.what.rfind("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY", 0) == 0u, c.what);
}

BOOST_AUTO_TEST_CASE(http_and_model_api_errors_are_in_the_family)
{
    const caught status = catch_family(
        []
        {
            throw http::http_status_error(
                500, "Internal Server Error", {}, "{\"error\":\"busy\"}", "POST http://127.0.0.1/v1/x", 3);
        });
    BOOST_TEST(status.in_family);
    BOOST_TEST(status.ours);
    BOOST_TEST((status.code == make_error_code(errc::http_status)));
    BOOST_TEST(status.what.rfind("HTTP 500 Internal Server Error from POST http://127.0.0.1/v1/x (after 3 "
                                 "attempts)",
                                 0) == 0u,
               status.what);
    BOOST_TEST(ends_with(status.what, ": HTTP error status"), status.what);

    http::sse_parser::options o;
    o.max_event_bytes = 16;
    http::sse_parser parser(o);
    const caught sse = catch_family([&] { parser.feed("data: " + std::string(64, 'x')); });
    BOOST_TEST(sse.in_family);
    BOOST_TEST((sse.code == make_error_code(errc::http_protocol)));

    const caught protocol = catch_family([] { llm::throw_protocol_error("the answer is not JSON"); });
    BOOST_TEST((protocol.code == make_error_code(errc::llm_protocol)));
    BOOST_TEST(protocol.what == "the answer is not JSON: model API protocol error");

    const caught failed =
        catch_family([] { throw llm::server_reported_failure("server_error", "response.failed"); });
    BOOST_TEST(failed.in_family);
    BOOST_TEST((failed.code == make_error_code(errc::llm_protocol)));
}

// A transport failure reaches the caller with Asio's code, no longer converted to another type.
BOOST_AUTO_TEST_CASE(http_transport_failures_are_in_the_family)
{
    http::http_client_options o;
    o.base_url = "http://127.0.0.1:" + std::to_string(closed_port(ioc)) + "/v1";
    o.proxy = "";
    o.retry.max_attempts = 1;
    o.retry_seed = 42;
    http::http_request req;
    req.path = "/x";
    req.body = "{}";
    caught c;
    {
        http::http_client client(ioc.get_executor(), o);
        c = catch_family([&] { run_coro(ioc, client.request(req)); });
    }
    BOOST_TEST(c.in_family);
    BOOST_TEST(c.ours);
    BOOST_TEST((c.code == asio::error::connection_refused), c.code.message());
    BOOST_TEST(c.what.find("127.0.0.1") != std::string::npos, c.what);
    drain();
}

// Asio's cancellation is a plain boost::system::system_error: the same catch sees it, and
// is_cancellation() tells it (and errc::cancelled) from failures.
BOOST_AUTO_TEST_CASE(asio_cancellation_is_in_the_family)
{
    asio::steady_timer timer(ioc, 10s);
    asio::cancellation_signal signal;
    std::exception_ptr error;
    auto wait = [&]() -> asio::awaitable<void> { co_await timer.async_wait(asio::use_awaitable); };
    auto on_done = [&](std::exception_ptr e) { error = e; };
    asio::co_spawn(ioc, wait(), asio::bind_cancellation_slot(signal.slot(), on_done));
    asio::post(ioc, [&] { signal.emit(asio::cancellation_type::terminal); });
    ioc.run_for(5s);
    BOOST_TEST_REQUIRE(static_cast<bool>(error));
    const caught c = catch_family([&] { std::rethrow_exception(error); });
    BOOST_TEST(c.in_family);
    BOOST_TEST(!c.ours);
    BOOST_TEST(is_cancellation(c.code));
    BOOST_TEST(is_cancellation(make_error_code(errc::cancelled)));
    BOOST_TEST(!is_cancellation(make_error_code(errc::worker_exited)));
}

BOOST_AUTO_TEST_CASE(user_errors_stay_outside_the_family)
{
    BOOST_CHECK_THROW(
        catch_family([] { throw user_error("workload.json: cases[0].seed: must be an integer"); }),
        user_error);
    BOOST_CHECK_THROW(catch_family([] { throw llm::fatal_provider_error("the API key was rejected"); }),
                      llm::fatal_provider_error);
}

BOOST_AUTO_TEST_SUITE_END()
