#pragma once

// Which provider failures end the run with one line (SPEC §5, §8: no key, 401, 404 unknown model,
// unreachable base URL, a certificate that does not verify) and which only fail one proposal
// (timeouts, 5xx after retries, a 400 for one request). Plain functions: given what http_client
// threw, they build the exception to throw instead, so the mapping is tested without sockets.

#include "agents/http/http_message.hpp"
#include "agents/llm/credentials.hpp"
#include "harness/core/error.hpp"

#include <exception>
#include <string>

namespace warpsmith::llm
{

struct endpoint_context
{
    std::string provider;  ///< "openai", "openai-chat".
    std::string base_url;  ///< As configured (printable).
    std::string model;
    std::string key_source;  ///< Where the key came from ("" when none was sent).
    bool loopback = false;   ///< The base URL is a loopback host.
};

/// A final non-2xx answer -> fatal_provider_error for 401/403/404/insufficient quota, else a
/// system_error(errc::http_status) naming the status and the server's message. Both redacted.
std::exception_ptr map_status_failure(const http::http_status_error& e,
                                      const endpoint_context& ctx,
                                      const redactor& redact);

/// The one line of a non-fatal status failure: "HTTP 500 Internal Server Error from <request>
/// (after 3 attempts): <the API's message> [<its code>]", each part once. Without an API message
/// (a body that is not an API error) the body excerpt stays in its place. Redacted.
std::string status_failure_line(const http::http_status_error& e,
                                const std::string& api_message,
                                const std::string& api_code,
                                const redactor& redact);

/// A transport failure -> fatal_provider_error for connection refused, host not found and TLS
/// certificate failures; otherwise the same error with a redacted message (timeouts, resets,
/// truncation are not fatal: the next proposal may succeed).
std::exception_ptr map_transport_failure(const boost::system::system_error& e,
                                         const endpoint_context& ctx,
                                         const redactor& redact);

}  // namespace warpsmith::llm
