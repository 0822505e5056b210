#pragma once

// Running an optimizer without a GPU against scores known in advance (docs/autotune.md, "Offline
// replay"): the evaluation cache of an earlier tune, or a synthetic landscape in the tests. Once a
// grid tune has filled the cache, every strategy can be compared over many seeds at no GPU cost;
// where the cache is sparse, the replay says how many of its evaluations had no measurement.

#include "agents/autotune/optimizer.hpp"
#include "agents/autotune/tune_curve.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace warpsmith::autotune
{

struct offline_result
{
    tune_curve curve;           ///< Every counted point, in order; one without a score is +inf there.
    std::size_t asked = 0;      ///< Points the budget counts: measured and unknown ones.
    std::size_t evaluated = 0;  ///< Of those, points with a known score.
    std::size_t unknown = 0;    ///< Of those, points without one: told +inf, like invalid points.
    std::size_t pruned = 0;     ///< Points pruned after compile (told +inf, not counted, as online).
    /// The 1-based evaluation at which the first unknown point was asked: up to there the replay is
    /// the search a GPU would have run; from there on it follows a +inf nobody measured.
    std::optional<std::size_t> first_unknown_at;
    bool exhausted = false;  ///< The optimizer ran out of points before the budget.
    std::optional<std::pair<point, double>> best;
};

/// Asks up to `budget` points of opt in batches of `batch`, as B branches of a tune would: a point
/// that `pruned` (optional) rejects is told +inf and replaced at once without counting, as a branch
/// proposes again after a compile prunes its point; the batch's scores are told after the whole
/// batch was asked, in the order asked (as autotune_strategy tells them online). score(p) gives a
/// point's score (+inf when invalid) or nullopt when it is unknown (never measured): an unknown
/// point costs its evaluation like any other and is told +inf, so the replay never spends more
/// evaluations than a GPU run would, and says how many it could not score.
offline_result replay_offline(optimizer& opt,
                              const std::function<std::optional<double>(const point&)>& score,
                              std::size_t budget,
                              std::size_t batch = 1,
                              const std::function<bool(const point&)>& pruned = {});

}  // namespace warpsmith::autotune
