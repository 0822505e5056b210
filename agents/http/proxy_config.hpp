#pragma once

// Which proxy, if any, carries a request (curl's conventions, which users already know):
// * https targets use https_proxy / HTTPS_PROXY, http targets http_proxy / HTTP_PROXY, and both fall
//   back to all_proxy / ALL_PROXY (the lower-case name wins when both are set);
// * no_proxy / NO_PROXY lists hosts that go direct: comma-separated names (a name also matches its
//   subdomains; a leading '.' or "*." is allowed), IP literals, IPv4 CIDR blocks ("10.0.0.0/8"),
//   optionally with ":port"; "*" alone disables proxies;
// * loopback hosts (localhost, 127.0.0.0/8, ::1) always go direct: a local model server behind a
//   corporate proxy setting is the common case, and a proxy could not reach it anyway.
// Only http:// proxy URLs are supported (the tunnel itself is TLS end to end). Sans-I/O.

#include "agents/http/url.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::http
{

struct proxy_environment
{
    std::string https_proxy;
    std::string http_proxy;
    std::string all_proxy;
    std::string no_proxy;

    /// Reads the variables named above from the process environment.
    static proxy_environment from_process();
};

/// The proxy for `target`, or nullopt for a direct connection. Throws user_error (naming the
/// variable) when the chosen proxy URL is malformed or not http://.
std::optional<http_url> select_proxy(const http_url& target, const proxy_environment& env);

/// True when `host`:`port` matches an entry of a no_proxy list.
bool no_proxy_matches(std::string_view no_proxy, std::string_view host, std::uint16_t port);

/// Parses a proxy URL given explicitly (option or variable `what`): http only, user info allowed,
/// port 1080 when omitted (curl's default); a bare "host:port" without scheme is taken as http.
http_url parse_proxy_url(std::string_view text, std::string_view what);

}  // namespace warpsmith::http
