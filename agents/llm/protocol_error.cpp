#include "agents/llm/protocol_error.hpp"

#include "agents/http/http_message.hpp"
#include "harness/core/error.hpp"

#include <boost/json/parse.hpp>

namespace warpsmith::llm
{

server_reported_failure::server_reported_failure(std::string api_code, const std::string& what)
    : system_error(make_error_code(errc::llm_protocol), what), api_code_(std::move(api_code))
{
}

void throw_protocol_error(const std::string& what)
{
    throw_system_error(errc::llm_protocol, what);
}

boost::json::value parse_wire_json(std::string_view text, const std::string& context)
{
    boost::system::error_code ec;
    auto v = boost::json::parse(text, ec);
    if (ec)
        throw_protocol_error(context + ": " + http::one_line_excerpt(text, 200));
    return v;
}

}  // namespace warpsmith::llm
