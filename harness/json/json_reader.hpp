#pragma once

// Strict reading of JSON (docs/architecture.md, "JSON access"): every value is checked for its
// kind, and every problem is a json_error whose one-line message names where the value sits
// ("sgemm/workload.json: cases[2].seed: must be a non-negative integer, got -1"). The style of the
// location (json_location.hpp) says whether null means absent, whether 100.0 is an integer and how
// messages read. For JSON where absent or mistyped simply means "none", see lenient.hpp.

#include "harness/json/json_location.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// The integers a field accepts. Messages name the range: "an integer" (all of int64), "a
/// non-negative integer" (from 0), "a positive integer" (from 1), else "an integer from 1 to 100".
struct json_int_range
{
    std::int64_t min = std::numeric_limits<std::int64_t>::min();
    std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

/// The value as the kind a field must have; json_error naming loc otherwise.
std::string as_string(const boost::json::value& v, const json_location& loc);
bool as_bool(const boost::json::value& v, const json_location& loc);
/// Any JSON number as a double; for records also "NaN", "Inf" and "-Inf" (json_number.hpp).
double as_number(const boost::json::value& v, const json_location& loc);
/// An integer within range. Documents must write integers as integers (1.0 and 1e3 are refused);
/// records and requests may write an integral double up to 2^53.
std::int64_t as_int64(const boost::json::value& v, const json_location& loc, json_int_range range = {});
/// A non-negative integer up to 2^64-1 (integral doubles as for as_int64).
std::uint64_t as_uint64(const boost::json::value& v, const json_location& loc);
const boost::json::object& as_object(const boost::json::value& v, const json_location& loc);
const boost::json::array& as_array(const boost::json::value& v, const json_location& loc);
/// An array of strings.
std::vector<std::string> as_strings(const boost::json::value& v, const json_location& loc);

/// One JSON object read field by field. Optionally its keys are checked against an allowed set on
/// construction: an unknown key is an error, with a "did you mean" hint for a near miss.
/// Holds a pointer into the value it reads, which must outlive the reader.
class json_reader
{
public:
    /// Throws json_error "<loc>: must be a JSON object, got ..." when v is not an object.
    json_reader(const boost::json::value& v, json_location loc);
    json_reader(const boost::json::value& v,
                json_location loc,
                std::initializer_list<std::string_view> allowed);
    json_reader(const boost::json::object& o, json_location loc);
    json_reader(const boost::json::object& o,
                json_location loc,
                std::initializer_list<std::string_view> allowed);

    const json_location& location() const { return loc_; }
    /// The location of a field of this object.
    json_location at(std::string_view key) const { return loc_.key(key); }
    const boost::json::object& object() const { return *obj_; }

    /// The value of key, or nullptr when absent (for records and requests, also when null).
    const boost::json::value* find(std::string_view key) const;
    /// The value of a required key; "<loc>: 'key' is missing" otherwise.
    const boost::json::value& require(std::string_view key) const;

    std::string require_string(std::string_view key) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    bool require_bool(std::string_view key) const;
    std::optional<bool> optional_bool(std::string_view key) const;
    double require_number(std::string_view key) const;
    std::optional<double> optional_number(std::string_view key) const;
    std::int64_t require_int64(std::string_view key, json_int_range range = {}) const;
    std::optional<std::int64_t> optional_int64(std::string_view key, json_int_range range = {}) const;
    std::uint64_t require_uint64(std::string_view key) const;
    std::optional<std::uint64_t> optional_uint64(std::string_view key) const;
    const boost::json::object& require_object(std::string_view key) const;
    const boost::json::object* optional_object(std::string_view key) const;
    const boost::json::array& require_array(std::string_view key) const;
    const boost::json::array* optional_array(std::string_view key) const;
    /// An array of strings; empty when absent.
    std::vector<std::string> optional_strings(std::string_view key) const;

    /// A reader for the required object at key, whose fields are named "key.x".
    json_reader nested(std::string_view key) const;
    json_reader nested(std::string_view key, std::initializer_list<std::string_view> allowed) const;
    /// The same for an optional object; nullopt when absent.
    std::optional<json_reader> optional_nested(std::string_view key) const;
    std::optional<json_reader> optional_nested(std::string_view key,
                                               std::initializer_list<std::string_view> allowed) const;
    /// Readers for the objects of the array at key, named "key[i]"; none when absent.
    std::vector<json_reader> optional_elements(std::string_view key) const;

    /// Throws json_error "<loc>.key: <problem>" for a value that has the right kind but is wrong.
    [[noreturn]] void fail(std::string_view key, std::string_view problem) const;

private:
    void check_keys(std::initializer_list<std::string_view> allowed) const;

    const boost::json::object* obj_ = nullptr;
    json_location loc_;
};

/// The closest of the candidates within a small edit distance, or empty (the "did you mean" hint).
std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace warpsmith
