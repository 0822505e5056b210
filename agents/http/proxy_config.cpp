#include "agents/http/proxy_config.hpp"

#include "harness/core/error.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace warpsmith::http
{
namespace
{

std::string getenv_string(const char* name)
{
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

// The lower-case variable wins, as in curl.
std::string either(const char* lower_name, const char* upper_name)
{
    std::string v = getenv_string(lower_name);
    return v.empty() ? getenv_string(upper_name) : v;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::optional<std::uint32_t> parse_ipv4(std::string_view s)
{
    std::uint32_t value = 0;
    int parts = 0;
    while (parts < 4)
    {
        std::size_t i = 0;
        unsigned octet = 0;
        while (i < s.size() && i < 3 && std::isdigit(static_cast<unsigned char>(s[i])))
            octet = octet * 10 + unsigned(s[i++] - '0');
        if (i == 0 || octet > 255)
            return std::nullopt;
        value = (value << 8) | octet;
        ++parts;
        s.remove_prefix(i);
        if (parts < 4)
        {
            if (s.empty() || s.front() != '.')
                return std::nullopt;
            s.remove_prefix(1);
        }
    }
    if (!s.empty())
        return std::nullopt;
    return value;
}

}  // namespace

proxy_environment proxy_environment::from_process()
{
    proxy_environment env;
    env.https_proxy = either("https_proxy", "HTTPS_PROXY");
    env.http_proxy = either("http_proxy", "HTTP_PROXY");
    env.all_proxy = either("all_proxy", "ALL_PROXY");
    env.no_proxy = either("no_proxy", "NO_PROXY");
    return env;
}

bool no_proxy_matches(std::string_view no_proxy, std::string_view host_in, std::uint16_t port)
{
    std::string host = lower(host_in);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    while (!host.empty() && host.back() == '.')
        host.pop_back();

    std::size_t start = 0;
    while (start <= no_proxy.size())
    {
        std::size_t comma = no_proxy.find(',', start);
        std::string entry = lower(
            trim(no_proxy.substr(start, comma == std::string_view::npos ? no_proxy.npos : comma - start)));
        start = comma == std::string_view::npos ? no_proxy.size() + 1 : comma + 1;
        if (entry.empty())
            continue;
        if (entry == "*")
            return true;

        std::string name = entry;
        std::optional<unsigned long> entry_port;
        if (name.front() == '[')
        {
            auto close = name.find(']');
            if (close == std::string::npos)
                continue;
            std::string rest = name.substr(close + 1);
            name = name.substr(1, close - 1);
            if (rest.size() > 1 && rest.front() == ':')
                entry_port = std::strtoul(rest.c_str() + 1, nullptr, 10);
        }
        else if (std::count(name.begin(), name.end(), ':') == 1)
        {
            auto colon = name.find(':');
            entry_port = std::strtoul(name.c_str() + colon + 1, nullptr, 10);
            name = name.substr(0, colon);
        }
        if (entry_port && *entry_port != port)
            continue;

        if (auto slash = name.find('/'); slash != std::string::npos)
        {
            auto net = parse_ipv4(name.substr(0, slash));
            auto addr = parse_ipv4(host);
            char* end = nullptr;
            unsigned long bits = std::strtoul(name.c_str() + slash + 1, &end, 10);
            if (!net || !addr || bits > 32 || *end != '\0')
                continue;
            std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t(0) << (32 - bits);
            if ((*net & mask) == (*addr & mask))
                return true;
            continue;
        }
        if (name.starts_with("*."))
            name = name.substr(2);
        else if (name.starts_with("."))
            name = name.substr(1);
        while (!name.empty() && name.back() == '.')
            name.pop_back();
        if (name.empty())
            continue;
        if (host == name ||
            (host.size() > name.size() && host.ends_with(name) && host[host.size() - name.size() - 1] == '.'))
            return true;
    }
    return false;
}

http_url parse_proxy_url(std::string_view text, std::string_view what)
{
    std::string full(trim(text));
    if (full.find("://") == std::string::npos)
        full = "http://" + full;
    else
    {
        std::string scheme = lower(full.substr(0, full.find("://")));
        if (scheme != "http")
            throw user_error(std::string(what) + ": unsupported proxy scheme '" + scheme +
                             "' (only http:// proxies are supported)");
    }
    // Error messages must not echo a proxy password, so the user information is masked in them.
    std::string userinfo;
    {
        std::string_view after = std::string_view(full).substr(full.find("://") + 3);
        after = after.substr(0, after.find('/'));
        if (auto at = after.rfind('@'); at != std::string_view::npos)
            userinfo = std::string(after.substr(0, at));
    }
    http_url url;
    try
    {
        url = parse_http_url(full, what, true);
    }
    catch (const user_error& e)
    {
        std::string message = e.what();
        if (!userinfo.empty())
            for (auto pos = message.find(userinfo); pos != std::string::npos;
                 pos = message.find(userinfo, pos))
                message.replace(pos, userinfo.size(), "***");
        throw user_error(message);
    }
    // parse_http_url filled in port 80 when none was written; proxies default to 1080 as in curl.
    std::string_view authority = std::string_view(full).substr(full.find("://") + 3);
    authority = authority.substr(0, authority.find('/'));
    if (auto at = authority.rfind('@'); at != std::string_view::npos)
        authority = authority.substr(at + 1);
    if (auto close = authority.find(']'); close != std::string_view::npos)
        authority = authority.substr(close + 1);
    if (authority.find(':') == std::string_view::npos)
        url.port = 1080;
    if (!url.path.empty())
        throw user_error(std::string(what) + " '" + url.to_string() + "': a proxy URL takes no path");
    return url;
}

std::optional<http_url> select_proxy(const http_url& target, const proxy_environment& env)
{
    std::string_view chosen;
    const char* name = nullptr;
    if (target.is_https() && !env.https_proxy.empty())
    {
        chosen = env.https_proxy;
        name = "https_proxy";
    }
    else if (!target.is_https() && !env.http_proxy.empty())
    {
        chosen = env.http_proxy;
        name = "http_proxy";
    }
    else if (!env.all_proxy.empty())
    {
        chosen = env.all_proxy;
        name = "all_proxy";
    }
    if (chosen.empty() || is_loopback_host(target.host) ||
        no_proxy_matches(env.no_proxy, target.host, target.port))
        return std::nullopt;
    return parse_proxy_url(chosen, name);
}

}  // namespace warpsmith::http
