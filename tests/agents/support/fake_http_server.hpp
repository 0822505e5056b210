#pragma once

// A scripted HTTP/1.1 server on 127.0.0.1 (port 0) for client and provider tests, after the
// loopback fakes of Boost.Beast's and Boost.Redis's test suites. It runs on its own io_context and
// thread; a handler, called on that thread, decides per request what the server does (a
// response_plan): a normal answer, a chunked body sent in parts with delays or after a gate the
// test opens, a connection closed mid-body, a stall, a delay before the headers, raw bytes.
// Every request is recorded (method, target, headers, body, arrival time, connection) for
// assertions. HTTPS uses a throwaway self-signed certificate (test_certificate.hpp).
//
// Also here: fake_connect_proxy, a tiny forward proxy (CONNECT tunnels and absolute-form requests).
//
// Handlers run on the server thread: anything they share with the test must be synchronized
// (atomics, or the server's own accessors, which lock).

#include "tests/agents/support/test_certificate.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpsmith::test
{

using header_list = std::vector<std::pair<std::string, std::string>>;

struct recorded_request
{
    std::string method;
    std::string target;
    header_list headers;
    std::string body;
    std::chrono::steady_clock::time_point arrival;  ///< When the whole request had been read.
    std::uint64_t connection = 0;                   ///< 1-based id of the TCP connection.
    std::string tls_server_name;                    ///< SNI the client sent (https), "" if none.

    /// First value of a header (case-insensitive), "" when absent.
    std::string header(std::string_view name) const;
};

/// A flag the test raises to let a waiting response continue (see body_part::wait_for). Copies
/// share one flag; open() may be called from any thread.
class gate
{
public:
    void open() { flag_->store(true); }
    bool is_open() const { return flag_->load(); }

private:
    std::shared_ptr<std::atomic<bool>> flag_ = std::make_shared<std::atomic<bool>>(false);
};

struct body_part
{
    body_part(std::string d,
              std::chrono::milliseconds wait = std::chrono::milliseconds(0),
              std::optional<gate> gate_to_wait_for = std::nullopt)
        : data(std::move(d)), delay(wait), wait_for(std::move(gate_to_wait_for))
    {
    }

    std::string data;
    std::chrono::milliseconds delay{0};  ///< Wait before sending this part.
    std::optional<gate> wait_for;        ///< Wait until the test opens this gate before sending.
};

struct response_plan
{
    unsigned status = 200;
    header_list headers;
    /// Sent with Content-Length (or until close with no_length), unless `parts` is non-empty.
    std::string body;
    /// Non-empty: a chunked body, one HTTP chunk per part (sent after its delay / gate).
    std::vector<body_part> parts;
    std::chrono::milliseconds delay_before_headers{0};
    /// Close the connection after this many body bytes, although the framing announced more
    /// (mid-body for Content-Length, mid-chunk for chunked).
    std::optional<std::size_t> truncate_after;
    /// Read the request, then answer nothing until the server stops.
    bool stall = false;
    /// Read the request, then close the connection without a byte of answer.
    bool drop = false;
    /// "Connection: close" and close after the response.
    bool close = false;
    /// Promise keep-alive but close the connection right after the response (a server dropping an
    /// idle connection).
    bool close_after_response = false;
    /// No Content-Length and no chunking: the body ends when the connection closes.
    bool no_length = false;
    /// Send these bytes verbatim instead of a response, then close (malformed responses).
    std::optional<std::string> raw;

    static response_plan text(unsigned status, std::string body, std::string content_type = "text/plain");
    static response_plan json(unsigned status, std::string body);
    /// A chunked text/event-stream response, one part per entry.
    static response_plan sse(std::vector<body_part> parts);
};

using request_handler = std::function<response_plan(const recorded_request&)>;

enum class transport
{
    http,
    https,
};

class fake_http_server
{
public:
    /// Starts listening on 127.0.0.1:0. For https without `cert`, a certificate for 127.0.0.1 and
    /// localhost is generated into a temporary directory (ca_file()).
    explicit fake_http_server(request_handler handler,
                              transport t = transport::http,
                              std::optional<certificate_files> cert = std::nullopt);
    ~fake_http_server();
    fake_http_server(const fake_http_server&) = delete;
    fake_http_server& operator=(const fake_http_server&) = delete;

    std::uint16_t port() const;
    /// "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT".
    std::string base_url() const;
    /// The certificate a client must trust for https (empty path for http).
    std::filesystem::path ca_file() const;

    void set_handler(request_handler handler);

    std::vector<recorded_request> requests() const;
    std::size_t request_count() const;
    std::size_t connections_accepted() const;
    /// The largest number of requests the server was handling at once (read, not yet answered).
    std::size_t max_concurrent_requests() const;

    /// Closes the listener and every connection, cancels every wait, and joins the thread.
    /// Returns true when the server's io_context then ran out of work by itself (nothing leaked).
    /// Idempotent; the destructor calls it.
    bool stop();

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

/// A forward proxy on 127.0.0.1:0: CONNECT opens a tunnel to the named host:port (HTTP 200, then
/// bytes both ways); an absolute-form request ("GET http://host:port/path") is forwarded to that
/// host, and the rest of the connection is relayed.
class fake_connect_proxy
{
public:
    struct record
    {
        std::string method;               ///< "CONNECT" or the forwarded method.
        std::string target;               ///< "host:port" or the absolute URL.
        std::string proxy_authorization;  ///< The Proxy-Authorization header, "" when absent.
    };

    /// With `required_auth` set, requests without exactly that Proxy-Authorization get 407.
    explicit fake_connect_proxy(std::optional<std::string> required_auth = std::nullopt);
    ~fake_connect_proxy();
    fake_connect_proxy(const fake_connect_proxy&) = delete;
    fake_connect_proxy& operator=(const fake_connect_proxy&) = delete;

    std::uint16_t port() const;
    std::string url() const;  ///< "http://127.0.0.1:PORT"
    std::vector<record> records() const;
    /// See fake_http_server::stop().
    bool stop();

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace warpsmith::test
