#pragma once

// Everything the engine knows about one candidate, and its journal events (docs/run-directory.md,
// "Journal events"). A candidate is journaled three times as it moves through the pipeline:
// `proposed` (the proposal, before any compile), `compiled` (the compile outcome, without the
// cubin) and `evaluated` (the GPU result with its derived score and speedups); a fourth,
// `invalidated`, follows when the final confirmation finds an evaluated candidate invalid.
// Replaying those events rebuilds the same records, which is what --resume does.

#include "agents/strategy.hpp"
#include "harness/json/json_location.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace warpsmith
{

struct candidate_record
{
    evaluated_candidate ec;                ///< Id, branch, iteration, proposal, outcome (strategy view).
    std::optional<std::string> repair_of;  ///< The invalid candidate this one repairs.
    bool compiled = false;                 ///< A `compiled` event was recorded.
    bool evaluated = false;                ///< An `evaluated` event was recorded.
    int gpu = -1;                          ///< The GPU that evaluated it (-1: never reached a GPU).
    double queued_ms = 0;                  ///< Waiting for a GPU.
    double busy_ms = 0;                    ///< GPU time of its evaluation.
    bool worker_restarted = false;         ///< Its evaluation restarted the worker (fault, hang, crash).
    std::string restart_reason;
    /// Set when a later check found the evaluated candidate invalid (the final confirmation's
    /// interleaved launches): {"stage": "confirmation", "attempt", "kind", "case", "message"}. The
    /// search's numbers stay in ec (case_median_us, score_us, speedups), but ec.valid is false and
    /// ec.failure_kind / failure_message say why.
    std::optional<boost::json::object> invalidated;

    const std::string& id() const { return ec.id; }
};

/// Candidate ids: "c0001", "c0002", ... (four digits, more when needed).
std::string candidate_id(int number);
/// The number of an id made by candidate_id, or 0 when text is not such an id.
int candidate_number(std::string_view id);

/// The compile outcome as journaled and shown to strategies: everything but the cubin.
boost::json::object compile_summary_json(const compile_output& c);
/// Reads it back strictly; throws json_error naming the field at loc.
compile_output compile_summary_from_json(const boost::json::value& v, const json_location& loc);

boost::json::object proposed_event(const candidate_record& r);
boost::json::object compiled_event(const candidate_record& r);
/// With "invalidated" (the record's object) when the record was invalidated: result.json.
boost::json::object evaluated_event(const candidate_record& r);
/// {"event": "invalidated", "id", "stage", "attempt", "failure": {"kind", "case", "message"}}.
boost::json::object invalidated_event(const candidate_record& r);

/// Applies one of the three events above to a record (the record of a `proposed` event is built
/// from scratch). Throws user_error naming the event when a field is missing or malformed.
candidate_record record_from_proposed(const boost::json::object& event);
void apply_compiled(candidate_record& r, const boost::json::object& event);
void apply_evaluated(candidate_record& r, const boost::json::object& event);
void apply_invalidated(candidate_record& r, const boost::json::object& event);
/// Marks an evaluated record invalid after the fact (what apply_invalidated does with the event's
/// fields): stage "confirmation", the failure kind, case (may be empty) and message.
void invalidate_record(candidate_record& r,
                       const std::string& stage,
                       int attempt,
                       const std::string& kind,
                       const std::string& case_name,
                       const std::string& message);
/// Whether the search found it valid (before any invalidation): what the scheduler saw.
bool valid_in_search(const candidate_record& r);

/// A compact row for history.json and progress output: id, branch, iteration, parent, status,
/// failure, score, speedups, per-case medians, GPU; "invalidated" (the record's object) when a
/// later check invalidated it.
boost::json::object history_row(const candidate_record& r);

}  // namespace warpsmith
