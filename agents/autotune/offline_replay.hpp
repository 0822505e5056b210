#pragma once

// Running an optimizer without a GPU against scores known in advance (docs/autotune.md, "Offline
// replay"): the evaluation cache of an earlier tune, or a synthetic landscape in the tests. Once a
// grid tune has filled the cache, every strategy can be compared over many seeds at no GPU cost.

#include "agents/autotune/optimizer.hpp"
#include "agents/autotune/tune_curve.hpp"

#include <functional>
#include <optional>

namespace warpsmith::autotune
{

struct offline_result
{
    tune_curve curve;
    std::size_t evaluated = 0;  ///< Points with a known score (the budget counts these).
    std::size_t unknown = 0;    ///< Points without one: told +inf, like points pruned after compile.
    bool exhausted = false;     ///< The optimizer ran out of points before the budget.
    std::optional<std::pair<point, double>> best;
};

/// Asks up to `budget` known points of opt (in batches of `batch`, telling each batch after it is
/// asked, as B branches would) and tells their scores. score(p) gives a point's score (+inf when
/// invalid) or nullopt when it is unknown; at most max_unknown unknown points are skipped before
/// the replay stops.
offline_result replay_offline(optimizer& opt,
                              const std::function<std::optional<double>(const point&)>& score,
                              std::size_t budget,
                              std::size_t batch = 1,
                              std::size_t max_unknown = 100'000);

}  // namespace warpsmith::autotune
