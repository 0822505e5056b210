#pragma once

// Where a JSON value sits, and json_error: the one error for a value that is not what its strict
// reader wants (docs/architecture.md, "JSON access"). The rest of the layer: json_reader.hpp reads
// strictly with these, lenient.hpp reads where absent or mistyped means "none", json_number.hpp
// writes numbers.

#include <boost/json/value.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warpsmith
{

/// The rules a strict reader applies and how its messages read, chosen by who wrote the JSON.
enum class json_style
{
    /// Files people write (workload.json, candidate files): null is a value like any other, integers
    /// are written as integers, and a message shows the value it refuses:
    /// "sgemm/workload.json: cases[2].seed: must be a non-negative integer, got -1".
    document,
    /// Records warpsmith writes (worker results, journal events): null means absent, an integral
    /// 100.0 is an integer, and a number may be one of the strings "NaN", "Inf" and "-Inf" that
    /// json_number() writes. Messages read as for documents:
    /// "cases[1].timing.median_us: must be a number, got \"fast\"".
    record,
    /// Requests to the worker: null means absent and an integral 100.0 is an integer. A message quotes
    /// the field after the op and leaves the value out (the sender has it):
    /// "evaluate: 'timing.iterations' must be an integer from 1 to 100000".
    request,
};

/// Where a JSON value sits: an origin (a file, an op, or empty), a field path inside it
/// ("cases[2].seed") and the style of what it holds.
class json_location
{
public:
    explicit json_location(std::string origin,
                           std::string path = {},
                           json_style style = json_style::document);

    /// A location without origin or path that messages call `name` ("message: must be a JSON
    /// object, got []"); its fields are named by their path alone ("cases[1].name").
    static json_location unnamed(std::string name, json_style style);

    json_location key(std::string_view k) const;  ///< path.k
    json_location index(std::size_t i) const;     ///< path[i]

    const std::string& origin() const { return origin_; }
    const std::string& path() const { return path_; }
    json_style style() const { return style_; }

    /// "<origin>: <path>" ("<origin>: '<path>'" for requests), or whichever of the two is not empty.
    std::string text() const;

    /// Throws json_error "<text()>: <problem>".
    [[noreturn]] void fail(std::string_view problem) const;
    /// Throws json_error "<text()>: must be <what>, got <got>" ("<text()> must be <what>" for requests).
    [[noreturn]] void expected(std::string_view what, const boost::json::value& got) const;
    /// Throws json_error "<text()>: 'k' is missing" ("<origin>: '<path>.k' is missing" for requests).
    [[noreturn]] void missing(std::string_view k) const;

private:
    std::string origin_;
    std::string path_;
    json_style style_;
    std::string name_;  // text() when origin and path are both empty
};

/// A JSON value that is not what a strict reader wants. what() is the whole one-line message; the
/// location names the value at fault (for a missing key, the object that lacks it). Each part
/// translates it at its boundary into the error its callers expect (user_error for workloads,
/// bad_request for worker requests, protocol::format_error for protocol records).
class json_error : public std::runtime_error
{
public:
    json_error(const std::string& message, json_location where);

    const json_location& where() const { return where_; }

private:
    json_location where_;
};

/// The shortest text that reads back as v ("0.5", "1e-05").
std::string number_text(double v);

/// A short rendering of a JSON value for messages ("got ..."), numbers written as people write them.
std::string json_excerpt(const boost::json::value& v);

}  // namespace warpsmith
