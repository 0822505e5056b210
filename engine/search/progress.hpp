#pragma once

// Progress of a search (SPEC §4 "Progress"): on a terminal a live status line (iteration, branches
// waiting on the model / compiling / queued for a GPU / timing, best speedup, tokens and cost, GPU
// busy fraction) with one permanent line per finished candidate above it; otherwise plain lines
// (one per finished candidate and iteration, and the status at most every few seconds); with
// --json-progress one JSON object per line on stdout (docs/engine.md, "Progress events").

#include "agents/strategy.hpp"

#include <boost/json/object.hpp>

#include <cstdio>
#include <optional>
#include <string>

namespace warpsmith
{

struct progress_snapshot
{
    int iteration = 0;
    std::optional<int> max_iterations;
    int proposing = 0;
    int compiling = 0;
    int queued = 0;
    int timing = 0;
    int proposed = 0;
    int evaluated = 0;
    int valid = 0;
    std::optional<double> best_speedup;
    std::string best_id;
    token_usage usage;
    double gpu_busy_fraction = 0;
    double elapsed_seconds = 0;
    int profiles = 0;            ///< --use-nsight: profiles taken so far.
    double profile_seconds = 0;  ///< Their wall time (never part of a score).

    boost::json::object to_json() const;
    /// "it 3/5 | model 2 compile 1 queued 0 timing 1 | 12 evaluated, 10 valid | best 1.84x c0007 |
    ///  12.3k tok $0.04 | GPU 87% | 42 s"
    std::string line() const;
};

/// Receives the search's events (the journal's, as they are written) with the state after each.
class progress_sink
{
public:
    virtual ~progress_sink() = default;
    virtual void event(const boost::json::object& ev, const progress_snapshot& now) = 0;
};

enum class progress_mode
{
    tty,    ///< Live status line (carriage return + clear) and permanent lines above it.
    plain,  ///< Plain lines only.
    json,   ///< One JSON object per line: {"type": "progress", "event": {...}, "status": {...}}.
    quiet,
};

class progress_reporter final : public progress_sink
{
public:
    /// Writes to out (stderr for tty/plain, stdout for json). plain_interval: seconds between
    /// status lines in plain mode.
    progress_reporter(progress_mode mode, std::FILE* out, double plain_interval = 10);
    void event(const boost::json::object& ev, const progress_snapshot& now) override;
    /// Clears the status line (tty) before the final table.
    void finish();

private:
    void permanent(const std::string& text);
    void status(const progress_snapshot& now);

    progress_mode mode_;
    std::FILE* out_;
    double plain_interval_;
    double last_plain_ = -1e9;
    bool status_shown_ = false;
};

/// One line describing an event for the plain/tty log, or "" for events not worth a line.
std::string describe_event(const boost::json::object& ev);

}  // namespace warpsmith
