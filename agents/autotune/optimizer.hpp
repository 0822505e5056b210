#pragma once

// The model-free optimizers of `warpsmith tune` (SPEC §6; docs/autotune.md, "Strategies"): plain
// synchronous ask/tell classes over the points of a search_space, minimizing a score (µs).
//
//  * ask() suggests a point that was never suggested nor told before and that passes the space's
//    static checks (restrictions, launch limits); nullopt when no such point is left. Several
//    asks may precede the tells (one per branch: a batch).
//  * tell() reports a point's score; +inf for a point that was pruned after compile, failed to
//    compile or failed validation. A point may be told without having been asked (it is then
//    simply known).
//  * Given a seed and the same sequence of tells, every optimizer makes the same suggestions.
//
// The engine's budget stops a tune; optimizers never stop on their own before the space is
// exhausted, because each one falls back to unseen random points when its own moves run out. The
// expected number of evaluations only shapes schedules (annealing temperature).

#include "agents/autotune/rng.hpp"
#include "agents/autotune/search_space.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpsmith::autotune
{

constexpr double infeasible_score = std::numeric_limits<double>::infinity();

struct suggestion
{
    point p;
    std::optional<point> parent;  ///< The point this one was derived from, when there is one.
    std::string how;              ///< "grid", "random", "start", "neighbour", "child", ...
};

struct optimizer_options
{
    std::uint64_t seed = 1;
    /// The evaluations the tune expects to make (--budget); 0: unknown (a default is used).
    std::size_t expected_evaluations = 0;
    // anneal
    double initial_temperature = 0.2;  ///< Relative: a score 20% worse is accepted with p = 1/e at the start.
    double final_temperature = 0.002;
    // genetic
    std::size_t population = 12;
    std::size_t elite = 2;
    std::size_t tournament = 3;
    double crossover_rate = 0.9;
};

class optimizer
{
public:
    virtual ~optimizer() = default;
    virtual std::string_view name() const = 0;

    /// The next point to evaluate, never one seen before; nullopt when every feasible point has been
    /// seen (or, in a space too large to enumerate, none could be found).
    std::optional<suggestion> ask();
    /// Up to n suggestions at once (a batch for n branches).
    std::vector<suggestion> ask_batch(std::size_t n);
    /// The score of a point (+inf: infeasible, failed or pruned).
    void tell(const point& p, double score);

    /// How much of the budget is spent, when the caller knows better than the evaluation count
    /// (a wall-time budget): schedules use the larger of this and told() / expected_evaluations.
    void set_progress(double fraction) { progress_ = fraction; }

    bool seen(const point& p) const { return seen_.count(p) != 0; }
    std::size_t asked() const { return asked_; }
    std::size_t told() const { return told_; }
    /// The best finite score told so far.
    std::optional<std::pair<point, double>> best() const;
    const search_space& space() const { return space_; }

protected:
    optimizer(const search_space& space, const optimizer_options& opts);

    /// The strategy's own suggestion; the base class refuses seen or infeasible ones (it then
    /// falls back to a random unseen point).
    virtual std::optional<suggestion> next() = 0;
    /// A score arrived (after the base class recorded it).
    virtual void on_tell(const point& p, double score) = 0;

    /// Feasible and never seen.
    bool fresh(const point& p) const { return !seen(p) && space_.feasible(p); }
    /// A uniformly random fresh point, or nullopt when none is left.
    std::optional<point> random_fresh();
    /// Fresh points one tunable away from p: those whose changed tunable moved to an adjacent
    /// value, and those where it moved further (Hamming neighbours).
    void fresh_neighbours(const point& p, std::vector<point>& adjacent, std::vector<point>& other) const;
    /// Moves one randomly chosen tunable of p: to an adjacent value with probability 0.7, else to
    /// any other value. The result may be infeasible or seen.
    point mutate_one(const point& p);
    template <class T>
    void shuffle(std::vector<T>& v)
    {
        for (std::size_t i = v.size(); i > 1; --i)
            std::swap(v[i - 1], v[static_cast<std::size_t>(rng_.below(i))]);
    }
    /// The told score of p (+inf when unknown).
    double score_of(const point& p) const;
    /// The spent fraction of the budget in [0, 1] (see set_progress); without any budget, of
    /// min(200, the size of the space) evaluations.
    double progress() const;

    const search_space& space_;
    optimizer_options opts_;
    rng rng_;

private:
    std::set<point> seen_;
    std::map<point, double> scores_;
    std::optional<std::pair<point, double>> best_;
    std::size_t asked_ = 0;
    std::size_t told_ = 0;
    bool exhausted_ = false;
    double progress_ = 0;
};

/// grid, random, local, anneal, genetic.
const std::vector<std::string>& optimizer_names();

/// Makes the named optimizer over space (which must outlive it); user_error for an unknown name.
std::unique_ptr<optimizer> make_optimizer(const std::string& name,
                                          const search_space& space,
                                          const optimizer_options& opts);

}  // namespace warpsmith::autotune
