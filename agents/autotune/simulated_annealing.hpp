#pragma once

// anneal: simulated annealing over Hamming neighbours. Each step proposes a fresh neighbour of the
// current point (an adjacent value of one tunable with probability 0.8 when there is one, else any
// other value). A better score is always accepted; a worse one with probability
// exp(-((s - current) / current) / T): the temperature is relative to the current score, so the
// schedule does not depend on the workload's time scale. T falls geometrically from
// initial_temperature to final_temperature over the expected evaluations (the budget), so the
// walk explores early and settles before the budget runs out. When the current point's
// neighbourhood is spent, the walk continues from the best point's, else restarts at a fresh
// random point.

#include "agents/autotune/optimizer.hpp"

namespace warpsmith::autotune
{

class simulated_annealing final : public optimizer
{
public:
    simulated_annealing(const search_space& space, const optimizer_options& opts) : optimizer(space, opts) {}
    std::string_view name() const override { return "anneal"; }

    /// The temperature at the current progress() through the budget.
    double temperature() const;
    const std::optional<std::pair<point, double>>& current() const { return current_; }

private:
    std::optional<suggestion> next() override;
    void on_tell(const point& p, double score) override;
    std::optional<point> pick_neighbour(const point& from);

    std::optional<std::pair<point, double>> current_;
    std::map<point, point> parent_of_;
    std::set<point> starts_;
    bool restarting_ = true;  ///< The next finite start becomes the current point.
};

}  // namespace warpsmith::autotune
