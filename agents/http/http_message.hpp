#pragma once

// Plain values exchanged with http_client (no Beast types, so that providers and tests include
// nothing heavy), the exception for a final non-success status, and header redaction for logs.

#include "harness/core/error.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpsmith::http
{

/// Header fields in order; names compare case-insensitively.
using header_list = std::vector<std::pair<std::string, std::string>>;

/// The first value of header `name` (case-insensitive), or nullopt.
std::optional<std::string> find_header(const header_list& headers, std::string_view name);

struct http_request
{
    std::string method = "POST";
    /// Path (and query) below the client's base URL: "/responses" against base
    /// "https://api.openai.com/v1" requests "/v1/responses". Must start with '/'.
    std::string path;
    header_list headers;  ///< Host, Content-Length and User-Agent are added by the client.
    std::string body;
    /// Overrides http_client_options::request_timeout for this request (per attempt).
    std::optional<std::chrono::milliseconds> timeout;
};

struct http_response
{
    unsigned status = 0;
    std::string reason;
    header_list headers;
    std::string body;  ///< The whole body (request()), or empty for streams (see http_client).
    int attempts = 1;  ///< Attempts made, the successful one included.

    std::optional<std::string> header(std::string_view name) const { return find_header(headers, name); }
};

/// A final non-2xx answer (after retries, when the status is retryable). code() is
/// errc::http_status; providers map status() 401/403/404 to one-line user errors.
class http_status_error : public system_error
{
public:
    http_status_error(unsigned status,
                      std::string reason,
                      header_list headers,
                      std::string body,
                      const std::string& context,
                      int attempts);

    unsigned status() const noexcept { return status_; }
    const std::string& reason() const noexcept { return reason_; }
    const header_list& headers() const noexcept { return headers_; }
    /// The response body (truncated to http_client_options::max_error_body bytes).
    const std::string& body() const noexcept { return body_; }
    int attempts() const noexcept { return attempts_; }

private:
    unsigned status_;
    std::string reason_;
    header_list headers_;
    std::string body_;
    int attempts_;
};

/// True for headers that carry credentials: Authorization, Proxy-Authorization, Cookie,
/// Set-Cookie, and any name containing "api-key", "apikey", "api_key", "token" or "secret"
/// (api-key, x-api-key, x-goog-api-key, ...). Their values never reach a log or a record.
bool is_sensitive_header(std::string_view name);

/// "Name: value" lines joined by ", ", with sensitive values replaced by "[redacted]".
std::string format_headers_redacted(const header_list& headers);

/// One line (control characters replaced by spaces) of at most max_bytes, with "..." when cut.
/// Secrets the process knows (secret_redaction.hpp) are replaced before the cut: an excerpt of a
/// server's answer that echoes the API key must not end in the key's first bytes, which no later
/// redaction would recognise.
std::string one_line_excerpt(std::string_view text, std::size_t max_bytes = 300);

}  // namespace warpsmith::http
