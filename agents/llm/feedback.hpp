#pragma once

// What the model is told each round (SPEC §5 "Feedback"), rendered as plain text by pure
// functions: the workload and the contract, the device summary, the current best with per-case
// times and speedups, its parent, recent failures with their reasons (compile log excerpt,
// mismatch summary, launch error), resource usage, and what the other branches tried. The prompt
// texts themselves are in prompts.cpp and documented in docs/prompts.md.
//
// The first line of every user prompt is a machine-readable tag,
//   [warpsmith task=propose mode=improve branch=2 iteration=3]
// which makes records easy to grep and lets test servers answer by task.

#include "agents/strategy.hpp"

#include <boost/json/object.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::llm
{

/// How the strategy wants this round framed.
enum class proposal_mode
{
    start,      ///< Nothing valid yet: improve on the initial kernel (or write one).
    improve,    ///< Improve the parent.
    repair,     ///< Fix the branch's invalid candidate.
    crossover,  ///< Combine two parents.
};

std::string_view to_string(proposal_mode m);

/// Everything a round's prompt is made of (copies: valid after the engine's view changes).
struct feedback_input
{
    const workload* work = nullptr;
    boost::json::object device;
    std::map<std::string, double> reference_median_us;
    std::map<std::string, double> initial_median_us;
    proposal_mode mode = proposal_mode::start;
    int branch = 0;
    int iteration = 0;
    int branches = 1;
    std::optional<evaluated_candidate> best;
    std::string best_profile;     ///< --use-nsight: Nsight Compute summary of the best, when taken.
    std::string best_profile_id;  ///< Whose profile it is (an earlier best when the best just changed).
    std::optional<evaluated_candidate> parent;         ///< The candidate to improve (may be the best).
    std::optional<evaluated_candidate> second_parent;  ///< crossover
    std::optional<evaluated_candidate> repair_of;      ///< repair
    std::vector<evaluated_candidate> recent_failures;  ///< Newest first, a few.
    std::vector<evaluated_candidate> other_branches;   ///< The latest candidate of each other branch.
    std::string hint;                                  ///< Strategy advice (evolve: a feature to explore).
    bool structured = true;                            ///< The answer format the prompt describes.
    bool tools = true;                                 ///< Tools are offered.
};

/// `extern "C" __global__ void sgemm(int M, ..., const float* __restrict__ A, ..., float* __restrict__ C)`
std::string render_signature(const workload& w, const std::string& entry);
/// Name, description, signature, buffers, tolerance, cases, the reference's launch plan and source.
std::string render_workload(const workload& w);
std::string render_device(const boost::json::object& device);
/// One candidate: id, parent, rationale, launch, defines, resources, per-case times and speedups
/// (valid) or the failure with a log excerpt (invalid); the source when with_source.
std::string render_candidate(const evaluated_candidate& c, const feedback_input& in, bool with_source);
/// The per-case table of a valid candidate against the reference (and initial, when timed).
std::string render_case_times(const evaluated_candidate& c, const feedback_input& in);

/// The system prompt (role, contract, answer format, tools).
std::string render_system_prompt(bool structured, bool tools);
/// The user prompt of a round.
std::string render_user_prompt(const feedback_input& in);
/// The follow-up when an answer could not be used: the problems, one per line.
std::string render_answer_repair(const std::vector<std::string>& problems, bool structured);

}  // namespace warpsmith::llm
