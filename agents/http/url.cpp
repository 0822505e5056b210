#include "agents/http/url.hpp"

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>

namespace warpsmith::http
{
namespace
{

[[noreturn]] void fail(std::string_view what, std::string_view text, std::string_view problem)
{
    throw user_error(std::string(what) + " '" + std::string(text) + "': " + std::string(problem));
}

bool is_unreserved(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~';
}

bool is_sub_delim(char c)
{
    return std::string_view("!$&'()*+,;=").find(c) != std::string_view::npos;
}

// Checks that every '%' starts a valid escape; returns false otherwise.
bool valid_percent_escapes(std::string_view s)
{
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        if (s[i] == '%')
        {
            if (i + 2 >= s.size() || hex_digit_value(s[i + 1]) < 0 || hex_digit_value(s[i + 2]) < 0)
                return false;
            i += 2;
        }
    }
    return true;
}

std::string percent_decode(std::string_view s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        if (s[i] == '%' && i + 2 < s.size())
        {
            out.push_back(static_cast<char>(hex_digit_value(s[i + 1]) * 16 + hex_digit_value(s[i + 2])));
            i += 2;
        }
        else
            out.push_back(s[i]);
    }
    return out;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

}  // namespace

std::string http_url::host_for_url() const
{
    return host_is_ipv6() ? "[" + host + "]" : host;
}

std::string http_url::authority() const
{
    return host_for_url() + ":" + std::to_string(port);
}

std::string http_url::host_header() const
{
    return default_port() ? host_for_url() : authority();
}

std::string http_url::to_string() const
{
    return scheme + "://" + host_header() + path;
}

http_url parse_http_url(std::string_view text, std::string_view what, bool allow_userinfo)
{
    http_url url;
    auto sep = text.find("://");
    if (sep == std::string_view::npos)
        fail(what, text, "expected an absolute URL such as https://host/path");
    url.scheme = lower(text.substr(0, sep));
    if (url.scheme != "http" && url.scheme != "https")
        fail(what, text, "unsupported scheme '" + url.scheme + "' (expected http or https)");
    std::string_view rest = text.substr(sep + 3);
    if (rest.find_first_of("?#") != std::string_view::npos)
        fail(what, text, "a query or fragment is not allowed");
    for (char c : rest)
    {
        auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f)
            fail(what, text, "contains a space, control or non-ASCII character");
    }

    auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);

    if (auto at = authority.rfind('@'); at != std::string_view::npos)
    {
        if (!allow_userinfo)
            fail(what, text, "user information (user:password@) is not allowed here");
        std::string_view userinfo = authority.substr(0, at);
        authority = authority.substr(at + 1);
        if (!valid_percent_escapes(userinfo))
            fail(what, text, "malformed percent escape in the user information");
        auto colon = userinfo.find(':');
        url.user = percent_decode(userinfo.substr(0, colon));
        if (colon != std::string_view::npos)
            url.password = percent_decode(userinfo.substr(colon + 1));
    }

    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[')
    {
        auto close = authority.find(']');
        if (close == std::string_view::npos)
            fail(what, text, "unterminated IPv6 address");
        std::string_view v6 = authority.substr(1, close - 1);
        if (v6.empty() || v6.find(':') == std::string_view::npos ||
            !std::all_of(v6.begin(),
                         v6.end(),
                         [](char c)
                         { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; }))
            fail(what, text, "malformed IPv6 address");
        url.host = lower(v6);
        std::string_view after = authority.substr(close + 1);
        if (!after.empty())
        {
            if (after.front() != ':')
                fail(what, text, "unexpected characters after the IPv6 address");
            port_text = after.substr(1);
            if (port_text.empty())
                fail(what, text, "empty port");
        }
    }
    else
    {
        auto colon = authority.find(':');
        std::string_view host = authority.substr(0, colon);
        if (colon != std::string_view::npos)
        {
            port_text = authority.substr(colon + 1);
            if (port_text.empty())
                fail(what, text, "empty port");
        }
        if (host.empty())
            fail(what, text, "missing host");
        for (char c : host)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_'))
                fail(what, text, std::string("invalid character '") + c + "' in the host");
        url.host = lower(host);
    }

    if (!port_text.empty())
    {
        if (port_text.size() > 5 ||
            !std::all_of(port_text.begin(), port_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
            fail(what, text, "the port must be a number from 1 to 65535");
        unsigned long p = std::stoul(std::string(port_text));
        if (p == 0 || p > 65535)
            fail(what, text, "the port must be a number from 1 to 65535");
        url.port = static_cast<std::uint16_t>(p);
    }
    else
        url.port = url.is_https() ? 443 : 80;

    for (char c : path)
        if (!(is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@' || c == '/' || c == '%'))
            fail(what, text, std::string("invalid character '") + c + "' in the path");
    if (!valid_percent_escapes(path))
        fail(what, text, "malformed percent escape in the path");
    while (!path.empty() && path.back() == '/')
        path.remove_suffix(1);
    url.path = std::string(path);
    return url;
}

bool is_loopback_host(std::string_view host)
{
    std::string h = lower(host);
    if (!h.empty() && h.front() == '[' && h.back() == ']')
        h = h.substr(1, h.size() - 2);
    // A name other than "localhost" itself goes to the resolver, which may answer any address
    // ("evil.localhost" from DNS): only literal addresses are judged by their value.
    if (h == "localhost")
        return true;
    in_addr v4{};
    if (::inet_pton(AF_INET, h.c_str(), &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6{};
    if (::inet_pton(AF_INET6, h.c_str(), &v6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&v6);
    return false;
}

}  // namespace warpsmith::http
