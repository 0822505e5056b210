#pragma once

// An answer from a model API that arrived but cannot be used: a body or stream event that is not
// JSON, a stream that reports an error or ends early, a response object without its fields. These
// are warpsmith::system_error(errc::llm_protocol), which the provider answers by asking again
// (docs/agents.md, "HTTP behaviour"). Shared by the Responses and Chat Completions mappings and the
// client that drives them.

#include "harness/core/error.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace warpsmith::llm
{

/// The server said it failed this request: a Responses "response.failed" result, or an "error"
/// event in a stream (Responses or Chat Completions), rate limits included. Not the answer's fault,
/// so it never goes to answer validation: the client asks again with back-off under the retry
/// policy, except for codes that repeating cannot fix (api_code() "insufficient_quota", or one
/// starting with "invalid_"). code() is errc::llm_protocol; the type tells it apart.
class server_reported_failure : public system_error
{
public:
    server_reported_failure(std::string api_code, const std::string& what);
    /// The API's error code ("server_error", "rate_limit_exceeded", ...), "" when none was given.
    const std::string& api_code() const { return api_code_; }

private:
    std::string api_code_;
};

/// Throws system_error(errc::llm_protocol) with `what` as its context.
[[noreturn]] void throw_protocol_error(const std::string& what);

/// Parses text as JSON; otherwise throws a protocol error "<context>: <one-line excerpt of text>".
boost::json::value parse_wire_json(std::string_view text, const std::string& context);

}  // namespace warpsmith::llm
