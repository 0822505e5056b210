#pragma once

// Replaying a journal (sans-I/O): the events of journal.jsonl folded, in order, into the state
// --resume continues from (docs/run-directory.md, "Resume"). Replay is a plain class fed one event
// at a time; it never touches files, so its rules are unit-tested on event lists.
//
// What it rebuilds: every candidate (proposed, compiled, evaluated), the order in which they
// finished, the last finished iteration, token usage, the vendor baselines already timed, the next
// journal sequence number and next candidate number. A candidate proposed but not evaluated is pending:
// resume evaluates it (it is never proposed again and never lost); an evaluated one is never evaluated again.
// An `invalidated` event (the final confirmation found the candidate invalid) makes it invalid for good.

#include "agents/strategy.hpp"
#include "engine/run/candidate_record.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warpsmith
{

struct replayed_run
{
    std::vector<candidate_record> candidates;  ///< In proposal order.
    std::map<std::string, std::size_t, std::less<>> by_id;
    std::vector<std::size_t> evaluation_order;  ///< Indexes into candidates, in finish order.
    int last_finished_iteration = 0;            ///< Iteration barrier mode.
    token_usage usage;                          ///< Summed `usage` events.
    std::int64_t next_seq = 1;
    int starts = 0;                         ///< `run_started` events (1 + resumes).
    bool finished = false;                  ///< A `run_finished` event was seen last.
    std::vector<std::string> stop_reasons;  ///< Every `stop_requested` reason, in order.
    /// Vendor baselines timed in earlier sessions: the `vendor_baseline` events with
    /// `available: true`, by key (the last one of a key wins). They are timed once per run, so a
    /// resume keeps them; one that could not be timed is asked for again.
    std::map<std::string, boost::json::object> vendor_baselines;

    /// Ids proposed but not evaluated, in proposal order.
    std::vector<std::string> pending_ids() const;
    /// One past the highest candidate number used.
    int next_candidate_number() const;
    const candidate_record* find(std::string_view id) const;
};

class run_replay
{
public:
    /// Applies one event. Unknown event types are skipped (newer tools may add some). A malformed
    /// candidate event, a duplicate proposal or an evaluation of an unknown id throws user_error.
    void apply(const boost::json::object& event);
    const replayed_run& state() const { return state_; }
    replayed_run take() { return std::move(state_); }

private:
    replayed_run state_;
};

replayed_run replay_events(const std::vector<boost::json::object>& events);

}  // namespace warpsmith
