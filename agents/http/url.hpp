#pragma once

// Base URLs of model endpoints and proxies ("https://api.openai.com/v1", "http://127.0.0.1:8000",
// "http://user:pw@proxy:3128"), parsed by a small strict parser: the client needs only scheme, host,
// port and a path prefix, and a strict parser turns a typo in --base-url into one clear line instead
// of a request to a surprising place.

#include <cstdint>
#include <string>
#include <string_view>

namespace warpsmith::http
{

struct http_url
{
    std::string scheme;      ///< "http" or "https" (lower case).
    std::string host;        ///< Lower-case name, dotted IPv4, or IPv6 without brackets.
    std::uint16_t port = 0;  ///< Explicit port, or 80/443 from the scheme.
    std::string path;        ///< Path prefix without a trailing '/', "" for the root ("/v1").
    std::string user;        ///< Percent-decoded user (proxy URLs only).
    std::string password;    ///< Percent-decoded password (proxy URLs only).

    bool is_https() const { return scheme == "https"; }
    bool default_port() const { return port == (is_https() ? 443 : 80); }
    bool host_is_ipv6() const { return host.find(':') != std::string::npos; }
    /// The host as written in a URL or Host header: IPv6 in brackets.
    std::string host_for_url() const;
    /// "host:port" with the port always present (CONNECT targets, pool keys, logs).
    std::string authority() const;
    /// The Host header value: the port only when it is not the scheme's default.
    std::string host_header() const;
    /// scheme://host[:port]path, never with user or password (safe to log).
    std::string to_string() const;
};

/// Parses an absolute http/https URL without query or fragment. A trailing '/' is dropped from the
/// path. User info is accepted only when allow_userinfo is true (proxy URLs). Throws user_error
/// with one line naming `what` ("--base-url") and the problem.
http_url parse_http_url(std::string_view text, std::string_view what = "URL", bool allow_userinfo = false);

/// True for "localhost" and the literal addresses 127.0.0.0/8 (dotted quad, as inet_pton reads it) and
/// ::1: hosts an environment proxy never serves, and servers a key may go to unconfirmed. Other names,
/// "api.localhost" included, are the resolver's to answer, so they are not loopback.
bool is_loopback_host(std::string_view host);

}  // namespace warpsmith::http
