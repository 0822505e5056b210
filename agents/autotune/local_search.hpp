#pragma once

// local: greedy multi-start local search over Hamming neighbours. From a random start, try the
// neighbours of the current point (one tunable changed: adjacent values first, in random order,
// then any other value) and move to the first one that scores better; when every neighbour has
// been tried and none is better, the current point is a local optimum: restart from a fresh
// random point. The best point over all climbs is the result.
//
// With several branches, neighbours of the current point are handed out in a batch; a point told
// after the climb has moved on (or a start told during a climb) is recorded but moves nothing.

#include "agents/autotune/optimizer.hpp"

namespace warpsmith::autotune
{

class local_search final : public optimizer
{
public:
    local_search(const search_space& space, const optimizer_options& opts) : optimizer(space, opts) {}
    std::string_view name() const override { return "local"; }

    /// The point the climb is at (for tests and rationales).
    const std::optional<std::pair<point, double>>& current() const { return current_; }
    std::size_t restarts() const { return restarts_; }

private:
    std::optional<suggestion> next() override;
    void on_tell(const point& p, double score) override;
    void move_to(const point& p, double score);

    std::optional<std::pair<point, double>> current_;
    std::vector<point> queue_;          ///< Neighbours still to try; the next one is at the back.
    std::map<point, point> parent_of_;  ///< Asked neighbour -> the point it neighbours.
    std::set<point> starts_;            ///< Asked random starts.
    int outstanding_ = 0;               ///< Neighbours of current_ asked and not yet told.
    std::size_t restarts_ = 0;
};

}  // namespace warpsmith::autotune
