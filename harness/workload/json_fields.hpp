#pragma once

// Internal to warpsmith_workload: reading JSON objects field by field with one-line errors that
// name the file and the field ("sgemm/workload.json: cases[2].seed: must be a non-negative
// integer, got -1"). Not part of the public contract; other parts should not include it.

#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::detail
{

/// Where a JSON value sits: an origin (a file name, or empty) and a field path inside it.
class json_location
{
public:
    explicit json_location(std::string origin, std::string path = {});

    json_location key(std::string_view k) const;  ///< path.k
    json_location index(std::size_t i) const;     ///< path[i]
    /// "<origin>: <path>", or whichever of the two is not empty.
    std::string text() const;
    const std::string& origin() const { return origin_; }
    const std::string& path() const { return path_; }

    /// Throws user_error "<text()>: <problem>".
    [[noreturn]] void fail(std::string_view problem) const;

private:
    std::string origin_;
    std::string path_;
};

/// The shortest text that reads back as v ("0.5", "1e-05").
std::string number_text(double v);

/// A short rendering of a JSON value for messages ("got ...").
std::string json_excerpt(const boost::json::value& v);

/// True for [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(std::string_view s);
/// True for C and C++ keywords that cannot name a kernel parameter or macro.
bool is_reserved_word(std::string_view s);

/// An object whose keys are checked against an allowed set on construction (unknown keys are
/// errors, with a "did you mean" hint for near misses), then read field by field.
class json_object_reader
{
public:
    json_object_reader(const boost::json::value& v,
                       json_location loc,
                       std::initializer_list<std::string_view> allowed);

    const json_location& location() const { return loc_; }
    json_location at(std::string_view key) const { return loc_.key(key); }
    const boost::json::object& object() const { return *obj_; }

    const boost::json::value* find(std::string_view key) const;
    /// The value of a required key; "<loc>: 'key' is missing" otherwise.
    const boost::json::value& require(std::string_view key) const;

    std::string require_string(std::string_view key) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    std::optional<double> optional_number(std::string_view key) const;

private:
    const boost::json::object* obj_ = nullptr;
    json_location loc_;
};

std::string as_string(const boost::json::value& v, const json_location& loc);
/// Any JSON number as a double.
double as_number(const boost::json::value& v, const json_location& loc);
/// A JSON integer that fits int64 (1.0 or 1e3 are refused: counts and values are integers).
std::int64_t as_int64(const boost::json::value& v, const json_location& loc);
/// A non-negative JSON integer up to 2^64-1.
std::uint64_t as_uint64(const boost::json::value& v, const json_location& loc);
const boost::json::object& as_object(const boost::json::value& v, const json_location& loc);
const boost::json::array& as_array(const boost::json::value& v, const json_location& loc);

/// The closest of the candidates within edit distance 2, or empty.
std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace warpsmith::detail
