#include "agents/http/http_message.hpp"

#include "harness/core/error.hpp"
#include "harness/core/secret_redaction.hpp"

#include <algorithm>
#include <cctype>

namespace warpsmith::http
{
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

std::string status_message(unsigned status,
                           const std::string& reason,
                           const std::string& context,
                           const std::string& body,
                           int attempts)
{
    std::string m = "HTTP " + std::to_string(status);
    if (!reason.empty())
        m += " " + reason;
    m += " from " + context;
    if (attempts > 1)
        m += " (after " + std::to_string(attempts) + " attempts)";
    if (!body.empty())
        m += ": " + one_line_excerpt(body);
    return m;
}

}  // namespace

std::optional<std::string> find_header(const header_list& headers, std::string_view name)
{
    for (const auto& [k, v] : headers)
        if (iequals(k, name))
            return v;
    return std::nullopt;
}

http_status_error::http_status_error(unsigned status,
                                     std::string reason,
                                     header_list headers,
                                     std::string body,
                                     const std::string& context,
                                     int attempts)
    : system_error(make_error_code(errc::http_status),
                   status_message(status, reason, context, body, attempts)),
      status_(status),
      reason_(std::move(reason)),
      headers_(std::move(headers)),
      body_(std::move(body)),
      attempts_(attempts)
{
}

bool is_sensitive_header(std::string_view name)
{
    for (std::string_view s : {"authorization", "proxy-authorization", "cookie", "set-cookie"})
        if (iequals(name, s))
            return true;
    // Vendors name their key headers freely (api-key, x-api-key, x-goog-api-key, ...): anything
    // that looks like a key, token or secret is hidden.
    std::string lower(name);
    for (char& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view s : {"api-key", "apikey", "api_key", "token", "secret"})
        if (lower.find(s) != std::string::npos)
            return true;
    return false;
}

std::string format_headers_redacted(const header_list& headers)
{
    std::string out;
    for (const auto& [k, v] : headers)
    {
        if (!out.empty())
            out += ", ";
        out += k;
        out += ": ";
        out += is_sensitive_header(k) ? std::string("[redacted]") : v;
    }
    return out;
}

std::string one_line_excerpt(std::string_view whole, std::size_t max_bytes)
{
    const std::string redacted = redact_secrets(whole);
    std::string_view text = redacted;
    bool cut = text.size() > max_bytes;
    if (cut)
    {
        std::size_t n = max_bytes;
        // Back off to the start of a UTF-8 sequence so the excerpt stays valid UTF-8.
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
            --n;
        text = text.substr(0, n);
    }
    std::string out;
    out.reserve(text.size() + 3);
    for (char c : text)
        out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    if (cut)
        out += "...";
    return out;
}

}  // namespace warpsmith::http
