// http_client against the fake server on 127.0.0.1, over HTTP and HTTPS (throwaway certificate).
// Timing assertions are one-sided (a wait was at least as long as asked), never upper bounds that
// a loaded machine could break.

#include "agents/http/http_client.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "tests/agents/support/async_test.hpp"
#include "tests/agents/support/fake_http_server.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace warpsmith;
using namespace warpsmith::http;
using namespace warpsmith::test;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace
{

http_client_options options_for(const fake_http_server& server)
{
    http_client_options o;
    o.base_url = server.base_url() + "/v1";
    if (!server.ca_file().empty())
        o.extra_ca_file = server.ca_file();
    o.proxy = "";  // tests never use the environment's proxy unless they say so
    o.retry.base_delay = 10ms;
    o.retry.max_delay = 50ms;
    o.retry.max_attempts = 3;
    o.retry_seed = 42;
    o.request_timeout = 10s;
    return o;
}

http_request post(std::string path, std::string body = "{}")
{
    http_request r;
    r.method = "POST";
    r.path = std::move(path);
    r.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer sk-test-secret-123"}};
    r.body = std::move(body);
    return r;
}

/// A handler answering from a list of plans in order (the last one repeats).
request_handler sequence(std::vector<response_plan> plans)
{
    auto shared = std::make_shared<std::vector<response_plan>>(std::move(plans));
    auto next = std::make_shared<std::atomic<std::size_t>>(0);
    return [shared, next](const recorded_request&)
    {
        std::size_t i = next->fetch_add(1);
        return (*shared)[std::min(i, shared->size() - 1)];
    };
}

/// Captures the log seam's lines for one test.
struct log_capture
{
    std::mutex mutex;
    std::vector<std::string> lines;

    log_capture()
    {
        set_log_sink(
            [this](log_level, std::string_view line)
            {
                std::lock_guard lock(mutex);
                lines.emplace_back(line);
            },
            log_level::debug);
    }
    ~log_capture() { set_log_sink(nullptr); }
    std::string all()
    {
        std::lock_guard lock(mutex);
        std::string out;
        for (const auto& l : lines)
            out += l + "\n";
        return out;
    }
};

std::uint16_t unused_port()
{
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();  // closed on return: nothing listens there afterwards
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(http_client_suite, io_fixture)

BOOST_AUTO_TEST_CASE(post_over_http_sends_headers_and_body)
{
    fake_http_server server(
        [](const recorded_request&)
        {
            auto p = response_plan::json(200, R"({"ok":true})");
            p.headers.emplace_back("x-request-id", "req-1");
            return p;
        });
    http_client client(ioc.get_executor(), options_for(server));
    http_response r = run_coro(ioc, client.request(post("/chat/completions", R"({"model":"m"})")));
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.body == R"({"ok":true})");
    BOOST_TEST(r.header("X-Request-Id").value_or("") == "req-1");
    BOOST_TEST(r.attempts == 1);

    auto reqs = server.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 1u);
    BOOST_TEST(reqs[0].method == "POST");
    BOOST_TEST(reqs[0].target == "/v1/chat/completions");
    BOOST_TEST(reqs[0].body == R"({"model":"m"})");
    BOOST_TEST(reqs[0].header("host") == "127.0.0.1:" + std::to_string(server.port()));
    BOOST_TEST(reqs[0].header("content-type") == "application/json");
    BOOST_TEST(reqs[0].header("authorization") == "Bearer sk-test-secret-123");
    BOOST_TEST(reqs[0].header("user-agent").find("warpsmith/") == 0u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(get_over_https_with_a_throwaway_ca)
{
    fake_http_server server([](const recorded_request& r)
                            { return response_plan::text(200, "hello " + r.method); },
                            transport::https);
    http_client client(ioc.get_executor(), options_for(server));
    http_request req;
    req.method = "GET";
    req.path = "/models";
    http_response r = run_coro(ioc, client.request(req));
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.body == "hello GET");
    BOOST_TEST(server.requests().at(0).target == "/v1/models");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(sni_is_sent_for_names_not_for_addresses)
{
    fake_http_server server([](const recorded_request&) { return response_plan::text(200, "ok"); },
                            transport::https);
    auto o = options_for(server);
    o.base_url =
        "https://localhost:" + std::to_string(server.port()) + "/v1";  // the certificate names localhost
    http_client by_name(ioc.get_executor(), o);
    BOOST_TEST(run_coro(ioc, by_name.request(post("/x"))).body == "ok");
    http_client by_address(ioc.get_executor(), options_for(server));
    BOOST_TEST(run_coro(ioc, by_address.request(post("/x"))).body == "ok");
    auto reqs = server.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 2u);
    BOOST_TEST(reqs[0].tls_server_name == "localhost");
    BOOST_TEST(reqs[0].header("host") == "localhost:" + std::to_string(server.port()));
    BOOST_TEST(reqs[1].tls_server_name == "");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(keep_alive_reuses_one_connection)
{
    for (transport t : {transport::http, transport::https})
    {
        fake_http_server server([](const recorded_request&) { return response_plan::json(200, "{}"); }, t);
        http_client client(ioc.get_executor(), options_for(server));
        for (int i = 0; i < 4; ++i)
            BOOST_TEST(run_coro(ioc, client.request(post("/x"))).status == 200u);
        BOOST_TEST(server.connections_accepted() == 1u);
        BOOST_TEST(server.request_count() == 4u);
        BOOST_TEST(client.stats().connections_opened == 1u);
        BOOST_TEST(client.stats().connections_reused == 3u);
        BOOST_TEST(server.stop());
    }
}

BOOST_AUTO_TEST_CASE(connection_close_is_respected)
{
    fake_http_server server(
        [](const recorded_request&)
        {
            auto p = response_plan::json(200, "{}");
            p.close = true;
            return p;
        });
    http_client client(ioc.get_executor(), options_for(server));
    for (int i = 0; i < 3; ++i)
        BOOST_TEST(run_coro(ioc, client.request(post("/x"))).status == 200u);
    BOOST_TEST(server.connections_accepted() == 3u);
    BOOST_TEST(client.stats().retries == 0u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(stale_pooled_connection_is_replaced_without_a_retry)
{
    // Request 2 arrives on the pooled connection, which the server then drops without answering,
    // as a server does when it closes an idle connection at the moment the request is sent.
    response_plan dropped;
    dropped.drop = true;
    fake_http_server server(
        sequence({response_plan::json(200, "1"), dropped, response_plan::json(200, "3")}));
    http_client client(ioc.get_executor(), options_for(server));
    BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "1");
    http_response second = run_coro(ioc, client.request(post("/x")));
    BOOST_TEST(second.body == "3");
    BOOST_TEST(second.attempts == 1);
    BOOST_TEST(client.stats().stale_connections_replaced == 1u);
    BOOST_TEST(client.stats().retries == 0u);
    BOOST_TEST(server.connections_accepted() == 2u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(connection_closed_while_idle_is_not_reused)
{
    auto first = response_plan::json(200, "1");
    first.close_after_response = true;  // promises keep-alive, then closes
    fake_http_server server(sequence({first, response_plan::json(200, "2")}));
    http_client client(ioc.get_executor(), options_for(server));
    BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "1");
    std::this_thread::sleep_for(100ms);  // let the FIN arrive
    http_response r = run_coro(ioc, client.request(post("/x")));
    BOOST_TEST(r.body == "2");
    BOOST_TEST(r.attempts == 1);
    BOOST_TEST(server.connections_accepted() == 2u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(retry_after_429_is_honoured)
{
    auto limited = response_plan::json(429, R"({"error":"rate limited"})");
    limited.headers.emplace_back("Retry-After", "1");
    fake_http_server server(sequence({limited, response_plan::json(200, "ok")}));
    http_client client(ioc.get_executor(), options_for(server));
    http_response r = run_coro(ioc, client.request(post("/x")));
    BOOST_TEST(r.body == "ok");
    BOOST_TEST(r.attempts == 2);
    auto reqs = server.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 2u);
    // The 429 left the server after the first arrival, so the gap is at least the requested wait.
    BOOST_TEST((reqs[1].arrival - reqs[0].arrival >= 1000ms));
    BOOST_TEST(client.stats().retries == 1u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(retry_after_ms_is_preferred)
{
    auto limited = response_plan::json(429, "{}");
    limited.headers.emplace_back("Retry-After", "30");
    limited.headers.emplace_back("retry-after-ms", "300");
    fake_http_server server(sequence({limited, response_plan::json(200, "ok")}));
    http_client client(ioc.get_executor(), options_for(server));
    // A 30 s wait would exceed run_coro's limit: finishing at all shows the 300 ms were used.
    http_response r = run_coro(ioc, client.request(post("/x")), 15s);
    BOOST_TEST(r.attempts == 2);
    auto reqs = server.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 2u);
    BOOST_TEST((reqs[1].arrival - reqs[0].arrival >= 300ms));
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(server_errors_then_success)
{
    fake_http_server server(sequence({response_plan::text(500, "boom"),
                                      response_plan::text(503, "busy"),
                                      response_plan::json(200, "fine")}));
    http_client client(ioc.get_executor(), options_for(server));
    http_response r = run_coro(ioc, client.request(post("/x")));
    BOOST_TEST(r.body == "fine");
    BOOST_TEST(r.attempts == 3);
    BOOST_TEST(server.request_count() == 3u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(retries_exhausted_throws_the_last_status)
{
    fake_http_server server([](const recorded_request&)
                            { return response_plan::json(503, R"({"error":"overloaded"})"); });
    http_client client(ioc.get_executor(), options_for(server));
    try
    {
        run_coro(ioc, client.request(post("/x")));
        BOOST_FAIL("expected http_status_error");
    }
    catch (const http_status_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST(e.status() == 503u);
        BOOST_TEST(e.attempts() == 3);
        BOOST_TEST(e.body() == R"({"error":"overloaded"})");
        BOOST_TEST((e.code() == make_error_code(errc::http_status)));
        std::string what = e.what();
        BOOST_TEST(what.find("HTTP 503") != std::string::npos, what);
        BOOST_TEST(what.find("/v1/x") != std::string::npos, what);
    }
    BOOST_TEST(server.request_count() == 3u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(client_errors_are_not_retried)
{
    for (unsigned status : {400u, 401u, 403u, 404u, 422u})
    {
        fake_http_server server([status](const recorded_request&)
                                { return response_plan::json(status, R"({"error":{"message":"nope"}})"); });
        http_client client(ioc.get_executor(), options_for(server));
        try
        {
            run_coro(ioc, client.request(post("/x")));
            BOOST_FAIL("expected http_status_error");
        }
        catch (const http_status_error& e)
        {
            BOOST_TEST_MESSAGE(e.what());
            BOOST_TEST(e.status() == status);
            BOOST_TEST(e.attempts() == 1);
            BOOST_TEST(e.body().find("nope") != std::string::npos);
        }
        BOOST_TEST(server.request_count() == 1u);
        BOOST_TEST(server.stop());
    }
}

BOOST_AUTO_TEST_CASE(error_bodies_are_capped)
{
    fake_http_server server([](const recorded_request&)
                            { return response_plan::text(400, std::string(100'000, 'e')); });
    auto o = options_for(server);
    o.max_error_body_bytes = 1000;
    http_client client(ioc.get_executor(), o);
    try
    {
        run_coro(ioc, client.request(post("/x")));
        BOOST_FAIL("expected http_status_error");
    }
    catch (const http_status_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST(e.body().size() == 1000u);
    }
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(stalled_server_times_out)
{
    response_plan stall;
    stall.stall = true;
    fake_http_server server([stall](const recorded_request&) { return stall; });
    auto o = options_for(server);
    o.request_timeout = 300ms;
    o.retry.max_attempts = 2;
    http_client client(ioc.get_executor(), o);
    const auto start = steady::now();
    try
    {
        run_coro(ioc, client.request(post("/x")));
        BOOST_FAIL("expected a timeout");
    }
    catch (const http_status_error&)
    {
        BOOST_FAIL("not a status error");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST((e.code() == boost::system::error_code(boost::beast::error::timeout)), e.what());
        std::string what = e.what();
        BOOST_TEST(what.find("timeout while reading the response headers") != std::string::npos, what);
        BOOST_TEST(what.find("after 2 attempts") != std::string::npos, what);
    }
    BOOST_TEST((steady::now() - start >= 600ms));
    BOOST_TEST(server.request_count() == 2u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(per_request_timeout_overrides_and_slow_headers_time_out)
{
    response_plan slow = response_plan::json(200, "{}");
    slow.delay_before_headers = 2s;
    fake_http_server server([slow](const recorded_request&) { return slow; });
    auto o = options_for(server);
    o.retry.max_attempts = 1;
    http_client client(ioc.get_executor(), o);
    auto req = post("/x");
    req.timeout = 200ms;
    BOOST_CHECK_THROW(run_coro(ioc, client.request(req)), boost::system::system_error);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(truncated_bodies_are_retryable_errors)
{
    auto cut = response_plan::json(200, std::string(1000, 'x'));
    cut.truncate_after = 400;
    auto cut_chunked = response_plan::sse({{"data: one\n\n"}, {"data: two\n\n"}});
    cut_chunked.truncate_after = 15;  // inside the second chunk
    for (const auto& plan : {cut, cut_chunked})
    {
        // Always truncated: an error after the retries.
        fake_http_server server([plan](const recorded_request&) { return plan; });
        http_client client(ioc.get_executor(), options_for(server));
        try
        {
            run_coro(ioc, client.request(post("/x")));
            BOOST_FAIL("expected a truncation error");
        }
        catch (const boost::system::system_error& e)
        {
            BOOST_TEST_MESSAGE(e.what());
            BOOST_TEST((e.code() == boost::system::error_code(boost::beast::http::error::partial_message)),
                       e.what());
            BOOST_TEST(std::string(e.what()).find("truncated") != std::string::npos, e.what());
        }
        BOOST_TEST(server.request_count() == 3u);
        BOOST_TEST(server.stop());

        // Truncated once, then whole.
        fake_http_server again(sequence({plan, response_plan::json(200, "whole")}));
        http_client client2(ioc.get_executor(), options_for(again));
        http_response r = run_coro(ioc, client2.request(post("/x")));
        BOOST_TEST(r.body == "whole");
        BOOST_TEST(r.attempts == 2);
        BOOST_TEST(again.stop());
    }
}

BOOST_AUTO_TEST_CASE(malformed_responses_are_protocol_errors)
{
    for (std::string raw : {std::string("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n"),
                            std::string("hello there\r\n\r\n"),
                            std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")})
    {
        response_plan bad;
        bad.raw = raw;
        fake_http_server server([bad](const recorded_request&) { return bad; });
        http_client client(ioc.get_executor(), options_for(server));
        try
        {
            run_coro(ioc, client.request(post("/x")));
            BOOST_FAIL("expected a protocol error");
        }
        catch (const boost::system::system_error& e)
        {
            BOOST_TEST_MESSAGE(e.what());
            BOOST_TEST((e.code() == make_error_code(errc::http_protocol)), e.what());
            BOOST_TEST(std::string(e.what()).find("malformed response") != std::string::npos, e.what());
        }
        BOOST_TEST(server.request_count() == 3u);  // retried like any transient failure
        BOOST_TEST(server.stop());
    }
}

BOOST_AUTO_TEST_CASE(interim_responses_are_skipped)
{
    response_plan interim;
    interim.raw =
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal";
    fake_http_server server([interim](const recorded_request&) { return interim; });
    http_client client(ioc.get_executor(), options_for(server));
    http_response r = run_coro(ioc, client.request(post("/x")));
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.body == "final");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(query_strings_stay_out_of_messages)
{
    fake_http_server server([](const recorded_request&) { return response_plan::json(403, "{}"); });
    http_client client(ioc.get_executor(), options_for(server));
    http_request req;
    req.method = "GET";
    req.path = "/models?key=query-secret-789";
    try
    {
        run_coro(ioc, client.request(req));
        BOOST_FAIL("expected http_status_error");
    }
    catch (const http_status_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("query-secret-789") == std::string::npos, e.what());
    }
    BOOST_TEST(server.requests().at(0).target == "/v1/models?key=query-secret-789");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(body_delimited_by_close_over_tls_without_close_notify)
{
    auto plan = response_plan::text(200, "all of it");
    plan.no_length = true;  // the server closes the TCP connection without a TLS close_notify
    fake_http_server server([plan](const recorded_request&) { return plan; }, transport::https);
    http_client client(ioc.get_executor(), options_for(server));
    http_response r = run_coro(ioc, client.request(post("/x")));
    BOOST_TEST(r.body == "all of it");
    BOOST_TEST(r.attempts == 1);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(oversized_success_body_is_an_error)
{
    fake_http_server server([](const recorded_request&)
                            { return response_plan::text(200, std::string(5000, 'b')); });
    auto o = options_for(server);
    o.max_body_bytes = 1000;
    http_client client(ioc.get_executor(), o);
    BOOST_CHECK_THROW(run_coro(ioc, client.request(post("/x"))), boost::system::system_error);
    BOOST_TEST(server.request_count() == 1u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(connection_refused_is_retried_then_reported)
{
    http_client_options o;
    o.base_url = "http://127.0.0.1:" + std::to_string(unused_port());
    o.proxy = "";
    o.retry.base_delay = 10ms;
    o.retry.max_attempts = 2;
    http_client client(ioc.get_executor(), o);
    try
    {
        run_coro(ioc, client.request(post("/x")));
        BOOST_FAIL("expected connection refused");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST((e.code() == boost::system::error_code(boost::asio::error::connection_refused)), e.what());
        BOOST_TEST(std::string(e.what()).find("connecting to 127.0.0.1:") != std::string::npos, e.what());
    }
    BOOST_TEST(client.stats().retries == 1u);
}

BOOST_AUTO_TEST_CASE(sse_events_arrive_before_the_stream_ends)
{
    // The server sends event 2 only after the test saw event 1: a client that buffered the body
    // would never see event 1, the gate would stay shut, and the request would time out.
    for (transport t : {transport::http, transport::https})
    {
        gate saw_first;
        auto plan = response_plan::sse({{"event: delta\ndata: {\"n\":1}\n\n"},
                                        {"data: {\"n\":2}\n\n", 0ms, saw_first},
                                        {": keep-alive\n\ndata: [DONE]\n\n"}});
        fake_http_server server([plan](const recorded_request&) { return plan; }, t);
        auto o = options_for(server);
        o.request_timeout = 10s;
        http_client client(ioc.get_executor(), o);
        std::vector<sse_event> events;
        http_client::event_handler on_event = [&](const sse_event& ev)
        {
            events.push_back(ev);
            if (events.size() == 1)
                saw_first.open();
        };
        http_response r = run_coro(ioc, client.stream_events(post("/chat/completions"), on_event));
        BOOST_TEST(r.status == 200u);
        BOOST_TEST(r.body.empty());
        BOOST_TEST_REQUIRE(events.size() == 3u);
        BOOST_TEST(events[0].event == "delta");
        BOOST_TEST(events[0].data == "{\"n\":1}");
        BOOST_TEST(events[1].data == "{\"n\":2}");
        BOOST_TEST(events[2].data == "[DONE]");
        BOOST_TEST(server.requests().at(0).header("accept") == "text/event-stream");
        BOOST_TEST(server.stop());
    }
}

BOOST_AUTO_TEST_CASE(sse_split_across_chunks_and_utf8)
{
    auto plan =
        response_plan::sse({{"data: he"}, {"llo\r"}, {"\n\r\nda"}, {"ta: w\xC3"}, {"\xB6rld\n"}, {"\n"}});
    fake_http_server server([plan](const recorded_request&) { return plan; }, transport::https);
    http_client client(ioc.get_executor(), options_for(server));
    std::vector<std::string> got;
    http_client::event_handler on_event = [&](const sse_event& ev) { got.push_back(ev.data); };
    run_coro(ioc, client.stream_events(post("/x"), on_event));
    BOOST_TEST_REQUIRE(got.size() == 2u);
    BOOST_TEST(got[0] == "hello");
    BOOST_TEST(got[1] == "w\xC3\xB6rld");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(raw_stream_delivers_bytes_incrementally)
{
    gate go;
    auto plan = response_plan::sse({{"first|"}, {"second|", 0ms, go}, {"third"}});
    plan.headers = {{"Content-Type", "application/octet-stream"}};
    fake_http_server server([plan](const recorded_request&) { return plan; });
    http_client client(ioc.get_executor(), options_for(server));
    std::string received;
    http_client::body_handler on_body = [&](std::string_view piece)
    {
        received += piece;
        if (received == "first|")
            go.open();
    };
    run_coro(ioc, client.stream(post("/x"), on_body));
    BOOST_TEST(received == "first|second|third");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(stream_error_status_throws_with_body_and_delivers_nothing)
{
    fake_http_server server([](const recorded_request&)
                            { return response_plan::json(400, R"({"error":{"message":"bad schema"}})"); });
    http_client client(ioc.get_executor(), options_for(server));
    int events = 0;
    http_client::event_handler on_event = [&](const sse_event&) { ++events; };
    try
    {
        run_coro(ioc, client.stream_events(post("/x"), on_event));
        BOOST_FAIL("expected http_status_error");
    }
    catch (const http_status_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST(e.status() == 400u);
        BOOST_TEST(e.body().find("bad schema") != std::string::npos);
    }
    BOOST_TEST(events == 0);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(stream_events_returns_a_non_sse_body)
{
    fake_http_server server([](const recorded_request&)
                            { return response_plan::json(200, R"({"whole":true})"); });
    http_client client(ioc.get_executor(), options_for(server));
    int events = 0;
    http_client::event_handler on_event = [&](const sse_event&) { ++events; };
    http_response r = run_coro(ioc, client.stream_events(post("/x"), on_event));
    BOOST_TEST(events == 0);
    BOOST_TEST(r.body == R"({"whole":true})");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(stream_cut_after_delivery_is_not_retried)
{
    auto plan = response_plan::sse({{"data: one\n\n"}, {"data: two\n\n", 50ms}});
    plan.truncate_after = 15;
    fake_http_server server([plan](const recorded_request&) { return plan; });
    http_client client(ioc.get_executor(), options_for(server));
    std::vector<std::string> got;
    http_client::event_handler on_event = [&](const sse_event& ev) { got.push_back(ev.data); };
    try
    {
        run_coro(ioc, client.stream_events(post("/x"), on_event));
        BOOST_FAIL("expected a truncation error");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST((e.code() == boost::system::error_code(boost::beast::http::error::partial_message)),
                   e.what());
    }
    BOOST_TEST(got == std::vector<std::string>{"one"});
    BOOST_TEST(server.request_count() == 1u);  // events were delivered: a retry would duplicate them
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(stream_idle_timeout)
{
    gate never;
    auto plan = response_plan::sse({{"data: one\n\n"}, {"data: two\n\n", 0ms, never}});
    fake_http_server server([plan](const recorded_request&) { return plan; });
    auto o = options_for(server);
    o.stream_idle_timeout = 300ms;
    http_client client(ioc.get_executor(), o);
    int events = 0;
    http_client::event_handler on_event = [&](const sse_event&) { ++events; };
    try
    {
        run_coro(ioc, client.stream_events(post("/x"), on_event));
        BOOST_FAIL("expected a timeout");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST((e.code() == boost::system::error_code(boost::beast::error::timeout)), e.what());
    }
    BOOST_TEST(events == 1);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(handler_exception_propagates_and_closes_the_connection)
{
    auto plan = response_plan::sse({{"data: one\n\n"}, {"data: two\n\n"}});
    fake_http_server server([plan](const recorded_request&) { return plan; });
    http_client client(ioc.get_executor(), options_for(server));
    http_client::event_handler on_event = [](const sse_event&) { throw std::logic_error("caller gave up"); };
    BOOST_CHECK_THROW(run_coro(ioc, client.stream_events(post("/x"), on_event)), std::logic_error);
    BOOST_TEST(server.request_count() == 1u);
    // The next request needs a new connection: the interrupted one was not pooled.
    BOOST_TEST(run_coro(ioc, client.request(post("/y"))).status == 200u);
    BOOST_TEST(server.connections_accepted() == 2u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(hostname_mismatch_fails_verification)
{
    temp_dir dir("warpsmith-cert");
    auto cert = make_self_signed_certificate(dir.path(), {"other.example"});
    fake_http_server server([](const recorded_request&)
                            { return response_plan::text(200, "should not see"); },
                            transport::https,
                            cert);
    auto o = options_for(server);
    o.extra_ca_file = cert.cert;  // trusted, but issued for another name
    http_client client(ioc.get_executor(), o);
    try
    {
        run_coro(ioc, client.request(post("/x")));
        BOOST_FAIL("expected a verification failure");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        std::string what = e.what();
        BOOST_TEST(what.find("certificate verify failed") != std::string::npos, what);
        BOOST_TEST(what.find("127.0.0.1") != std::string::npos, what);
        BOOST_TEST(what.find("host name") != std::string::npos, what);
    }
    BOOST_TEST(server.request_count() == 0u);
    BOOST_TEST(server.connections_accepted() == 1u);  // not retried
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(untrusted_certificate_fails_unless_verification_is_off)
{
    fake_http_server server([](const recorded_request&) { return response_plan::text(200, "local"); },
                            transport::https);
    auto o = options_for(server);
    o.extra_ca_file.reset();
    {
        http_client client(ioc.get_executor(), o);
        try
        {
            run_coro(ioc, client.request(post("/x")));
            BOOST_FAIL("expected a verification failure");
        }
        catch (const boost::system::system_error& e)
        {
            BOOST_TEST_MESSAGE(e.what());
            std::string what = e.what();
            BOOST_TEST(what.find("certificate verify failed") != std::string::npos, what);
            BOOST_TEST(what.find("self-signed") != std::string::npos, what);
        }
    }
    o.verify_tls = false;
    http_client lax(ioc.get_executor(), o);
    BOOST_TEST(run_coro(ioc, lax.request(post("/x"))).body == "local");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(missing_ca_file_is_a_user_error)
{
    http_client_options o;
    o.base_url = "https://127.0.0.1:1";
    o.extra_ca_file = "/nonexistent/ca.pem";
    BOOST_CHECK_THROW(http_client(ioc.get_executor(), o), user_error);
    o.extra_ca_file.reset();
    o.base_url = "https://bad host";
    BOOST_CHECK_THROW(http_client(ioc.get_executor(), o), user_error);
    o.base_url = "https://127.0.0.1:1";
    o.max_concurrent_requests = 0;
    BOOST_CHECK_THROW(http_client(ioc.get_executor(), o), user_error);
}

BOOST_AUTO_TEST_CASE(concurrency_cap_holds_at_the_server)
{
    auto slow = response_plan::json(200, "{}");
    slow.delay_before_headers = 150ms;
    fake_http_server server([slow](const recorded_request&) { return slow; });
    auto o = options_for(server);
    o.max_concurrent_requests = 2;
    http_client client(ioc.get_executor(), o);
    int done = 0, failed = 0;
    auto on_done = [&](std::exception_ptr e, http_response)
    {
        ++done;
        if (e)
            ++failed;
    };
    for (int i = 0; i < 6; ++i)
        boost::asio::co_spawn(ioc, client.request(post("/x")), on_done);
    ioc.run_for(20s);
    BOOST_TEST(done == 6);
    BOOST_TEST(failed == 0);
    BOOST_TEST(server.request_count() == 6u);
    BOOST_TEST(server.max_concurrent_requests() == 2u);
    BOOST_TEST(server.connections_accepted() == 2u);  // each slot reuses its connection
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(time_queued_for_a_slot_does_not_count_against_the_timeout)
{
    auto slow = response_plan::json(200, "{}");
    slow.delay_before_headers = 200ms;
    fake_http_server server([slow](const recorded_request&) { return slow; });
    auto o = options_for(server);
    o.max_concurrent_requests = 1;
    o.request_timeout = 600ms;  // the fourth request waits ~600 ms for its slot
    o.retry.max_attempts = 1;
    http_client client(ioc.get_executor(), o);
    int ok = 0;
    auto on_done = [&](std::exception_ptr e, http_response)
    {
        if (!e)
            ++ok;
    };
    for (int i = 0; i < 4; ++i)
        boost::asio::co_spawn(ioc, client.request(post("/x")), on_done);
    ioc.run_for(20s);
    BOOST_TEST(ok == 4);
    BOOST_TEST(server.max_concurrent_requests() == 1u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(https_through_a_connect_proxy)
{
    fake_http_server server([](const recorded_request&) { return response_plan::json(200, "via proxy"); },
                            transport::https);
    fake_connect_proxy proxy;
    auto o = options_for(server);
    o.proxy = proxy.url();
    http_client client(ioc.get_executor(), o);
    BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "via proxy");
    BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "via proxy");
    auto records = proxy.records();
    BOOST_TEST_REQUIRE(records.size() == 1u);  // one tunnel, reused
    BOOST_TEST(records[0].method == "CONNECT");
    BOOST_TEST(records[0].target == "127.0.0.1:" + std::to_string(server.port()));
    BOOST_TEST(server.requests().at(0).target == "/v1/x");  // origin form inside the tunnel
    BOOST_TEST(proxy.stop());
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(proxy_credentials_and_refusal)
{
    fake_http_server server([](const recorded_request&) { return response_plan::json(200, "ok"); },
                            transport::https);
    fake_connect_proxy proxy("Basic dXNlcjpwYXNz");  // user:pass
    auto o = options_for(server);
    o.proxy = "http://user:pass@127.0.0.1:" + std::to_string(proxy.port());
    {
        http_client client(ioc.get_executor(), o);
        BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "ok");
    }
    o.proxy = proxy.url();
    http_client anonymous(ioc.get_executor(), o);
    try
    {
        run_coro(ioc, anonymous.request(post("/x")));
        BOOST_FAIL("expected a proxy refusal");
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        std::string what = e.what();
        BOOST_TEST(what.find("refused CONNECT") != std::string::npos, what);
        BOOST_TEST(what.find("407") != std::string::npos, what);
    }
    BOOST_TEST(proxy.records().size() == 2u);  // 407 is not retried
    BOOST_TEST(proxy.stop());
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(plain_http_through_a_proxy_uses_absolute_form)
{
    fake_http_server server([](const recorded_request&)
                            { return response_plan::json(200, "plain via proxy"); });
    fake_connect_proxy proxy;
    auto o = options_for(server);
    o.proxy = proxy.url();
    http_client client(ioc.get_executor(), o);
    BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "plain via proxy");
    auto records = proxy.records();
    BOOST_TEST_REQUIRE(records.size() == 1u);
    BOOST_TEST(records[0].method == "POST");
    BOOST_TEST(records[0].target == server.base_url() + "/v1/x");
    BOOST_TEST(proxy.stop());
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(environment_proxy_is_bypassed_for_loopback)
{
    fake_http_server server([](const recorded_request&) { return response_plan::json(200, "direct"); });
    fake_connect_proxy proxy;
    const char* old = std::getenv("http_proxy");
    std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
    ::setenv("http_proxy", proxy.url().c_str(), 1);
    auto o = options_for(server);
    o.proxy.reset();  // from the environment
    {
        http_client client(ioc.get_executor(), o);
        BOOST_TEST(!client.proxy().has_value());
        BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "direct");
    }
    if (saved)
        ::setenv("http_proxy", saved->c_str(), 1);
    else
        ::unsetenv("http_proxy");
    BOOST_TEST(proxy.records().empty());
    BOOST_TEST(proxy.stop());
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(credentials_never_reach_the_log)
{
    log_capture capture;
    fake_http_server server(sequence({response_plan::text(500, "oops"), response_plan::json(200, "{}")}));
    http_client client(ioc.get_executor(), options_for(server));
    auto req = post("/x");
    req.headers.emplace_back("api-key", "azure-key-456");
    run_coro(ioc, client.request(req));
    std::string log = capture.all();
    BOOST_TEST(log.find("sk-test-secret-123") == std::string::npos, log);
    BOOST_TEST(log.find("azure-key-456") == std::string::npos, log);
    BOOST_TEST(log.find("Authorization: [redacted]") != std::string::npos, log);
    BOOST_TEST(log.find("api-key: [redacted]") != std::string::npos, log);
    BOOST_TEST(log.find("HTTP 500; backoff") != std::string::npos, log);  // the retry was logged
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(client_destroyed_while_a_request_runs)
{
    auto slow = response_plan::json(200, "late");
    slow.delay_before_headers = 100ms;
    fake_http_server server([slow](const recorded_request&) { return slow; });
    std::optional<http_response> got;
    auto on_done = [&](std::exception_ptr e, http_response r)
    {
        if (!e)
            got = std::move(r);
    };
    {
        http_client client(ioc.get_executor(), options_for(server));
        boost::asio::co_spawn(ioc, client.request(post("/x")), on_done);
    }
    ioc.run_for(10s);
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->body == "late");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(terminal_cancellation_aborts_and_discards_the_connection)
{
    response_plan stall;
    stall.stall = true;
    fake_http_server server(sequence({stall, response_plan::json(200, "after")}));
    http_client client(ioc.get_executor(), options_for(server));
    boost::asio::cancellation_signal signal;
    std::exception_ptr error;
    bool done = false;
    auto on_done = [&](std::exception_ptr e, http_response)
    {
        error = e;
        done = true;
    };
    boost::asio::co_spawn(
        ioc, client.request(post("/x")), boost::asio::bind_cancellation_slot(signal.slot(), on_done));
    boost::asio::steady_timer timer(ioc, 200ms);
    timer.async_wait([&](boost::system::error_code)
                     { signal.emit(boost::asio::cancellation_type::terminal); });
    ioc.run_for(10s);
    BOOST_TEST_REQUIRE(done);
    try
    {
        std::rethrow_exception(error);
    }
    catch (const boost::system::system_error& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST((e.code() == boost::system::error_code(boost::asio::error::operation_aborted)), e.what());
    }
    BOOST_TEST(server.request_count() == 1u);  // cancellation is never retried
    BOOST_TEST(run_coro(ioc, client.request(post("/x"))).body == "after");
    BOOST_TEST(server.connections_accepted() == 2u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_SUITE_END()
