#pragma once

// Two error tiers (docs/architecture.md, "Errors"):
//  * user_error: bad input or environment the user can fix (malformed workload, unknown flag, no
//    GPU). It carries one clear line; the CLI prints "warpsmith: <line>" and exits non-zero.
//  * errc / std::system_error: infrastructure failures (a worker died, a pipe broke, a protocol
//    violation, an HTTP transport failure). They surface as exceptions from awaitable code.
// Expected domain outcomes (a kernel that does not compile, a candidate that fails validation)
// are values, never exceptions.

#include <boost/system/error_code.hpp>

#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>

namespace warpsmith
{

/// A problem the user can fix, described in one line naming the file, field or flag at fault.
class user_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// Infrastructure failures. Values start at 1 so that a default error_code means success; they are
/// fixed (gaps are values no longer raised), so a logged number keeps its meaning.
enum class errc
{
    worker_exited = 1,    ///< A worker process ended while a request was outstanding.
    worker_protocol = 2,  ///< A worker sent a line that is not a valid protocol message.
    worker_timeout = 3,   ///< A worker did not answer within its deadline.
    nvrtc_failure = 6,    ///< NVRTC itself failed (not a compile error in the kernel).
    http_status = 7,      ///< An HTTP server answered with a non-success status.
    http_protocol = 8,    ///< An HTTP/SSE stream could not be parsed.
    llm_protocol = 9,     ///< A model API answered with a payload we cannot interpret.
    cancelled = 11,       ///< The operation was cancelled by the user.
};

const boost::system::error_category& warpsmith_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept
{
    return {static_cast<int>(e), warpsmith_category()};
}

}  // namespace warpsmith

template <>
struct boost::system::is_error_code_enum<warpsmith::errc> : std::true_type
{
};
