#pragma once

// The final confirmation's rounds and the choice of the winner (SPEC §3 "Trust rules": the winner
// is chosen only among candidates whose every timing path validated; docs/engine.md, "Scoring and
// confirmation"). Sans-I/O: the engine performs the time_interleaved requests, journals the
// outcome, and asks these functions what to do next.
//
//  * An attempt re-times the `top` best valid candidates not confirmed before, the initial kernel
//    and the reference, interleaved. A candidate the worker lists as invalid is invalidated for the
//    rest of the run (the engine journals it) and cannot win.
//  * When no candidate of an attempt survived (each was invalid or went untimed) and at least one
//    was invalidated, the next best valid candidates are confirmed in another attempt, up to
//    max_attempts. The last attempt decides: it re-times the initial kernel and the reference as
//    well, so its numbers compare every survivor.
//  * The winner is the last attempt's; when the confirmation invalidated every candidate it timed
//    and nothing else won there, there is no winner (no best.cu). When the confirmation did not
//    run or failed as a whole (a worker crash), the search's best valid candidate wins, marked
//    unconfirmed, with the reason in the summary's note.

#include "agents/strategy.hpp"
#include "engine/search/scoring.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpsmith
{

class confirmation_planner
{
public:
    /// top: candidates per attempt (--confirm-top); max_attempts >= 1.
    confirmation_planner(int top, int max_attempts);

    /// The candidates of the next attempt: the `top` best valid candidates of history (ranking of
    /// scoring.hpp) that no earlier attempt confirmed. Empty when the confirmation is done.
    std::vector<std::string> next(const std::vector<evaluated_candidate>& history) const;

    /// Records what an attempt over `batch` decided.
    void record(const std::vector<std::string>& batch, const confirmation_decision& d);

    int attempts() const { return attempts_; }
    /// Every candidate id an attempt found invalid, in the order found.
    const std::vector<confirmation_failure>& invalidated() const { return invalidated_; }
    /// The last attempt confirmed no candidate (each invalid or untimed) and invalidated at least one.
    bool no_candidate_survived() const { return attempts_ > 0 && !survived_ && last_invalidated_; }

private:
    int top_;
    int max_attempts_;
    int attempts_ = 0;
    bool survived_ = false;
    bool last_invalidated_ = false;
    std::set<std::string> tried_;
    std::vector<confirmation_failure> invalidated_;
};

/// What the winner choice needs to know.
struct winner_inputs
{
    /// The last attempt's decision, when the confirmation ran to its end.
    const confirmation_decision* decision = nullptr;
    /// confirmation_planner::no_candidate_survived() of a confirmation that ran to its end.
    bool no_candidate_survived = false;
    /// Candidates invalidated by the confirmation (for the note).
    std::vector<confirmation_failure> invalidated;
    /// The best valid candidate by the search's ranking (invalidated ones excluded).
    std::optional<std::string> search_best;
    /// The initial kernel is valid (on GPU 0) and was not invalidated by the confirmation.
    bool initial_valid = false;
    /// Why the confirmation did not decide, when it did not ("--confirm-top 0", "failed: ...").
    std::string skipped;
};

struct winner_choice
{
    std::optional<std::string> winner;  ///< A candidate id, "initial", or none.
    std::string decided_by;             ///< "confirmation" or "search" ("" without a winner).
    bool confirmed = false;             ///< The winner's interleaved timings all validated.
    std::string note;                   ///< One sentence for summary.json "best_note"; "" when none.
};

winner_choice choose_winner(const winner_inputs& in);

}  // namespace warpsmith
