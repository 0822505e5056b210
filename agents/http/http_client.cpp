// The Beast/Asio shell of http_client. All template-heavy code of the client lives in this one
// translation unit (the exchange is instantiated for plain TCP and for TLS streams).

#include "agents/http/http_client.hpp"

#include "agents/http/proxy_config.hpp"
#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cctype>
#include <cerrno>
#include <openssl/x509.h>
#include <stdexcept>
#include <sys/socket.h>
#include <vector>

namespace warpsmith::http
{

namespace detail
{

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using steady = std::chrono::steady_clock;
using boost::system::error_code;

/// One keep-alive connection: plain TCP or TLS over TCP, with its read buffer.
struct connection
{
    std::uint64_t id = 0;
    std::unique_ptr<beast::tcp_stream> plain;
    std::unique_ptr<ssl::stream<beast::tcp_stream>> tls;
    beast::flat_buffer buffer;
    steady::time_point idle_since;

    beast::tcp_stream& lowest() { return tls ? tls->next_layer() : *plain; }
};

/// Why one attempt failed, before the retry decision.
struct attempt_failure
{
    transport_failure kind = transport_failure::other;
    error_code code;
    std::string what;    ///< "timeout while reading the response headers"
    bool stale = false;  ///< A reused connection failed before any byte of a response arrived.
    bool final = false;  ///< Body bytes already reached the caller: never retried.
};

class attempt_error : public std::exception
{
public:
    explicit attempt_error(attempt_failure f) : failure(std::move(f)) {}
    const char* what() const noexcept override { return failure.what.c_str(); }
    attempt_failure failure;
};

/// What a streaming caller plugs into an exchange: the 2xx head, then body bytes.
struct body_consumer
{
    std::function<void(const http_response&)> on_head;
    std::function<void(std::string_view)> on_data;
};

struct exchange_result
{
    http_response response;
    bool reusable = false;
};

struct attempt_result
{
    std::optional<http_response> response;
    std::optional<attempt_failure> failure;
};

transport_failure classify(const error_code& ec)
{
    namespace ae = asio::error;
    if (ec == ae::operation_aborted)
        return transport_failure::cancelled;
    if (ec == beast::error::timeout || ec == ae::timed_out)
        return transport_failure::timeout;
    if (ec == ae::connection_refused || ec == ae::network_unreachable || ec == ae::host_unreachable ||
        ec == ae::network_down || ec == ae::host_not_found_try_again)
        return transport_failure::connection_refused;
    if (ec == ae::connection_reset || ec == ae::connection_aborted || ec == ae::broken_pipe ||
        ec == ae::eof || ec == ae::not_connected || ec == bhttp::error::end_of_stream)
        return transport_failure::connection_reset;
    if (ec == bhttp::error::partial_message || ec == ssl::error::stream_truncated)
        return transport_failure::truncated;
    if (ec == ae::host_not_found || ec == ae::no_data || ec == ae::service_not_found)
        return transport_failure::name_resolution;
    if (ec == bhttp::error::body_limit || ec == bhttp::error::buffer_overflow)
        return transport_failure::other;
    if (ec.category() == make_error_code(bhttp::error::bad_version).category())
        return transport_failure::malformed;
    if (ec.category() == asio::error::get_ssl_category())
        return transport_failure::tls;
    return transport_failure::other;
}

attempt_failure make_failure(const error_code& ec, const std::string& phase, bool stale)
{
    attempt_failure f;
    f.kind = classify(ec);
    // Only a closed or reset connection says "stale"; a timeout or a cancellation does not.
    f.stale =
        stale && (f.kind == transport_failure::connection_reset || f.kind == transport_failure::truncated);
    if (f.kind == transport_failure::malformed)
    {
        // Parse errors become one project code so providers need not know Beast's categories.
        f.code = make_error_code(errc::http_protocol);
        f.what = "malformed response while " + phase + " (" + ec.message() + ")";
    }
    else
    {
        f.code = ec;
        f.what = std::string(to_string(f.kind)) + " while " + phase;
    }
    return f;
}

attempt_failure protocol_failure(transport_failure kind, const std::string& what)
{
    attempt_failure f;
    f.kind = kind;
    f.code = make_error_code(errc::http_protocol);
    f.what = what;
    return f;
}

bool istarts_with(std::string_view s, std::string_view prefix)
{
    if (s.size() < prefix.size())
        return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) !=
            std::tolower(static_cast<unsigned char>(prefix[i])))
            return false;
    return true;
}

bool is_ip_literal(const std::string& host)
{
    error_code ec;
    asio::ip::make_address(host, ec);
    return !ec;
}

std::string millis(steady::duration d)
{
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

}  // namespace detail

using namespace detail;

struct http_client::impl : std::enable_shared_from_this<http_client::impl>
{
    impl(asio::any_io_executor executor, http_client_options options);

    static asio::awaitable<http_response> do_request(std::shared_ptr<impl> self, http_request req);
    static asio::awaitable<http_response> do_stream(std::shared_ptr<impl> self,
                                                    http_request req,
                                                    body_handler on_body);
    static asio::awaitable<http_response> do_stream_events(std::shared_ptr<impl> self,
                                                           http_request req,
                                                           event_handler on_event);
    asio::awaitable<http_response> run(http_request req, body_consumer* consumer);
    asio::awaitable<attempt_result> run_attempt(const http_request& req,
                                                body_consumer* consumer,
                                                const std::string& context,
                                                int attempt);
    asio::awaitable<std::unique_ptr<connection>> open_connection(steady::time_point deadline);
    asio::awaitable<void> open_tunnel(beast::tcp_stream& tcp,
                                      beast::flat_buffer& buffer,
                                      steady::time_point until);
    template <class Stream>
    asio::awaitable<exchange_result> exchange(Stream& stream,
                                              connection& conn,
                                              bhttp::request<bhttp::string_body>& breq,
                                              body_consumer* consumer,
                                              bool reused,
                                              steady::time_point deadline);
    bhttp::request<bhttp::string_body> build_request(const http_request& req) const;
    std::unique_ptr<connection> take_idle();
    void put_idle(std::unique_ptr<connection> conn);

    // Releases one concurrency slot on destruction.
    struct slot_guard
    {
        impl* owner;
        slot_guard(impl* o) : owner(o) {}
        slot_guard(const slot_guard&) = delete;
        slot_guard& operator=(const slot_guard&) = delete;
        ~slot_guard()
        {
            owner->slots.try_receive([](error_code) {});
        }
    };

    static std::size_t checked_slots(const http_client_options& o)
    {
        if (o.max_concurrent_requests == 0)
            throw user_error("http client: max_concurrent_requests must be at least 1");
        return o.max_concurrent_requests;
    }

    asio::any_io_executor ex;
    http_client_options opts;
    http_url origin;
    std::optional<http_url> proxy;
    std::string proxy_authorization;
    ssl::context ssl_ctx{ssl::context::tls_client};
    std::vector<std::unique_ptr<connection>> idle;
    // A channel of capacity N used as a semaphore: sending takes a slot (waits when all N are taken),
    // try_receive gives one back and wakes the oldest waiter.
    asio::experimental::channel<void(error_code)> slots;
    retry_policy policy;
    http_client_stats counters;
    std::uint64_t next_connection_id = 0;
};

http_client::impl::impl(asio::any_io_executor executor, http_client_options options)
    : ex(std::move(executor)),
      opts(std::move(options)),
      origin(parse_http_url(opts.base_url, "base URL")),
      slots(ex, checked_slots(opts)),
      policy(opts.retry, opts.retry_seed)
{
    if (opts.user_agent.empty())
        opts.user_agent = "warpsmith/" WARPSMITH_VERSION;
    ssl_ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                        ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    error_code ec;
    ssl_ctx.set_default_verify_paths(ec);
    if (ec)
        log_warn("http: cannot load the system CA store: " + ec.message());
    if (opts.extra_ca_file)
    {
        ssl_ctx.load_verify_file(opts.extra_ca_file->string(), ec);
        if (ec)
            throw user_error("cannot load the CA file '" + opts.extra_ca_file->string() +
                             "': " + ec.message());
    }
    ssl_ctx.set_verify_mode(opts.verify_tls ? ssl::verify_peer : ssl::verify_none);
    if (!opts.verify_tls && origin.is_https())
        log_warn("http: TLS certificate verification is OFF for " + origin.to_string());

    if (opts.proxy)
    {
        if (!opts.proxy->empty())
            proxy = parse_proxy_url(*opts.proxy, "proxy");
    }
    else
        proxy = select_proxy(origin, proxy_environment::from_process());
    if (proxy && (!proxy->user.empty() || !proxy->password.empty()))
        proxy_authorization = "Basic " + base64_encode(proxy->user + ":" + proxy->password);
    if (proxy)
        log_debug("http: " + origin.to_string() + " through the proxy " + proxy->to_string());
}

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

std::unique_ptr<connection> http_client::impl::take_idle()
{
    const auto now = steady::now();
    while (!idle.empty())
    {
        std::unique_ptr<connection> c = std::move(idle.back());
        idle.pop_back();
        bool usable = now - c->idle_since <= opts.idle_connection_timeout && c->buffer.size() == 0 &&
                      c->lowest().socket().is_open();
        if (usable)
        {
            // A cheap look at the socket catches most connections the server closed while idle, so
            // they are not even tried. Plain connections must have no pending bytes at all; TLS ones
            // may (a late session ticket), so only end-of-file or an error counts there.
            char byte;
            ssize_t r = ::recv(c->lowest().socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
            if (r == 0 || (r > 0 && !c->tls) || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
                usable = false;
        }
        if (usable)
            return c;
        log_debug("http: closing idle connection #" + std::to_string(c->id) +
                  " (expired or closed by the server)");
    }
    return nullptr;
}

void http_client::impl::put_idle(std::unique_ptr<connection> conn)
{
    if (opts.max_idle_connections == 0)
        return;
    conn->idle_since = steady::now();
    conn->lowest().expires_never();
    idle.push_back(std::move(conn));
    if (idle.size() > opts.max_idle_connections)
        idle.erase(idle.begin());
}

asio::awaitable<void> http_client::impl::open_tunnel(beast::tcp_stream& tcp,
                                                     beast::flat_buffer& buffer,
                                                     steady::time_point until)
{
    const std::string via = "the proxy " + proxy->authority();
    bhttp::request<bhttp::empty_body> creq(bhttp::verb::connect, origin.authority(), 11);
    creq.set(bhttp::field::host, origin.authority());
    creq.set(bhttp::field::user_agent, opts.user_agent);
    if (!proxy_authorization.empty())
        creq.set(bhttp::field::proxy_authorization, proxy_authorization);
    tcp.expires_at(until);
    auto [wec, wn] = co_await bhttp::async_write(tcp, creq, asio::as_tuple(asio::use_awaitable));
    if (wec)
        throw attempt_error(make_failure(wec, "sending CONNECT to " + via, false));
    bhttp::response_parser<bhttp::empty_body> parser;
    parser.skip(true);  // a 2xx answer to CONNECT has no body: the tunnel starts right after it
    auto [rec, rn] =
        co_await bhttp::async_read_header(tcp, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (rec)
        throw attempt_error(make_failure(rec, "reading the answer of " + via + " to CONNECT", false));
    const unsigned status = parser.get().result_int();
    if (status / 100 != 2)
    {
        // A proxy's 5xx usually means it could not reach the server now; anything else (407) will
        // not change by retrying.
        throw attempt_error(
            protocol_failure(status >= 500 ? transport_failure::connection_refused : transport_failure::proxy,
                             via + " refused CONNECT " + origin.authority() + ": " + std::to_string(status) +
                                 " " + std::string(parser.get().reason())));
    }
    if (buffer.size() != 0)
        throw attempt_error(
            protocol_failure(transport_failure::malformed, via + " sent bytes before the TLS handshake"));
}

asio::awaitable<std::unique_ptr<connection>> http_client::impl::open_connection(steady::time_point deadline)
{
    auto conn = std::make_unique<connection>();
    conn->id = ++next_connection_id;
    const http_url& hop = proxy ? *proxy : origin;
    const steady::time_point until = std::min(steady::now() + opts.connect_timeout, deadline);

    // The system resolver cannot be interrupted (getaddrinfo runs on a helper thread), so name
    // resolution is bounded by the resolver's own timeouts, not by connect_timeout.
    tcp::resolver resolver(ex);
    auto [rec, endpoints] = co_await resolver.async_resolve(
        hop.host, std::to_string(hop.port), asio::as_tuple(asio::use_awaitable));
    if (rec)
        throw attempt_error(make_failure(rec, "resolving " + hop.host, false));

    auto tcp_stream = std::make_unique<beast::tcp_stream>(ex);
    tcp_stream->expires_at(until);
    auto [cec, ep] = co_await tcp_stream->async_connect(endpoints, asio::as_tuple(asio::use_awaitable));
    if (cec)
        throw attempt_error(make_failure(cec, "connecting to " + hop.authority(), false));
    error_code ignored;
    tcp_stream->socket().set_option(tcp::no_delay(true), ignored);
    ++counters.connections_opened;

    if (proxy && origin.is_https())
        co_await open_tunnel(*tcp_stream, conn->buffer, until);

    if (!origin.is_https())
    {
        conn->plain = std::move(tcp_stream);
        co_return conn;
    }

    auto tls = std::make_unique<ssl::stream<beast::tcp_stream>>(std::move(*tcp_stream), ssl_ctx);
    tcp_stream.reset();
    if (!is_ip_literal(origin.host))
        SSL_set_tlsext_host_name(tls->native_handle(), origin.host.c_str());  // SNI: never for IP literals
    auto problem = std::make_shared<std::string>();
    if (opts.verify_tls)
    {
        tls->set_verify_mode(ssl::verify_peer);
        // host_name_verification checks the leaf certificate's names; the wrapper keeps OpenSSL's
        // reason so that the error says why verification failed.
        std::string host = origin.host;
        auto verify = [problem, host](bool preverified, ssl::verify_context& ctx)
        {
            if (!preverified)
            {
                if (problem->empty())
                    *problem = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.native_handle()));
                return false;
            }
            if (!ssl::host_name_verification(host)(preverified, ctx))
            {
                *problem = "the certificate does not match the host name '" + host + "'";
                return false;
            }
            return true;
        };
        tls->set_verify_callback(verify);
    }
    else
        tls->set_verify_mode(ssl::verify_none);

    tls->next_layer().expires_at(until);
    auto [hec] = co_await tls->async_handshake(ssl::stream_base::client, asio::as_tuple(asio::use_awaitable));
    if (hec)
    {
        attempt_failure f;
        if (!problem->empty())
        {
            f.kind = transport_failure::tls;
            f.code = hec;
            f.what = "TLS handshake with " + origin.authority() + " failed: certificate verify failed (" +
                     *problem + ")";
        }
        else
        {
            f = make_failure(hec, "the TLS handshake with " + origin.authority(), false);
            if (f.kind == transport_failure::tls)
                f.what = "TLS handshake with " + origin.authority() + " failed (" + hec.message() + ")";
        }
        throw attempt_error(f);
    }
    conn->tls = std::move(tls);
    co_return conn;
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
    std::vector<char> chunk(16 * 1024);
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

http_client::http_client(asio::any_io_executor ex, http_client_options opts)
    : impl_(std::make_shared<impl>(std::move(ex), std::move(opts)))
{
}

http_client::~http_client() = default;

// The public operations are not coroutines themselves: they copy the shared state now and hand it
// to a coroutine, so that an awaitable created from a client stays valid after the client is gone
// (a member coroutine would read `this` only when first resumed).

asio::awaitable<http_response> http_client::request(http_request req)
{
    return impl::do_request(impl_, std::move(req));
}

asio::awaitable<http_response> http_client::stream(http_request req, body_handler on_body)
{
    return impl::do_stream(impl_, std::move(req), std::move(on_body));
}

asio::awaitable<http_response> http_client::stream_events(http_request req, event_handler on_event)
{
    return impl::do_stream_events(impl_, std::move(req), std::move(on_event));
}

asio::awaitable<http_response> http_client::impl::do_request(std::shared_ptr<impl> self, http_request req)
{
    co_return co_await self->run(std::move(req), nullptr);
}

asio::awaitable<http_response> http_client::impl::do_stream(std::shared_ptr<impl> self,
                                                            http_request req,
                                                            body_handler on_body)
{
    body_consumer consumer;
    consumer.on_data = std::move(on_body);
    co_return co_await self->run(std::move(req), &consumer);
}

asio::awaitable<http_response> http_client::impl::do_stream_events(std::shared_ptr<impl> self,
                                                                   http_request req,
                                                                   event_handler on_event)
{
    if (!find_header(req.headers, "accept"))
        req.headers.emplace_back("Accept", "text/event-stream");

    struct stream_state
    {
        bool sse = true;
        std::optional<sse_parser> parser;
        std::vector<sse_event> events;
        std::string body;
        std::size_t limit = 0;
    };
    auto st = std::make_shared<stream_state>();
    st->limit = self->opts.max_body_bytes;
    body_consumer consumer;
    // Each attempt starts from a fresh parser (an attempt that failed before its first byte may be
    // followed by another).
    auto on_head = [st](const http_response& head)
    {
        auto type = head.header("content-type");
        st->sse = !type || istarts_with(*type, "text/event-stream");
        sse_parser::options popts;
        popts.dispatch_incomplete_at_end = true;
        st->parser.emplace(popts);
        st->body.clear();
    };
    auto on_data = [st, &on_event](std::string_view piece)
    {
        if (!st->sse)
        {
            if (st->body.size() + piece.size() > st->limit)
                throw_system_error(errc::http_protocol,
                                   "response body larger than " + std::to_string(st->limit) + " bytes");
            st->body.append(piece);
            return;
        }
        st->events.clear();
        st->parser->feed(piece, st->events);
        for (const sse_event& ev : st->events)
            on_event(ev);
    };
    consumer.on_head = on_head;
    consumer.on_data = on_data;
    http_response resp = co_await self->run(std::move(req), &consumer);
    if (st->sse && st->parser)
    {
        if (auto last = st->parser->finish())
            on_event(*last);
    }
    else
        resp.body = std::move(st->body);
    co_return resp;
}

const http_url& http_client::base_url() const
{
    return impl_->origin;
}

const std::optional<http_url>& http_client::proxy() const
{
    return impl_->proxy;
}

http_client_stats http_client::stats() const
{
    return impl_->counters;
}

}  // namespace warpsmith::http
