#pragma once

// An answer from a model API that arrived but cannot be used: a body or stream event that is not
// JSON, a stream that reports an error or ends early, a response object without its fields. These
// are std::system_error(errc::llm_protocol), which the provider answers by asking again
// (docs/agents.md, "HTTP behaviour"). Shared by the Responses and Chat Completions mappings and the
// client that drives them.

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace warpsmith::llm
{

/// Throws std::system_error(errc::llm_protocol) with `what` as its message.
[[noreturn]] void throw_protocol_error(const std::string& what);

/// Parses text as JSON; otherwise throws a protocol error "<context>: <one-line excerpt of text>".
boost::json::value parse_wire_json(std::string_view text, const std::string& context);

}  // namespace warpsmith::llm
