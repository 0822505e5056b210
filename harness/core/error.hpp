#pragma once

// Two error tiers (docs/architecture.md, "Errors"):
//  * user_error: bad input or environment the user can fix (malformed workload, unknown flag, no
//    GPU). It carries one clear line; the CLI prints "warpsmith: <line>" and exits non-zero.
//  * system_error (a boost::system::system_error carrying an errc, a CUresult or an Asio/Beast
//    code): infrastructure failures (a worker died, a pipe broke, a protocol violation, an HTTP
//    transport failure). They surface as exceptions from awaitable code. Asio, Beast and Process
//    throw boost::system::system_error too, and in Boost 1.81 that type does not derive from
//    std::system_error, so the project throws only this family: one
//    catch (const boost::system::system_error&) sees every infrastructure failure.
// Expected domain outcomes (a kernel that does not compile, a candidate that fails validation)
// are values, never exceptions.

#include <boost/system/errc.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

#include <stdexcept>
#include <string>
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

/// The project's infrastructure failure: code() is the error (an errc, a CUresult in the "cuda"
/// category, an Asio/Beast/SSL code); what() reads "<context>: <code().message()>", the wording
/// std::system_error gave. Domain types carrying more detail derive from it (cuda::cuda_error,
/// http::http_status_error, llm::server_reported_failure).
class system_error : public boost::system::system_error
{
public:
    system_error(const boost::system::error_code& ec, const std::string& context)
        : boost::system::system_error(ec, context),
          what_(context.empty() ? ec.message() : context + ": " + ec.message())
    {
    }

    /// Boost's own what() appends " [category:value]" (and a source location); ours keeps the
    /// one-line wording that logs, records and the model see.
    const char* what() const noexcept override { return what_.what(); }

private:
    // A runtime_error rather than a std::string: copying it never throws, as copying an exception
    // must not.
    std::runtime_error what_;
};

/// Throws system_error(ec, context): "<context>: <ec.message()>". An errc converts to ec.
[[noreturn]] inline void throw_system_error(const boost::system::error_code& ec, const std::string& context)
{
    throw system_error(ec, context);
}

/// True for the codes that mean "cancelled": errc::cancelled (an executor that stops) and
/// operation_aborted / ECANCELED (Asio's cancellation, thrown at a co_await after a cancellation
/// signal). Catch sites that turn failures into values or user errors let these through.
inline bool is_cancellation(const boost::system::error_code& ec) noexcept
{
    return ec == make_error_code(errc::cancelled) || ec == boost::system::errc::operation_canceled;
}

}  // namespace warpsmith

template <>
struct boost::system::is_error_code_enum<warpsmith::errc> : std::true_type
{
};
