#pragma once

// Everything the engine knows about one candidate, and its journal events (docs/run-directory.md,
// "Journal events"). A candidate is journaled three times as it moves through the pipeline:
// `proposed` (the proposal, before any compile), `compiled` (the compile outcome, without the
// cubin) and `evaluated` (the GPU result with its derived score and speedups). Replaying those
// events rebuilds the same records, which is what --resume does.

#include "agents/strategy.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace warpsmith {

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

    const std::string& id() const { return ec.id; }
};

/// Candidate ids: "c0001", "c0002", ... (four digits, more when needed).
std::string candidate_id(int number);
/// The number of an id made by candidate_id, or 0 when text is not such an id.
int candidate_number(std::string_view id);

/// The compile outcome as journaled and shown to strategies: everything but the cubin.
boost::json::object compile_summary_json(const compile_output& c);
compile_output compile_summary_from_json(const boost::json::value& v);

boost::json::object proposed_event(const candidate_record& r);
boost::json::object compiled_event(const candidate_record& r);
boost::json::object evaluated_event(const candidate_record& r);

/// Applies one of the three events above to a record (the record of a `proposed` event is built
/// from scratch). Throws user_error naming the event when a field is missing or malformed.
candidate_record record_from_proposed(const boost::json::object& event);
void apply_compiled(candidate_record& r, const boost::json::object& event);
void apply_evaluated(candidate_record& r, const boost::json::object& event);

/// A compact row for history.json and progress output: id, branch, iteration, parent, status,
/// failure, score, speedups, per-case medians, GPU.
boost::json::object history_row(const candidate_record& r);

}  // namespace warpsmith
