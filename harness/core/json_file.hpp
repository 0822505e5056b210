#pragma once

// Reading and writing the JSON files warpsmith keeps (workloads, run directories, caches).
// Parse errors name the file, line and column; writes are atomic (temporary file + rename) so
// that a crash never leaves a half-written file behind.

#include <boost/json/value.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace warpsmith
{

/// Parses JSON text; on failure throws user_error "<origin>:<line>:<col>: <what>".
boost::json::value parse_json(std::string_view text, std::string_view origin);

/// Reads and parses a JSON file; a missing or unreadable file or bad JSON throws user_error.
boost::json::value read_json_file(const std::filesystem::path& path);

/// Reads a whole file; throws user_error naming the path when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

/// Writes bytes to path atomically: a temporary file in the same directory, fsync, rename.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

/// Writes a JSON value, pretty-printed with two-space indentation and a final newline, atomically.
void write_json_file(const std::filesystem::path& path, const boost::json::value& value);

/// Two-space indented rendering of a JSON value (Boost 1.81 has no pretty printer), made safe to
/// write and to read back like to_json_text.
std::string pretty_json(const boost::json::value& value);

/// Compact JSON text of a value for a file, a pipe, a model request or standard output: strings
/// that are not UTF-8 are repaired and raw controls written as \u escapes (json_safe_text,
/// harness/core/utf8_text.hpp), so that whatever a kernel's compile log or a model's answer held,
/// the text can be read back by a strict JSON parser.
std::string to_json_text(const boost::json::value& value);

}  // namespace warpsmith
