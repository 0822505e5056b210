#pragma once

// The autotuner as an engine strategy (agents/strategy.hpp; docs/autotune.md): each propose()
// asks the optimizer for its next point and turns it into a candidate, the workload's tunable
// kernel (its initial kernel when it has none) with the point as -D defines and the tunable
// kernel's launch plan (whose expressions see the defines); observe() tells the optimizer the
// score. With B branches, B proposals are in flight at once, so the optimizer is asked for a batch.
//
// Before a point becomes a candidate it is compiled through the engine's compile pool (the engine
// compiles it again, which the compile cache answers when the request is the same), and a point
// whose registers or shared memory cannot launch on the device is pruned: told +inf and recorded
// here, never evaluated on a GPU. Restrictions and launch limits were checked before it was asked.
//
// Resume: restore() and observe() of candidates this session did not propose (an earlier session's)
// only record their scores; when the optimizer later asks for such a point, the recorded score is
// told at once and the next point is asked. With the same seed a resumed tune therefore replays the
// earlier decisions and re-evaluates nothing.
//
// The decisions are synchronous (search_space, optimizer, the helpers below); propose() is the
// coroutine shell that awaits the compile.

#include "agents/autotune/optimizer.hpp"
#include "agents/autotune/search_space.hpp"
#include "agents/autotune/tune_curve.hpp"
#include "agents/strategy.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpsmith
{

struct autotune_options
{
    std::string strategy = "random";           ///< grid, random, local, anneal, genetic.
    autotune::optimizer_options optimizer;     ///< seed, expected evaluations (--budget), knobs.
    std::optional<double> max_wall_seconds;    ///< --max-wall-time: shapes the anneal schedule.
    bool prune_after_compile = true;           ///< Compile first; prune on registers / shared memory.
    std::vector<std::string> compile_options;  ///< Allow-listed NVRTC options for every point.
    /// Seconds since some fixed start; the steady clock by default (tests inject their own).
    std::function<double()> now_seconds;

    /// run.json "config.tune": strategy, seed, expected_evaluations, population,
    /// prune_after_compile, compile_options (the wall time comes from the budgets on resume).
    boost::json::object to_json() const;
    /// Reads what to_json() wrote ("strategy", "seed" and "expected_evaluations" required); throws
    /// json_error naming the field ("run-001/run.json: config.tune.seed: must be a non-negative
    /// integer, got -1").
    static autotune_options from_json(const json_reader& r);
};

/// A point that never became a candidate.
struct pruned_point
{
    boost::json::object point;
    autotune::verdict why = autotune::verdict::over_resources;
    std::string reason;
    std::optional<resource_usage> resources;  ///< When it compiled.
};

class autotune_strategy final : public strategy
{
public:
    using event_sink = std::function<void(const boost::json::object&)>;

    /// w must outlive the strategy. Throws user_error for an unknown strategy name, a workload
    /// without tunables, or one without a tunable or initial kernel. events (optional) receives
    /// {"event": "tune_space", ...} once the device is known and {"event": "tune_pruned", ...} per
    /// pruned point.
    autotune_strategy(const workload& w, autotune_options opts, event_sink events = {});
    ~autotune_strategy() override;

    std::string name() const override { return "autotune-" + opts_.strategy; }
    boost::asio::awaitable<std::optional<proposal>> propose(proposal_context ctx) override;
    void observe(const evaluated_candidate& c) override;

    // ---- The synchronous core (also what the tests and the offline replay drive). ----

    /// Builds the space and the optimizer for a device (`device_info`); propose() calls it on its
    /// first call. Idempotent.
    void prepare(const boost::json::object& device);
    bool prepared() const { return space_ != nullptr; }

    /// The next point to propose: recorded scores of earlier sessions are told on the way; nullopt
    /// when the space is exhausted.
    std::optional<autotune::suggestion> next_point();
    /// The compile request for a point (what the engine will compile).
    compile_request compile_request_for(const autotune::point& p) const;
    /// Whether a compile lets the point go to a GPU (registers, shared memory, block limits), without
    /// recording anything (the offline replay asks it for points its cache does not hold).
    autotune::feasibility judge_compiled(const autotune::point& p, const compile_output& out) const;
    /// Judges a compile: true when the point may go to a GPU; otherwise it is pruned (told +inf).
    bool accept_compiled(const autotune::point& p, const compile_output& out);
    /// Gives a point back after a failed or cancelled compile; it is the next one proposed.
    void give_back(autotune::suggestion s);
    /// The candidate for a point and the proposal around it (marks the point in flight).
    candidate candidate_for(const autotune::point& p) const;
    proposal make_proposal(const autotune::suggestion& s);

    const autotune::search_space& space() const { return *space_; }
    autotune::optimizer& optimizer() { return *opt_; }
    const autotune::space_stats& stats() const { return stats_; }
    const autotune::tune_curve& curve() const { return curve_; }
    const std::vector<pruned_point>& pruned() const { return pruned_; }

    /// The tune's own record for the run directory (tune.json): strategy, seed, space sizes before
    /// and after pruning, device limits, pruned points by reason, the best point.
    boost::json::object report() const;

private:
    using defines_map = std::map<std::string, std::int64_t>;
    static std::optional<defines_map> point_of(const evaluated_candidate& c);
    /// Tells opt_ p's score once every point asked before p has been told.
    void tell_in_order(const autotune::point& p, double score);
    void emit(const boost::json::object& ev) const;
    double elapsed() const;

    const workload& work_;
    const kernel_source* kernel_;
    autotune_options opts_;
    event_sink events_;
    boost::json::object device_;
    std::unique_ptr<autotune::search_space> space_;
    std::unique_ptr<autotune::optimizer> opt_;
    autotune::space_stats stats_;
    std::vector<autotune::suggestion> retry_;  ///< Given back; proposed before asking again.
    std::map<defines_map, double> known_;      ///< Scores of points this session did not propose.
    std::set<defines_map> in_flight_;          ///< Proposed, not yet observed.
    /// Scores reach the optimizer in the order its points were asked (tell_in_order), whatever
    /// order compiles and evaluations finish in: a barrier-mode tune is then the same search for
    /// a seed on any machine and load, and an offline replay of its cache follows it exactly.
    std::map<defines_map, std::size_t> ask_seq_;  ///< 1-based ask order of each point asked.
    std::map<std::size_t, std::pair<autotune::point, double>> held_;  ///< Scores waiting for earlier ones.
    std::size_t asks_ = 0;
    std::size_t next_tell_ = 1;
    std::map<defines_map, std::string> id_of_;  ///< Candidate id of every observed point.
    std::vector<pruned_point> pruned_;
    autotune::tune_curve curve_;
    std::optional<std::pair<defines_map, double>> best_;
    std::string best_id_;
    double start_ = -1;
};

}  // namespace warpsmith
