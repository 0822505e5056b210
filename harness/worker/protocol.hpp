#pragma once

// The worker's side of docs/worker-protocol.md: error kinds of ok:false responses, response
// framing, field readers that turn malformed requests into one-line bad_request messages, and the
// writer that owns the protocol stream (stdout carries protocol lines only, one per response,
// flushed at once).

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

/// A JSON number for finite values; "NaN", "Inf" or "-Inf" otherwise (JSON has no such numbers and
/// a serializer would write something no parser accepts).
boost::json::value json_number(double v);

/// Typed access to a request's fields; every problem is a bad_request naming the op and field
/// ("evaluate: 'timing.iterations' must be a positive integer").
class field_reader
{
public:
    field_reader(const boost::json::object& object, std::string where);

    const boost::json::value* find(std::string_view key) const;
    const boost::json::object& require_object(std::string_view key) const;
    const boost::json::object* optional_object(std::string_view key) const;
    const boost::json::array* optional_array(std::string_view key) const;
    const boost::json::array& require_array(std::string_view key) const;
    std::optional<std::int64_t> optional_int(std::string_view key, std::int64_t min, std::int64_t max) const;
    std::optional<std::uint64_t> optional_uint64(std::string_view key) const;
    std::optional<double> optional_number(std::string_view key, double min) const;
    std::optional<bool> optional_bool(std::string_view key) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    std::string require_string(std::string_view key) const;
    std::vector<std::string> optional_strings(std::string_view key) const;

    /// "evaluate: 'timing.x'" for a key of this object.
    std::string name(std::string_view key) const;
    /// A reader for a nested object, naming fields "where.key.x".
    field_reader nested(std::string_view key) const;

private:
    const boost::json::object& object_;
    std::string where_;   // "evaluate"
    std::string prefix_;  // "timing." for nested readers
};

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
