#pragma once

// Reading the protocol's JSON back into its types: every problem is a protocol::format_error
// naming the field's path ("cases[2].timing.median_us: expected a number"). Lenient about absence
// (a missing or null field keeps its default, so records written by older versions still read) and
// strict about kind (a field of the wrong type is an error, never a silent default).

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warpsmith::protocol
{

/// A protocol message or record that does not have the documented shape.
class format_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// One JSON object being read, with the path that names it in messages.
class object_in
{
public:
    /// Throws format_error "<path>: expected an object" when v is not one.
    object_in(const boost::json::value& v, std::string path);

    const std::string& path() const { return path_; }
    std::string path_of(std::string_view key) const;
    /// The value of key, or nullptr when absent or null.
    const boost::json::value* find(std::string_view key) const;

    std::optional<std::string> string(std::string_view key) const;
    std::optional<bool> boolean(std::string_view key) const;
    /// Any JSON number; the strings "NaN", "Inf" and "-Inf" (how non-finite values are written).
    std::optional<double> number(std::string_view key) const;
    std::optional<std::int64_t> integer(std::string_view key) const;
    std::optional<std::uint64_t> count(std::string_view key) const;

    [[noreturn]] void fail(std::string_view key, std::string_view problem) const;

private:
    const boost::json::object* object_ = nullptr;
    std::string path_;
};

/// A JSON number for finite values; "NaN", "Inf" or "-Inf" otherwise (JSON has no such numbers).
boost::json::value number_json(double v);

}  // namespace warpsmith::protocol
