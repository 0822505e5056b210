#pragma once

// The HTTP/1.1 client every model provider talks through (SPEC §5): Boost.Beast over TCP or TLS,
// driven by C++20 coroutines. Decisions live in sans-I/O classes (retry_policy, sse_parser,
// proxy_config, url); this layer only does I/O. Design: docs/http-client.md.
//
// * TLS: OpenSSL with the system CA store, plus an optional extra CA file; SNI; host name
//   verification. verify_tls=false exists only for callers that allow it (a named local endpoint).
// * Keep-alive: idle connections are pooled per client (one client = one origin). A pooled
//   connection found dead on reuse is replaced by a fresh one without counting as a retry.
// * Timeouts: each attempt has an overall deadline (request_timeout); connecting has its own limit;
//   streams also fail after stream_idle_timeout without a byte.
// * Retries: per retry_policy, with timers, before any body byte reached the caller.
// * Concurrency: at most max_concurrent_requests attempts in flight; the rest wait in order.
// * Proxies: from the environment (proxy_config.hpp) or given explicitly; https through a CONNECT
//   tunnel, http in absolute form.
// * Logging: one debug line per request and response through the warpsmith log seam, with
//   credentials redacted (Authorization, api-key, ...); a warning per retry.
//
// Threading: an http_client and all its operations belong to one thread (the engine's io_context,
// or one strand); it is not thread-safe. Operations keep the client's state alive on their own, so
// destroying the http_client while requests are in flight is safe (they finish normally).

#include "agents/http/http_message.hpp"
#include "agents/http/retry_policy.hpp"
#include "agents/http/sse_parser.hpp"
#include "agents/http/url.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::http
{

struct http_client_options
{
    /// The origin and path prefix of every request: "https://api.openai.com/v1".
    std::string base_url;
    /// Verify the server certificate and host name. Only a caller that names a local endpoint may
    /// turn it off.
    bool verify_tls = true;
    /// A PEM file of extra trusted certificates, loaded in addition to the system store.
    std::optional<std::filesystem::path> extra_ca_file;

    /// TCP connect + proxy CONNECT + TLS handshake, for one new connection.
    std::chrono::milliseconds connect_timeout{15'000};
    /// Overall deadline of one attempt, from getting a concurrency slot to the last body byte
    /// (time queued behind max_concurrent_requests does not count; a request may override it with
    /// http_request::timeout).
    std::chrono::milliseconds request_timeout{600'000};
    /// Longest silence between two reads of a streamed body.
    std::chrono::milliseconds stream_idle_timeout{120'000};

    /// Attempts in flight at once (requests beyond wait for a slot, first come first served).
    std::size_t max_concurrent_requests = 8;
    /// Idle keep-alive connections kept for reuse; 0 disables reuse.
    std::size_t max_idle_connections = 8;
    /// Idle connections older than this are closed instead of reused (servers drop them anyway).
    std::chrono::milliseconds idle_connection_timeout{30'000};

    retry_options retry;
    std::uint64_t retry_seed = 0;  ///< 0: random; tests fix it.
    /// Given a non-2xx answer that the retry policy would retry (its error body included), returns
    /// a reason to give up at once instead, or nullopt. The caller knows what a body means (an
    /// exhausted quota answers 429 like a rate limit, but waiting does not refill it).
    std::function<std::optional<std::string>(const http_response&)> final_answer;

    /// Unset: proxy from the environment (https_proxy, http_proxy, all_proxy, no_proxy). "": no
    /// proxy. Otherwise "http://[user:pw@]host:port", used for every host, loopback included.
    std::optional<std::string> proxy;

    std::size_t max_body_bytes = 64u << 20;        ///< Success bodies, streamed or not.
    std::size_t max_error_body_bytes = 64u << 10;  ///< Kept of a non-2xx body (the rest is dropped).
    std::string user_agent;                        ///< Default "warpsmith/<version>".
};

/// Counters for tests and diagnostics.
struct http_client_stats
{
    std::uint64_t connections_opened = 0;
    std::uint64_t connections_reused = 0;
    std::uint64_t stale_connections_replaced = 0;  ///< Reused connections that failed first and were
                                                   ///< replaced without counting a retry.
    std::uint64_t retries = 0;
    std::uint64_t requests = 0;
};

class http_client
{
public:
    /// Receives body bytes of a streamed 2xx response as they arrive, in pieces of any size.
    using body_handler = std::function<void(std::string_view)>;
    /// Receives each server-sent event of a streamed 2xx response as soon as it is complete.
    using event_handler = std::function<void(const sse_event&)>;

    /// Throws user_error (one line) for a malformed base_url or proxy, an unreadable CA file, or
    /// max_concurrent_requests == 0. I/O objects use `ex`.
    http_client(boost::asio::any_io_executor ex, http_client_options opts);
    ~http_client();
    http_client(const http_client&) = delete;
    http_client& operator=(const http_client&) = delete;

    /// Sends `req` and returns the complete 2xx response (body included).
    ///
    /// Awaitable; resumes on the awaiting coroutine's executor. `req` is taken by value.
    /// Throws:
    ///  * http_status_error (code errc::http_status) for a final non-2xx status, after retries for
    ///    retryable statuses, carrying status, headers and (a prefix of) the body;
    ///  * system_error for transport failures after retries: the Asio/Beast/SSL code for
    ///    refused/reset/timeout (beast::error::timeout)/truncated (http::error::partial_message)/
    ///    TLS failures, errc::http_protocol for a malformed response, a body over max_body_bytes or
    ///    a proxy refusal. The message names the method, URL and what failed; a certificate
    ///    failure reads "... TLS handshake with HOST:PORT failed: certificate verify failed (...)".
    /// Cancellation: terminal (the connection in use is closed; the error is operation_aborted).
    boost::asio::awaitable<http_response> request(http_request req);

    /// Sends `req` and passes the 2xx body to `on_body` incrementally as bytes arrive (each read is
    /// delivered at once, never buffered until a size is reached). Returns the response with status
    /// and headers and an empty body once the body is complete. Non-2xx answers and failures
    /// before the first body byte are handled as in request() (retries, http_status_error). A
    /// failure after body bytes were delivered is not retried: it throws system_error
    /// (e.g. partial_message, timeout). An exception thrown by `on_body` closes the connection and
    /// propagates unchanged. `on_body` is called on the awaiting coroutine's thread and must stay
    /// valid until the awaitable completes. Cancellation: terminal.
    boost::asio::awaitable<http_response> stream(http_request req, body_handler on_body);

    /// Like stream(), parsing the body as server-sent events (sse_parser) and passing each event to
    /// `on_event` as soon as its terminating blank line arrives. Adds "Accept: text/event-stream"
    /// unless the request sets Accept. An unterminated last event of a cleanly ended body is
    /// delivered too. When the 2xx response is not text/event-stream (a server that ignored
    /// "stream": true), no events are delivered and its body is returned in http_response::body.
    boost::asio::awaitable<http_response> stream_events(http_request req, event_handler on_event);

    const http_url& base_url() const;
    /// The proxy in use, if any (never printed with its password: use http_url::to_string()).
    const std::optional<http_url>& proxy() const;
    http_client_stats stats() const;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace warpsmith::http
