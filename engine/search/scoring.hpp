#pragma once

// Scores, speedups and the final confirmation (SPEC §3 "Score", "Confirmation"), as pure
// functions over evaluation results (docs/engine.md, "Scoring").
//
//  * A candidate's score is the geometric mean over performance cases of its per-case medians (µs).
//  * Its speedup over the reference is the geometric mean over performance cases of
//    reference_median / candidate_median, with the reference timed on the same GPU; likewise over
//    the initial kernel. (Equal to reference_score / candidate_score when both cover the same cases.)
//  * Candidates are ranked by speedup over the reference (so that timings from different GPUs
//    compare fairly), ties by score, then id.
//  * Confirmation re-times the best few, the initial kernel and the reference interleaved on one
//    GPU; the winner is the fastest of those candidates and the initial kernel on those numbers,
//    among the entries whose interleaved launches all validated (the worker's "invalid" lists the
//    others; SPEC §3 "Trust rules"). Several attempts and the winner policy: confirmation.hpp.

#include "agents/strategy.hpp"
#include "harness/protocol/interleaved_result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

using case_medians = std::map<std::string, double>;

// The medians a score is computed from: protocol::evaluation_result::performance_medians().

/// Geometric mean of the medians; nullopt when there is none.
std::optional<double> score_of(const case_medians& medians);

/// Geometric mean over the cases present in both of base[c] / cand[c]; nullopt when none is.
std::optional<double> geomean_speedup(const case_medians& base, const case_medians& cand);

/// Ids of the k best valid candidates (ranking above).
std::vector<std::string> top_candidates(const std::vector<evaluated_candidate>& history, int k);

/// True when a ranks before b.
bool better_candidate(const evaluated_candidate& a, const evaluated_candidate& b);

/// One entry of a confirmation, with what the search measured for it.
struct confirmation_input
{
    std::string key;                        ///< "reference", "initial" or a candidate id.
    bool eligible = true;                   ///< May win (candidates and the initial kernel).
    std::optional<double> search_score_us;  ///< Score measured during the search.
};

struct confirmed_entry
{
    std::string key;
    bool eligible = true;
    case_medians medians;  ///< Confirmation medians per performance case.
    double score_us = 0;
    double speedup_vs_reference = 0;  ///< 0 when the reference has no timing.
    double speedup_vs_initial = 0;    ///< 0 without an initial kernel.
    std::optional<double> search_score_us;
    std::optional<double> rel_diff;  ///< score_us / search_score_us - 1.
};

/// An entry whose interleaved launches did not validate (time_interleaved "invalid").
struct confirmation_failure
{
    std::string key;
    std::string kind;       ///< A failure kind of the worker protocol (timed_output_mismatch, ...).
    std::string case_name;  ///< Empty when the failure is not about one case.
    std::string message;

    /// {"kind", "case" (null when none), "message"}.
    boost::json::object to_json() const;
    /// "case C: message" (or the message alone), for failure_message and logs.
    std::string text() const;
};

struct confirmation_decision
{
    std::vector<confirmed_entry> entries;       ///< Fastest first; valid entries only.
    std::vector<confirmation_failure> invalid;  ///< Entries the worker found invalid, input order.
    std::optional<std::string> winner;          ///< Fastest eligible valid entry.
    double max_abs_rel_diff = 0;                ///< Largest |confirmation / search - 1|.
    double mean_abs_rel_diff = 0;

    boost::json::object to_json() const;
};

/// Decides on the answer of time_interleaved (protocol::interleaved_result). An entry listed as
/// invalid is never scored and never wins, whatever timings it has (they may be partial); its
/// failure is in `invalid`. Reference medians of an invalid reference are not used (speedups are
/// then 0). Entries whose timings are missing are left out.
confirmation_decision decide_confirmation(const protocol::interleaved_result& response,
                                          const std::vector<confirmation_input>& inputs);

}  // namespace warpsmith
