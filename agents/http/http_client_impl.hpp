#pragma once

// The inside of http_client, shared by the translation units of its Beast/Asio shell: the
// connection and attempt types (namespace detail) and http_client::impl. Included only by
// http_client.cpp, http_connection.cpp, http_exchange.cpp and attempt_failure.cpp.

#include "agents/http/http_client.hpp"
#include "harness/core/error.hpp"

#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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

/// The failure of one attempt from an error code (attempt_failure.cpp): its kind, and whether a
/// reused connection was stale.
transport_failure classify(const error_code& ec);
attempt_failure make_failure(const error_code& ec, const std::string& phase, bool stale);
attempt_failure protocol_failure(transport_failure kind, const std::string& what);

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

}  // namespace warpsmith::http
