// How one attempt of http_client failed (transport_failure and the message), before the retry
// decision: Beast's and Asio's error codes mapped onto the client's own kinds.

#include "agents/http/http_client_impl.hpp"
#include "harness/core/error.hpp"

namespace warpsmith::http
{

namespace detail
{

transport_failure classify(const error_code& ec)
{
    namespace ae = asio::error;
    if (ec == ae::operation_aborted)
        return transport_failure::cancelled;
    if (ec == beast::error::timeout || ec == ae::timed_out)
        return transport_failure::timeout;
    if (ec == ae::connection_refused || ec == ae::network_unreachable || ec == ae::host_unreachable ||
        ec == ae::network_down || ec == ae::host_not_found_try_again)
        return transport_failure::connection_refused;
    if (ec == ae::connection_reset || ec == ae::connection_aborted || ec == ae::broken_pipe ||
        ec == ae::eof || ec == ae::not_connected || ec == bhttp::error::end_of_stream)
        return transport_failure::connection_reset;
    if (ec == bhttp::error::partial_message || ec == ssl::error::stream_truncated)
        return transport_failure::truncated;
    if (ec == ae::host_not_found || ec == ae::no_data || ec == ae::service_not_found)
        return transport_failure::name_resolution;
    if (ec == bhttp::error::body_limit || ec == bhttp::error::buffer_overflow)
        return transport_failure::other;
    if (ec.category() == make_error_code(bhttp::error::bad_version).category())
        return transport_failure::malformed;
    if (ec.category() == asio::error::get_ssl_category())
        return transport_failure::tls;
    return transport_failure::other;
}

attempt_failure make_failure(const error_code& ec, const std::string& phase, bool stale)
{
    attempt_failure f;
    f.kind = classify(ec);
    // Only a closed or reset connection says "stale"; a timeout or a cancellation does not.
    f.stale =
        stale && (f.kind == transport_failure::connection_reset || f.kind == transport_failure::truncated);
    if (f.kind == transport_failure::malformed)
    {
        // Parse errors become one project code so providers need not know Beast's categories.
        f.code = make_error_code(errc::http_protocol);
        f.what = "malformed response while " + phase + " (" + ec.message() + ")";
    }
    else
    {
        f.code = ec;
        f.what = std::string(to_string(f.kind)) + " while " + phase;
    }
    return f;
}

attempt_failure protocol_failure(transport_failure kind, const std::string& what)
{
    attempt_failure f;
    f.kind = kind;
    f.code = make_error_code(errc::http_protocol);
    f.what = what;
    return f;
}

}  // namespace detail

}  // namespace warpsmith::http
