#pragma once

// journal.jsonl, the source of truth of a run (SPEC §4; docs/run-directory.md, "journal.jsonl"):
// append-only, one JSON object per line, every event written with one write(2) on an O_APPEND
// descriptor before the engine moves on. A crash of warpsmith, even kill -9, therefore leaves
// every finished event on disk; at most the line being written is torn. A line counts only once
// its newline is on disk: readers ignore a torn last line, and the writer cuts it off before it
// appends again, so the next event starts on a line of its own.
//
// write(2) hands the bytes to the kernel, which survives a crash of the process; sync() (fdatasync)
// is called at the end of a run and at resume points, not per event, so a power loss may lose the
// last events (never tear an earlier one).

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// The events of a journal, in order (sans-I/O: no file access).
struct journal_contents
{
    std::vector<boost::json::object> events;
    bool torn_tail = false;          ///< The text ended in a partial line, which was ignored.
    std::size_t complete_bytes = 0;  ///< Length of the text up to and including the last newline.
};

/// Parses journal text. A last line without its newline is a torn write and is ignored; an empty
/// line is skipped; any other line that is not a JSON object throws user_error
/// "<origin>:<line>: ...".
journal_contents parse_journal(std::string_view text, std::string_view origin);

/// Reads and parses a journal file (user_error when unreadable).
journal_contents read_journal(const std::filesystem::path& path);

class journal_writer
{
public:
    /// Opens path for appending, creating it when absent, after cutting off a torn last line.
    /// next_seq numbers the next event (1 for a new journal; one past the last on resume).
    /// Throws user_error when the file cannot be opened.
    journal_writer(const std::filesystem::path& path, std::int64_t next_seq);
    ~journal_writer();
    journal_writer(const journal_writer&) = delete;
    journal_writer& operator=(const journal_writer&) = delete;

    /// Stamps the event with "seq" and "time" (UTC, ISO 8601 with milliseconds), serializes it as
    /// one line and writes it with a single write(2) (looping only on a short write). Throws
    /// system_error when the write fails.
    void append(boost::json::object event);
    /// fdatasync.
    void sync();

    std::int64_t next_seq() const { return next_seq_; }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
    int fd_ = -1;
    std::int64_t next_seq_ = 1;
};

/// Now as "2026-12-02T13:57:02.123Z".
std::string utc_timestamp();

}  // namespace warpsmith
