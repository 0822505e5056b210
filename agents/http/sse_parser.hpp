#pragma once

// Server-sent events framing (WHATWG HTML "event stream interpretation"), as a sans-I/O parser:
// feed it body bytes exactly as they arrive from the network, in pieces of any size, and it returns
// the events completed by those bytes.
//
// * Line ends are CRLF, LF or CR, and a piece may end anywhere, including between the CR and LF of
//   one CRLF or inside a UTF-8 sequence: bytes are buffered until their line is complete, and line
//   ends are ASCII, so an event's data is always whole UTF-8 when the producer's was.
// * A blank line dispatches the event. "data" lines are joined with '\n'; one space after the colon
//   is stripped; lines starting with ':' are comments (keep-alives) and only counted; unknown fields
//   are ignored; a leading UTF-8 byte order mark is skipped.
// * A block without data lines dispatches nothing (as the standard says), but its "id" and "retry"
//   still take effect.
// * The "[DONE]" sentinel of Chat Completions is an ordinary event here; callers decide.
// * End of stream: by the standard, an event not terminated by a blank line is discarded. finish()
//   reports it instead of returning it unless the parser was built with dispatch_incomplete_at_end.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::http
{

struct sse_event
{
    std::string event = "message";  ///< The "event" field, "message" when the block had none.
    std::string data;               ///< "data" lines joined with '\n'.
    std::string id;                 ///< The last event id seen so far in the stream ("" if none).
    std::optional<std::chrono::milliseconds> retry;  ///< A "retry" field given in this block.
};

class sse_parser
{
public:
    struct options
    {
        /// Return an unterminated last event from finish() instead of discarding it (lenient mode
        /// for servers that close right after the last "data:" line).
        bool dispatch_incomplete_at_end = false;
        /// A line or an event's data longer than this is a protocol error (a runaway stream must
        /// not exhaust memory). Throws system_error(errc::http_protocol).
        std::size_t max_event_bytes = 16u << 20;
    };

    sse_parser();
    explicit sse_parser(options opts);

    /// Consumes bytes and returns the events they complete, in order.
    std::vector<sse_event> feed(std::string_view bytes);
    /// Like feed(), appending to `out` (avoids a vector per network read).
    void feed(std::string_view bytes, std::vector<sse_event>& out);

    /// Signals end of stream. Returns the unterminated last event in lenient mode, else nothing.
    std::optional<sse_event> finish();

    /// True when bytes of an event not yet terminated by a blank line are buffered.
    bool has_partial_event() const;
    /// The id of the last event (the "Last-Event-ID" to resume from).
    const std::string& last_event_id() const { return last_id_; }
    /// The last "retry" value in the stream, if any.
    std::optional<std::chrono::milliseconds> reconnection_time() const { return reconnect_; }
    /// Comment lines seen (keep-alives).
    std::size_t comment_count() const { return comments_; }

private:
    void process_line(std::string_view line, std::vector<sse_event>& out);
    void dispatch(std::vector<sse_event>& out);

    options opts_;
    std::string line_;             // bytes of the current, unterminated line
    bool after_cr_ = false;        // the previous byte was CR: an immediately following LF is skipped
    bool at_stream_start_ = true;  // a byte order mark is stripped only here
    std::string bom_probe_;        // first bytes while checking for a BOM split across pieces
    std::string data_;
    bool has_data_ = false;
    std::string event_;
    std::optional<std::chrono::milliseconds> block_retry_;
    bool block_started_ = false;  // any non-blank line since the last dispatch
    std::string last_id_;
    std::optional<std::chrono::milliseconds> reconnect_;
    std::size_t comments_ = 0;
};

}  // namespace warpsmith::http
