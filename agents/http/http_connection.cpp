// The connections of http_client: the idle pool, TCP connects, CONNECT tunnels through a proxy
// and the TLS handshake with host name verification.

#include "agents/http/http_client_impl.hpp"
#include "harness/core/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cerrno>
#include <openssl/x509.h>
#include <sys/socket.h>

namespace warpsmith::http
{

namespace detail
{

bool is_ip_literal(const std::string& host)
{
    error_code ec;
    asio::ip::make_address(host, ec);
    return !ec;
}

}  // namespace detail

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

}  // namespace warpsmith::http
