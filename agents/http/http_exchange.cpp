// One request of http_client: the Beast request message, one exchange on a connection (instantiated
// for plain TCP and for TLS streams), one attempt with its concurrency slot and stale-connection
// replacement, and the retry loop around the attempts.

#include "agents/http/http_client_impl.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <stdexcept>
#include <vector>

namespace warpsmith::http
{

namespace detail
{

std::string millis(steady::duration d)
{
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

}  // namespace detail

bhttp::request<bhttp::string_body> http_client::impl::build_request(const http_request& req) const
{
    if (!req.path.empty() && req.path.front() != '/')
        throw std::invalid_argument("http_request::path must start with '/': " + req.path);
    bhttp::request<bhttp::string_body> r;
    r.version(11);
    auto verb = bhttp::string_to_verb(req.method);
    if (verb == bhttp::verb::unknown)
        r.method_string(req.method);
    else
        r.method(verb);
    std::string target = origin.path + req.path;
    if (target.empty())
        target = "/";
    if (proxy && !origin.is_https())
        target = origin.scheme + "://" + origin.host_header() + target;  // absolute form for a proxy
    r.target(target);
    r.set(bhttp::field::host, origin.host_header());
    if (!find_header(req.headers, "user-agent"))
        r.set(bhttp::field::user_agent, opts.user_agent);
    for (const auto& [name, value] : req.headers)
    {
        if (value.find_first_of("\r\n") != std::string::npos ||
            name.find_first_of("\r\n: ") != std::string::npos)
            throw user_error("HTTP header '" + name + "' contains a line break or an invalid character");
        r.insert(name, value);
    }
    if (proxy && !origin.is_https() && !proxy_authorization.empty())
        r.set(bhttp::field::proxy_authorization, proxy_authorization);
    r.body() = req.body;
    r.keep_alive(opts.max_idle_connections > 0);
    r.prepare_payload();
    return r;
}

template <class Stream>
asio::awaitable<exchange_result> http_client::impl::exchange(Stream& stream,
                                                             connection& conn,
                                                             bhttp::request<bhttp::string_body>& breq,
                                                             body_consumer* consumer,
                                                             bool reused,
                                                             steady::time_point deadline)
{
    beast::tcp_stream& low = conn.lowest();
    low.expires_at(deadline);
    {
        auto [ec, n] = co_await bhttp::async_write(stream, breq, asio::as_tuple(asio::use_awaitable));
        if (ec)
            throw attempt_error(make_failure(ec, "sending the request", reused));
    }

    std::optional<bhttp::response_parser<bhttp::buffer_body>> parser;
    for (;;)
    {
        parser.emplace();
        // Limits are enforced below (max_body_bytes), and a stream has none: Beast's default of
        // 8 MiB would end a long generation.
        parser->body_limit(boost::none);
        if (breq.method() == bhttp::verb::head)
            parser->skip(true);
        auto [ec, n] = co_await bhttp::async_read_header(
            stream, conn.buffer, *parser, asio::as_tuple(asio::use_awaitable));
        if (ec)
            throw attempt_error(
                make_failure(ec, "reading the response headers", reused && !parser->got_some()));
        const unsigned status = parser->get().result_int();
        if (status == 101)
            throw attempt_error(
                protocol_failure(transport_failure::malformed, "unexpected 101 Switching Protocols"));
        if (status >= 100 && status < 200)
            continue;  // an interim response (100 Continue, 103 Early Hints): the real one follows
        break;
    }

    auto& msg = parser->get();
    exchange_result result;
    http_response& resp = result.response;
    resp.status = msg.result_int();
    resp.reason = std::string(msg.reason());
    for (const auto& field : msg)
        resp.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    const bool success = resp.status / 100 == 2;
    const bool deliver = success && consumer != nullptr;
    if (deliver && consumer->on_head)
        consumer->on_head(resp);
    const std::size_t limit = success ? opts.max_body_bytes : opts.max_error_body_bytes;

    bool reusable = true;
    std::size_t delivered = 0;
    std::vector<char> chunk(std::size_t{16} * 1024);
    while (!parser->is_done())
    {
        msg.body().data = chunk.data();
        msg.body().size = chunk.size();
        if (deliver)
            low.expires_at(std::min(steady::now() + opts.stream_idle_timeout, deadline));
        // async_read_some, not async_read: the latter waits until the buffer is full or the message
        // ends, which would hold streamed events back.
        auto [ec, n] = co_await bhttp::async_read_some(
            stream, conn.buffer, *parser, asio::as_tuple(asio::use_awaitable));
        if (ec == bhttp::error::need_buffer)
            ec = {};
        const std::size_t got = chunk.size() - msg.body().size;
        if (got > 0)
        {
            std::string_view piece(chunk.data(), got);
            if (deliver)
            {
                // A streamed body has the same bound as a whole one: a server's answer of
                // gigabytes would otherwise be kept in memory and in the records.
                if (delivered + got > limit)
                {
                    auto f =
                        protocol_failure(transport_failure::other,
                                         "response body larger than " + std::to_string(limit) + " bytes");
                    throw attempt_error(f);
                }
                delivered += got;
                consumer->on_data(piece);
            }
            else if (resp.body.size() + got <= limit)
                resp.body.append(piece);
            else if (success)
            {
                auto f = protocol_failure(transport_failure::other,
                                          "response body larger than " + std::to_string(limit) + " bytes");
                throw attempt_error(f);
            }
            else
            {
                // An error body only explains the status; the rest is dropped with the connection.
                resp.body.append(piece.substr(0, limit - resp.body.size()));
                reusable = false;
                break;
            }
        }
        if (ec)
        {
            // A TLS peer may close without close_notify. That only matters when the body is
            // delimited by the end of the connection; the message then ends here.
            if (ec == ssl::error::stream_truncated && parser->need_eof())
            {
                error_code eof_ec;
                parser->put_eof(eof_ec);
                if (!eof_ec)
                {
                    reusable = false;
                    break;
                }
            }
            auto f = make_failure(ec, "reading the response body", false);
            f.final = delivered > 0;
            throw attempt_error(f);
        }
    }
    result.reusable = reusable && parser->is_done() && parser->keep_alive() && !parser->need_eof();
    co_return result;
}

asio::awaitable<attempt_result> http_client::impl::run_attempt(const http_request& req,
                                                               body_consumer* consumer,
                                                               const std::string& context,
                                                               int attempt)
{
    error_code none;
    auto [slot_ec] = co_await slots.async_send(none, asio::as_tuple(asio::use_awaitable));
    if (slot_ec)
        throw_system_error(asio::error::operation_aborted,
                           context + ": cancelled while waiting for a free request slot");
    slot_guard guard(this);
    // The deadline starts once a slot is free: time spent queued behind the concurrency cap is not
    // the server's fault.
    const auto deadline = steady::now() + req.timeout.value_or(opts.request_timeout);

    bool force_fresh = false;
    for (;;)
    {
        std::unique_ptr<connection> conn;
        if (!force_fresh)
            conn = take_idle();
        const bool reused = conn != nullptr;
        std::optional<attempt_failure> failure;
        try
        {
            if (reused)
                ++counters.connections_reused;
            else
                conn = co_await open_connection(deadline);
            auto breq = build_request(req);
            const auto started = steady::now();
            header_list shown;
            for (const auto& field : breq)
                shown.emplace_back(std::string(field.name_string()), std::string(field.value()));
            log_debug("http: -> " + context + " (attempt " + std::to_string(attempt) + ", connection #" +
                      std::to_string(conn->id) + (reused ? " reused" : " new") + ") " +
                      format_headers_redacted(shown));
            exchange_result r;
            if (conn->tls)
                r = co_await exchange(*conn->tls, *conn, breq, consumer, reused, deadline);
            else
                r = co_await exchange(*conn->plain, *conn, breq, consumer, reused, deadline);
            log_debug("http: <- " + std::to_string(r.response.status) + " " + r.response.reason + " for " +
                      context + " in " + millis(steady::now() - started) + " (connection #" +
                      std::to_string(conn->id) + (r.reusable ? ", kept" : ", closed") + ")");
            if (r.reusable)
                put_idle(std::move(conn));
            attempt_result done;
            done.response = std::move(r.response);
            co_return done;
        }
        catch (attempt_error& e)
        {
            failure = std::move(e.failure);
        }
        if (failure->stale && reused)
        {
            // The server closed this idle connection before our request reached it; that says
            // nothing about the request, so it is sent again on a new connection, uncounted.
            ++counters.stale_connections_replaced;
            log_debug("http: connection #" + std::to_string(conn->id) + " was closed by the server (" +
                      failure->what + "); retrying on a new connection");
            force_fresh = true;
            continue;
        }
        attempt_result failed;
        failed.failure = std::move(failure);
        co_return failed;
    }
}

asio::awaitable<http_response> http_client::impl::run(http_request req, body_consumer* consumer)
{
    auto self = shared_from_this();  // the client may be destroyed while this runs
    // The query is left out of messages and logs: some APIs take a key there.
    const std::string context =
        req.method + " " + origin.to_string() + req.path.substr(0, req.path.find('?'));
    ++counters.requests;
    for (int attempt = 1;; ++attempt)
    {
        attempt_result r = co_await run_attempt(req, consumer, context, attempt);
        if (r.response && r.response->status / 100 == 2)
        {
            r.response->attempts = attempt;
            co_return std::move(*r.response);
        }
        attempt_outcome outcome = r.response ? attempt_outcome::http(r.response->status,
                                                                     r.response->header("retry-after"),
                                                                     r.response->header("retry-after-ms"))
                                             : attempt_outcome::transport(r.failure->kind);
        retry_decision d;
        if (r.failure && r.failure->final)
            d.reason = r.failure->what + " after part of the body was delivered";
        else
            d = policy.decide(outcome, attempt);
        if (d.retry && r.response && opts.final_answer)
            if (auto why = opts.final_answer(*r.response))
            {
                d.retry = false;
                d.reason = *why;
            }
        if (!d.retry)
        {
            if (r.response)
                throw http_status_error(r.response->status,
                                        r.response->reason,
                                        std::move(r.response->headers),
                                        std::move(r.response->body),
                                        context,
                                        attempt);
            std::string message = context + ": " + r.failure->what;
            if (attempt > 1)
                message += " (after " + std::to_string(attempt) + " attempts)";
            throw_system_error(r.failure->code, message);
        }
        log_warn("http: " + context + ": " + d.reason + "; retrying (attempt " + std::to_string(attempt + 1) +
                 " of " + std::to_string(policy.options().max_attempts) + ")");
        ++counters.retries;
        asio::steady_timer timer(ex);
        timer.expires_after(d.delay);
        auto [wait_ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (wait_ec)
            throw_system_error(wait_ec, context + ": cancelled while waiting to retry");
    }
}

}  // namespace warpsmith::http
