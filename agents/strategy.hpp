#pragma once

// The engine's strategy interface (SPEC §4 "A strategy interface"): a strategy proposes candidates
// given the state of the search. Model strategies (refine, beam, evolve), the scripted provider and
// the autotune strategies all implement it; the engine never knows which one it drives.
//
// Threading: every member function is called on the engine's io_context (one thread), so a strategy
// needs no locks. propose() may suspend (a model request takes tens of seconds); several propose()
// calls of one strategy may be in flight at once, one per branch.

#include "harness/compile/compile_request.hpp"
#include "harness/protocol/evaluation_result.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

/// What a strategy hands the engine.
struct proposal
{
    candidate cand;
    std::string rationale;              ///< Why this candidate; shown in reports and to models.
    std::optional<std::string> parent;  ///< Id of the candidate it derives from ("c0003").
    boost::json::object meta;           ///< Strategy-specific data kept in candidate.json
                                        ///< (e.g. {"point": {"BM": 128, ...}} for autotune).
};

/// Token accounting of one model exchange (SPEC §5 "Accounting").
struct token_usage
{
    std::int64_t input = 0;
    std::int64_t cached_input = 0;
    std::int64_t output = 0;
    std::int64_t reasoning = 0;
    std::int64_t web_search_calls = 0;  ///< Hosted web searches (billed per call).
    double cost_usd = 0;

    token_usage& operator+=(const token_usage& o)
    {
        input += o.input;
        cached_input += o.cached_input;
        output += o.output;
        reasoning += o.reasoning;
        web_search_calls += o.web_search_calls;
        cost_usd += o.cost_usd;
        return *this;
    }

    /// The counts a server reported, made usable for budgets: negative counts (which let a server
    /// run a search past --max-tokens and --max-cost) become 0, counts above 2^40 (which would
    /// overflow the sums) become 2^40, cached input is at most the input and reasoning at most the
    /// output, and a cost that is negative or not finite becomes 0.
    token_usage plausible() const
    {
        static constexpr std::int64_t most = std::int64_t{1} << 40;
        auto count = [](std::int64_t x) { return std::clamp<std::int64_t>(x, 0, most); };
        token_usage u;
        u.input = count(input);
        u.cached_input = std::min(count(cached_input), u.input);
        u.output = count(output);
        u.reasoning = std::min(count(reasoning), u.output);
        u.web_search_calls = count(web_search_calls);
        u.cost_usd = std::isfinite(cost_usd) && cost_usd > 0 ? cost_usd : 0.0;
        return u;
    }
};

/// One finished candidate as strategies see it.
struct evaluated_candidate
{
    std::string id;  ///< "c0007"
    int branch = 0;
    int iteration = 0;
    std::optional<std::string> parent;
    candidate cand;
    std::string rationale;
    boost::json::object meta;
    compile_output compile;  ///< Log and resources (cubin dropped).
    bool valid = false;
    std::string failure_kind;                      ///< Stable kind ("mismatch", "fault", ...) when !valid.
    std::string failure_message;                   ///< The text fed back to models.
    std::map<std::string, double> case_median_us;  ///< Performance cases, when valid.
    double score_us = 0;                           ///< Geometric mean of the medians, when valid.
    double speedup_vs_reference = 0;               ///< Geometric-mean speedup, when valid.
    double speedup_vs_initial = 0;                 ///< 0 when the workload has no initial kernel.
    protocol::evaluation_result result;            ///< The full evaluation result (docs/worker-protocol.md).
};

/// An Nsight Compute profile of one candidate on one case (optimize --use-nsight, docs/nsight.md),
/// as a model reads it.
struct candidate_profile
{
    std::string candidate_id;  ///< "c0007"
    std::string case_name;
    bool ok = false;
    std::string text;  ///< The summary for the model when ok; otherwise why there is none (one line).
};

/// Read-only state of the search, owned by the engine; valid during the call it is passed to.
struct search_view
{
    const workload* work = nullptr;
    boost::json::object device;                                 ///< `warpsmith device-info --json`.
    const std::vector<evaluated_candidate>* history = nullptr;  ///< In evaluation order.
    const evaluated_candidate* best = nullptr;                  ///< Fastest valid so far, or null.
    std::map<std::string, double> reference_median_us;          ///< Per performance case.
    std::map<std::string, double> initial_median_us;            ///< Empty without an initial kernel.
    int iteration = 0;
    int branches = 1;
    /// Barrier mode (--branches): an iteration's proposals start together once every branch has
    /// recorded the previous one, so a round of iteration k is built from the candidates of
    /// iterations < k only (a defined set, whatever the timing). false with --async: a round sees
    /// whatever has been evaluated when it starts.
    bool barrier = true;
    /// With --use-nsight: the profile of `best` on the largest performance case, else the newest
    /// profile of an earlier best (candidate_id says whose); the round's feedback carries it.
    /// Null when none was taken.
    const candidate_profile* best_profile = nullptr;
};

/// Services a strategy may use while proposing (the model's tools are built on these).
class strategy_services
{
public:
    virtual ~strategy_services() = default;
    /// Compiles through the engine's compile pool (no timing). Completes on the io_context.
    virtual boost::asio::awaitable<compile_output> compile(compile_request request) = 0;
    /// Records token usage against the run's budgets; returns false once a budget is exhausted.
    virtual bool record_usage(int branch, const token_usage& usage) = 0;
    /// The run directory's llm/ folder, for request/response records.
    virtual std::string llm_record_dir() const = 0;
    /// Whether profile() can run (optimize --use-nsight); the model's profile tool exists only then.
    virtual bool can_profile() const { return false; }
    /// Profiles candidate `id` (of this run, valid) on `case_name` (empty: the largest performance
    /// case) under Nsight Compute, within the run's profile budget. A refusal or failure is a
    /// value (ok false, one line). Completes on the io_context.
    virtual boost::asio::awaitable<candidate_profile> profile(std::string id, std::string case_name)
    {
        candidate_profile p;
        p.candidate_id = std::move(id);
        p.case_name = std::move(case_name);
        p.text = "profiling is off for this run (optimize --use-nsight turns it on)";
        co_return p;
    }
};

/// One call of propose().
struct proposal_context
{
    int branch = 0;
    int iteration = 0;
    search_view view;
    /// Set when the engine asks the branch to repair its own invalid candidate (SPEC §4).
    const evaluated_candidate* repair_of = nullptr;
    strategy_services* services = nullptr;
};

class strategy
{
public:
    virtual ~strategy() = default;
    virtual std::string name() const = 0;

    /// Proposes one candidate, or nullopt when the strategy has nothing more to offer (a grid is
    /// exhausted, the scripted directory is empty). May throw on infrastructure failure (the engine
    /// records it against the branch). Supports terminal cancellation at its suspension points.
    virtual boost::asio::awaitable<std::optional<proposal>> propose(proposal_context ctx) = 0;

    /// Called once for every finished candidate, in the order they finished (which depends on
    /// timing: strategies that must be reproducible order what they keep by candidate, see
    /// llm_strategy::history()).
    virtual void observe(const evaluated_candidate&) {}

    /// Called on --resume with the candidates already recorded, before any propose().
    virtual void restore(const std::vector<evaluated_candidate>& history)
    {
        for (const auto& c : history)
            observe(c);
    }
};

}  // namespace warpsmith
