#pragma once

// Splits a byte stream into '\n'-terminated lines (the framing of docs/worker-protocol.md), without
// doing any I/O: the coroutine layer feeds whatever a pipe read returned and takes complete lines.
// A cap bounds memory when a child writes garbage without newlines: in strict mode an over-long line
// is an error (protocol violation on stdout); in truncating mode it is cut at the cap and the rest
// of that line dropped (stderr diagnostics).

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith
{

class line_framer
{
public:
    enum class overflow_policy
    {
        fail,      ///< overflowed() becomes true and stays true.
        truncate,  ///< The line is cut at max_line bytes; the rest up to '\n' is dropped.
    };

    explicit line_framer(std::size_t max_line, overflow_policy policy = overflow_policy::fail);

    /// Appends bytes (any split: byte by byte, several lines at once).
    void feed(std::string_view bytes);

    /// The next complete line without its '\n' (and without a trailing '\r'), if any.
    std::optional<std::string> next_line();

    /// fail policy: a line grew beyond max_line before its '\n'.
    bool overflowed() const { return overflowed_; }

    /// Bytes of the unfinished last line.
    std::size_t pending() const { return partial_.size(); }

    /// Takes the unfinished last line (at end of stream); empty when none.
    std::string take_partial();

private:
    void finish_line();

    std::size_t max_line_;
    overflow_policy policy_;
    std::string partial_;
    bool dropping_ = false;
    bool overflowed_ = false;
    std::deque<std::string> lines_;
};

}  // namespace warpsmith
