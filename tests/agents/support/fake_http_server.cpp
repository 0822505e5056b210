#include "tests/agents/support/fake_http_server.hpp"

#include "tests/support/test_paths.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <future>
#include <map>
#include <mutex>
#include <thread>

namespace warpsmith::test
{

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;
using namespace std::chrono_literals;

namespace
{

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(),
                                              a.end(),
                                              b.begin(),
                                              [](char x, char y) {
                                                  return std::tolower(static_cast<unsigned char>(x)) ==
                                                         std::tolower(static_cast<unsigned char>(y));
                                              });
}

std::string hex(std::size_t n)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%zx", n);
    return buf;
}

/// The thread, io_context and listener shared by the fake server and the fake proxy, with the
/// bookkeeping that lets stop() close everything and tell whether work leaked.
struct server_core
{
    asio::io_context ioc;
    tcp::acceptor acceptor{ioc};
    std::thread thread;
    std::promise<void> finished;
    std::future<void> finished_future = finished.get_future();
    std::atomic<bool> stopping{false};
    std::mutex stop_mutex;
    std::optional<bool> stop_result;
    // Server thread only: how to close each live session (sockets, timers).
    std::map<std::uint64_t, std::function<void()>> closers;
    std::uint64_t next_session = 0;

    void listen()
    {
        tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
        acceptor.open(ep.protocol());
        acceptor.set_option(tcp::acceptor::reuse_address(true));
        acceptor.bind(ep);
        acceptor.listen();
        port_ = acceptor.local_endpoint().port();
    }

    std::uint16_t port() const { return port_; }
    std::uint16_t port_ = 0;

    void start()
    {
        thread = std::thread(
            [this]
            {
                ioc.run();
                finished.set_value();
            });
    }

    bool stop()
    {
        std::lock_guard lock(stop_mutex);
        if (stop_result)
            return *stop_result;
        asio::post(ioc,
                   [this]
                   {
                       stopping = true;
                       error_code ec;
                       acceptor.close(ec);
                       auto copy = closers;  // closers remove themselves when their sessions end
                       for (auto& [id, close] : copy)
                           close();
                   });
        bool clean = finished_future.wait_for(5s) == std::future_status::ready;
        if (!clean)
            ioc.stop();
        thread.join();
        stop_result = clean;
        return clean;
    }
};

/// Sleeps on a session's timer; false when the server is stopping (the timer was cancelled).
asio::awaitable<bool> sleep_for(asio::steady_timer& timer, std::chrono::milliseconds d, server_core& core)
{
    if (core.stopping)
        co_return false;
    timer.expires_after(d);
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    co_return !core.stopping;
}

template <class Stream>
asio::awaitable<bool> write_all(Stream& stream, std::string_view data)
{
    auto [ec, n] = co_await asio::async_write(
        stream, asio::buffer(data.data(), data.size()), asio::as_tuple(asio::use_awaitable));
    co_return !ec;
}

}  // namespace

std::string recorded_request::header(std::string_view name) const
{
    for (const auto& [k, v] : headers)
        if (iequals(k, name))
            return v;
    return {};
}

response_plan response_plan::text(unsigned status, std::string body, std::string content_type)
{
    response_plan p;
    p.status = status;
    p.headers.emplace_back("Content-Type", std::move(content_type));
    p.body = std::move(body);
    return p;
}

response_plan response_plan::json(unsigned status, std::string body)
{
    return text(status, std::move(body), "application/json");
}

response_plan response_plan::sse(std::vector<body_part> parts)
{
    response_plan p;
    p.headers.emplace_back("Content-Type", "text/event-stream");
    p.headers.emplace_back("Cache-Control", "no-cache");
    p.parts = std::move(parts);
    return p;
}

// ---------------------------------------------------------------------------------------------
// fake_http_server

struct fake_http_server::impl
{
    struct session
    {
        std::uint64_t id;
        std::string server_name;
        std::optional<tcp::socket> plain;
        std::optional<ssl::stream<tcp::socket>> tls;
        asio::steady_timer timer;

        session(std::uint64_t i, asio::io_context& ioc) : id(i), timer(ioc) {}
        tcp::socket& socket() { return tls ? tls->next_layer() : *plain; }
        void close()
        {
            error_code ec;
            timer.cancel();
            socket().shutdown(tcp::socket::shutdown_both, ec);
            socket().close(ec);
        }
    };

    server_core core;
    transport kind;
    std::optional<temp_dir> cert_dir;
    certificate_files cert;
    std::optional<ssl::context> ssl_ctx;

    mutable std::mutex mutex;
    request_handler handler;
    std::vector<recorded_request> recorded;
    std::size_t accepted = 0;
    std::size_t in_flight = 0;
    std::size_t max_in_flight = 0;

    asio::awaitable<void> accept_loop();
    asio::awaitable<void> run_session(std::shared_ptr<session> s);
    template <class Stream>
    asio::awaitable<void> serve(Stream& stream, session& s);
    template <class Stream>
    asio::awaitable<bool> respond(Stream& stream,
                                  session& s,
                                  const response_plan& plan,
                                  bool client_keep_alive);
};

asio::awaitable<void> fake_http_server::impl::accept_loop()
{
    for (;;)
    {
        auto [ec, socket] = co_await core.acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
        if (ec || core.stopping)
            co_return;
        auto s = std::make_shared<session>(++core.next_session, core.ioc);
        {
            std::lock_guard lock(mutex);
            ++accepted;
        }
        if (kind == transport::https)
            s->tls.emplace(std::move(socket), *ssl_ctx);
        else
            s->plain.emplace(std::move(socket));
        session* raw = s.get();
        core.closers[s->id] = [raw] { raw->close(); };
        asio::co_spawn(core.ioc, run_session(std::move(s)), asio::detached);
    }
}

asio::awaitable<void> fake_http_server::impl::run_session(std::shared_ptr<session> s)
{
    try
    {
        if (s->tls)
        {
            auto [ec] = co_await s->tls->async_handshake(ssl::stream_base::server,
                                                         asio::as_tuple(asio::use_awaitable));
            if (!ec)
            {
                if (const char* name = SSL_get_servername(s->tls->native_handle(), TLSEXT_NAMETYPE_host_name))
                    s->server_name = name;
                co_await serve(*s->tls, *s);
            }
        }
        else
            co_await serve(*s->plain, *s);
    }
    catch (const std::exception&)
    {
        // A test server never takes the test down; the client sees a closed connection.
    }
    s->close();
    core.closers.erase(s->id);
}

template <class Stream>
asio::awaitable<void> fake_http_server::impl::serve(Stream& stream, session& s)
{
    beast::flat_buffer buffer;
    for (;;)
    {
        bhttp::request_parser<bhttp::string_body> parser;
        parser.body_limit(64u << 20);
        auto [ec, n] =
            co_await bhttp::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
        if (ec || core.stopping)
            co_return;
        auto& msg = parser.get();
        recorded_request rec;
        rec.method = std::string(msg.method_string());
        rec.target = std::string(msg.target());
        for (const auto& f : msg)
            rec.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
        rec.body = msg.body();
        rec.arrival = std::chrono::steady_clock::now();
        rec.connection = s.id;
        rec.tls_server_name = s.server_name;
        const bool client_keep_alive = msg.keep_alive();

        request_handler h;
        {
            std::lock_guard lock(mutex);
            recorded.push_back(rec);
            h = handler;
            ++in_flight;
            max_in_flight = std::max(max_in_flight, in_flight);
        }
        response_plan plan;
        try
        {
            plan = h ? h(rec) : response_plan::text(404, "no handler");
        }
        catch (const std::exception& e)
        {
            plan = response_plan::text(500, std::string("fake server handler threw: ") + e.what());
        }
        bool keep = co_await respond(stream, s, plan, client_keep_alive);
        {
            std::lock_guard lock(mutex);
            --in_flight;
        }
        if (!keep)
            co_return;
    }
}

template <class Stream>
asio::awaitable<bool> fake_http_server::impl::respond(Stream& stream,
                                                      session& s,
                                                      const response_plan& plan,
                                                      bool client_keep_alive)
{
    if (plan.drop)
        co_return false;
    if (plan.stall)
    {
        co_await sleep_for(s.timer, std::chrono::hours(1), core);
        co_return false;
    }
    if (plan.delay_before_headers.count() > 0 &&
        !co_await sleep_for(s.timer, plan.delay_before_headers, core))
        co_return false;
    if (plan.raw)
    {
        co_await write_all(stream, *plan.raw);
        co_return false;
    }

    const bool chunked = !plan.parts.empty();
    const bool close = plan.close || plan.no_length || !client_keep_alive;
    std::string head = "HTTP/1.1 " + std::to_string(plan.status) + " " +
                       std::string(bhttp::obsolete_reason(bhttp::int_to_status(plan.status))) + "\r\n";
    for (const auto& [k, v] : plan.headers)
        head += k + ": " + v + "\r\n";
    if (chunked)
        head += "Transfer-Encoding: chunked\r\n";
    else if (!plan.no_length)
        head += "Content-Length: " + std::to_string(plan.body.size()) + "\r\n";
    if (close)
        head += "Connection: close\r\n";
    head += "\r\n";

    if (!chunked)
    {
        std::string_view body = plan.body;
        bool cut = plan.truncate_after && *plan.truncate_after < body.size();
        if (cut)
            body = body.substr(0, *plan.truncate_after);
        std::string all = head + std::string(body);
        if (!co_await write_all(stream, all) || cut)
            co_return false;
        co_return !close && !plan.close_after_response;
    }

    if (!co_await write_all(stream, head))
        co_return false;
    std::size_t sent = 0;
    for (const body_part& part : plan.parts)
    {
        if (part.delay.count() > 0 && !co_await sleep_for(s.timer, part.delay, core))
            co_return false;
        if (part.wait_for)
        {
            while (!part.wait_for->is_open())
                if (!co_await sleep_for(s.timer, 5ms, core))
                    co_return false;
        }
        if (part.data.empty())
            continue;  // an empty chunk would end the body
        if (plan.truncate_after && sent + part.data.size() > *plan.truncate_after)
        {
            std::string partial =
                hex(part.data.size()) + "\r\n" + part.data.substr(0, *plan.truncate_after - sent);
            co_await write_all(stream, partial);
            co_return false;
        }
        std::string chunk = hex(part.data.size()) + "\r\n" + part.data + "\r\n";
        if (!co_await write_all(stream, chunk))
            co_return false;
        sent += part.data.size();
    }
    if (plan.truncate_after && sent >= *plan.truncate_after)
        co_return false;  // cut before the last chunk
    if (!co_await write_all(stream, std::string_view("0\r\n\r\n")))
        co_return false;
    co_return !close && !plan.close_after_response;
}

fake_http_server::fake_http_server(request_handler handler,
                                   transport t,
                                   std::optional<certificate_files> cert)
    : impl_(std::make_shared<impl>())
{
    impl_->kind = t;
    impl_->handler = std::move(handler);
    if (t == transport::https)
    {
        if (cert)
            impl_->cert = *cert;
        else
        {
            impl_->cert_dir.emplace("warpsmith-fake-tls");
            impl_->cert = make_self_signed_certificate(impl_->cert_dir->path(), {"127.0.0.1", "localhost"});
        }
        impl_->ssl_ctx.emplace(ssl::context::tls_server);
        impl_->ssl_ctx->use_certificate_chain_file(impl_->cert.cert.string());
        impl_->ssl_ctx->use_private_key_file(impl_->cert.key.string(), ssl::context::pem);
    }
    impl_->core.listen();
    asio::co_spawn(impl_->core.ioc, impl_->accept_loop(), asio::detached);
    impl_->core.start();
}

fake_http_server::~fake_http_server()
{
    stop();
}

std::uint16_t fake_http_server::port() const
{
    return impl_->core.port();
}

std::string fake_http_server::base_url() const
{
    return std::string(impl_->kind == transport::https ? "https" : "http") +
           "://127.0.0.1:" + std::to_string(port());
}

std::filesystem::path fake_http_server::ca_file() const
{
    return impl_->kind == transport::https ? impl_->cert.cert : std::filesystem::path();
}

void fake_http_server::set_handler(request_handler handler)
{
    std::lock_guard lock(impl_->mutex);
    impl_->handler = std::move(handler);
}

std::vector<recorded_request> fake_http_server::requests() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->recorded;
}

std::size_t fake_http_server::request_count() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->recorded.size();
}

std::size_t fake_http_server::connections_accepted() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->accepted;
}

std::size_t fake_http_server::max_concurrent_requests() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->max_in_flight;
}

bool fake_http_server::stop()
{
    return impl_->core.stop();
}

// ---------------------------------------------------------------------------------------------
// fake_connect_proxy

struct fake_connect_proxy::impl
{
    struct session
    {
        std::uint64_t id;
        tcp::socket client;
        tcp::socket upstream;

        session(std::uint64_t i, tcp::socket c) : id(i), client(std::move(c)), upstream(client.get_executor())
        {
        }
        void close()
        {
            error_code ec;
            client.shutdown(tcp::socket::shutdown_both, ec);
            client.close(ec);
            upstream.shutdown(tcp::socket::shutdown_both, ec);
            upstream.close(ec);
        }
    };

    server_core core;
    std::optional<std::string> required_auth;
    mutable std::mutex mutex;
    std::vector<record> records;

    asio::awaitable<void> accept_loop();
    asio::awaitable<void> run_session(std::shared_ptr<session> s);
    asio::awaitable<void> relay(tcp::socket& from, tcp::socket& to, session& s);
};

asio::awaitable<void> fake_connect_proxy::impl::accept_loop()
{
    for (;;)
    {
        auto [ec, socket] = co_await core.acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
        if (ec || core.stopping)
            co_return;
        auto s = std::make_shared<session>(++core.next_session, std::move(socket));
        session* raw = s.get();
        core.closers[s->id] = [raw] { raw->close(); };
        asio::co_spawn(core.ioc, run_session(std::move(s)), asio::detached);
    }
}

asio::awaitable<void> fake_connect_proxy::impl::relay(tcp::socket& from, tcp::socket& to, session& s)
{
    std::vector<char> buf(16 * 1024);
    for (;;)
    {
        auto [ec, n] = co_await from.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable));
        if (ec)
            break;
        auto [wec, wn] =
            co_await asio::async_write(to, asio::buffer(buf.data(), n), asio::as_tuple(asio::use_awaitable));
        if (wec)
            break;
    }
    // One direction ended: end the other too (the clients here never half-close).
    s.close();
}

asio::awaitable<void> fake_connect_proxy::impl::run_session(std::shared_ptr<session> s)
{
    try
    {
        beast::flat_buffer buffer;
        bhttp::request_parser<bhttp::string_body> parser;
        auto [ec, n] =
            co_await bhttp::async_read(s->client, buffer, parser, asio::as_tuple(asio::use_awaitable));
        if (!ec && !core.stopping)
        {
            auto& msg = parser.get();
            record rec;
            rec.method = std::string(msg.method_string());
            rec.target = std::string(msg.target());
            if (auto it = msg.find(bhttp::field::proxy_authorization); it != msg.end())
                rec.proxy_authorization = std::string(it->value());
            {
                std::lock_guard lock(mutex);
                records.push_back(rec);
            }
            bool allowed = !required_auth || rec.proxy_authorization == *required_auth;
            // Where to go: "host:port" for CONNECT, the authority of an absolute-form URL otherwise.
            std::string authority = rec.target;
            if (msg.method() != bhttp::verb::connect)
            {
                auto sep = authority.find("://");
                authority = sep == std::string::npos ? std::string() : authority.substr(sep + 3);
                authority = authority.substr(0, authority.find('/'));
            }
            auto colon = authority.rfind(':');
            std::string host = colon == std::string::npos ? authority : authority.substr(0, colon);
            std::string port = colon == std::string::npos ? "80" : authority.substr(colon + 1);
            if (!host.empty() && host.front() == '[')
                host = host.substr(1, host.size() - 2);

            if (!allowed)
            {
                co_await write_all(s->client,
                                   std::string_view("HTTP/1.1 407 Proxy Authentication Required\r\n"
                                                    "Proxy-Authenticate: Basic realm=\"fake\"\r\n"
                                                    "Content-Length: 0\r\nConnection: close\r\n\r\n"));
            }
            else
            {
                tcp::resolver resolver(core.ioc);
                auto [rec_ec, endpoints] =
                    co_await resolver.async_resolve(host, port, asio::as_tuple(asio::use_awaitable));
                error_code cec = rec_ec;
                if (!cec)
                {
                    auto [c_ec, ep] = co_await asio::async_connect(
                        s->upstream, endpoints, asio::as_tuple(asio::use_awaitable));
                    cec = c_ec;
                }
                if (cec)
                {
                    co_await write_all(s->client,
                                       std::string_view("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
                                                        "Connection: close\r\n\r\n"));
                }
                else
                {
                    bool ok = true;
                    if (msg.method() == bhttp::verb::connect)
                        ok = co_await write_all(
                            s->client, std::string_view("HTTP/1.1 200 Connection established\r\n\r\n"));
                    else
                    {
                        auto [wec, wn] = co_await bhttp::async_write(
                            s->upstream, msg, asio::as_tuple(asio::use_awaitable));
                        ok = !wec;
                    }
                    if (ok && buffer.size() > 0)
                    {
                        std::string left(static_cast<const char*>(buffer.data().data()), buffer.size());
                        ok = co_await write_all(s->upstream, left);
                    }
                    if (ok)
                    {
                        using namespace asio::experimental::awaitable_operators;
                        co_await (relay(s->client, s->upstream, *s) && relay(s->upstream, s->client, *s));
                    }
                }
            }
        }
    }
    catch (const std::exception&)
    {
    }
    s->close();
    core.closers.erase(s->id);
}

fake_connect_proxy::fake_connect_proxy(std::optional<std::string> required_auth)
    : impl_(std::make_shared<impl>())
{
    impl_->required_auth = std::move(required_auth);
    impl_->core.listen();
    asio::co_spawn(impl_->core.ioc, impl_->accept_loop(), asio::detached);
    impl_->core.start();
}

fake_connect_proxy::~fake_connect_proxy()
{
    stop();
}

std::uint16_t fake_connect_proxy::port() const
{
    return impl_->core.port();
}

std::string fake_connect_proxy::url() const
{
    return "http://127.0.0.1:" + std::to_string(port());
}

std::vector<fake_connect_proxy::record> fake_connect_proxy::records() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->records;
}

bool fake_connect_proxy::stop()
{
    return impl_->core.stop();
}

}  // namespace warpsmith::test
