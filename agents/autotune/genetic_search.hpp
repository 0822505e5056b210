#pragma once

// genetic: a generational genetic algorithm with elitism. The first `population` suggestions are
// random; once told they form the population. Each child takes two parents chosen by tournament
// (the best of `tournament` random members), mixes them by uniform crossover (each tunable from
// either parent; with probability 1 - crossover_rate the first parent is copied), and mutates:
// each tunable moves with probability 1/dimensions (at least one always does), to an adjacent
// value mostly. A child that violates a restriction or a device limit, or was seen before, is
// repaired by further single-tunable mutations, and replaced by a fresh random point if that
// fails. When population - elite children have been told, the next generation is the `elite` best
// members of the old one plus the best of those children.

#include "agents/autotune/optimizer.hpp"

namespace warpsmith::autotune
{

class genetic_search final : public optimizer
{
public:
    genetic_search(const search_space& space, const optimizer_options& opts);
    std::string_view name() const override { return "genetic"; }

    std::size_t generation() const { return generation_; }
    const std::vector<std::pair<point, double>>& population() const { return population_; }

private:
    std::optional<suggestion> next() override;
    void on_tell(const point& p, double score) override;
    const std::pair<point, double>& tournament();
    void next_generation();

    std::size_t size_;
    std::size_t elite_;
    std::vector<std::pair<point, double>> population_;
    std::vector<std::pair<point, double>> children_;  ///< Told, waiting for the next generation.
    std::size_t founders_asked_ = 0;
    std::size_t generation_ = 0;
};

}  // namespace warpsmith::autotune
