#pragma once

// The worker's side of docs/worker-protocol.md: error kinds of ok:false responses, response
// framing, where a request's fields are read from (the JSON layer's strict reader in request style,
// whose json_error each op answers as bad_request), and the writer that owns the protocol stream
// (stdout carries protocol lines only, one per response, flushed at once). Measured numbers are
// written with json_number (harness/json/json_number.hpp).

#include "harness/json/json_number.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warpsmith::worker
{

inline constexpr int protocol_version = 1;

/// error.kind of an ok:false response.
enum class error_kind
{
    bad_request,       ///< Malformed line or fields.
    no_device,         ///< GPU mode without a usable device.
    no_workload,       ///< evaluate / time_interleaved before load_workload.
    reference_failed,  ///< The workload's reference does not compile, faults or hangs.
    no_baseline,       ///< baseline: unknown kind, none declared by the workload, or no cuBLAS.
    internal,          ///< Anything else.
};

std::string_view to_string(error_kind k);

/// A request answered with ok:false. restart: the worker must exit (code 3) after answering,
/// because its CUDA context is lost (sticky error or a kernel that never ends).
class request_error : public std::runtime_error
{
public:
    request_error(error_kind kind, const std::string& message, bool restart = false)
        : std::runtime_error(message), kind_(kind), restart_(restart)
    {
    }
    error_kind kind() const { return kind_; }
    bool restart() const { return restart_; }

private:
    error_kind kind_;
    bool restart_;
};

/// Throws request_error(bad_request, message).
[[noreturn]] void bad_request(const std::string& message);

/// {"id": id, "ok": true}
boost::json::object ok_response(const boost::json::value& id);
/// {"id": id, "ok": false, "error": {"kind": ..., "message": ...}}
boost::json::object error_response(const boost::json::value& id, error_kind kind, std::string_view message);

/// The fields of a request, as messages name them: "evaluate: 'timing.iterations' must be an integer
/// from 1 to 100000". `where` is the op, or the op and an element ("time_interleaved: 'entries[0]'").
json_location request_location(std::string where);

/// Writes protocol lines to a file descriptor (a dup of the original stdout; see main.cpp).
/// Thread-safe; each line is written whole and flushed.
class protocol_writer
{
public:
    explicit protocol_writer(int fd);
    ~protocol_writer();
    protocol_writer(const protocol_writer&) = delete;
    protocol_writer& operator=(const protocol_writer&) = delete;

    /// Serialises the object on one line, appends '\n', writes and flushes. Returns false when the
    /// reader is gone (EPIPE), which ends the worker.
    bool write(const boost::json::object& response);

private:
    std::FILE* file_;
    std::mutex mutex_;
};

}  // namespace warpsmith::worker
