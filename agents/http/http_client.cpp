// The Beast/Asio shell of http_client: setup (TLS context, proxy), the public operations and the
// streaming adapters. The template-heavy parts are in http_connection.cpp and http_exchange.cpp
// (the exchange is instantiated for plain TCP and for TLS streams); http_client_impl.hpp holds
// what they share.

#include "agents/http/http_client.hpp"

#include "agents/http/http_client_impl.hpp"
#include "agents/http/proxy_config.hpp"
#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"

#include <cctype>
#include <vector>

namespace warpsmith::http
{

namespace detail
{

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

}  // namespace detail

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
