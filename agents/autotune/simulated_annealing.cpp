#include "agents/autotune/simulated_annealing.hpp"

#include <algorithm>
#include <cmath>

namespace warpsmith::autotune
{

double simulated_annealing::temperature() const
{
    const double t0 = std::max(opts_.initial_temperature, 1e-9);
    const double t1 = std::max(std::min(opts_.final_temperature, t0), 1e-9);
    return t0 * std::pow(t1 / t0, progress());
}

std::optional<point> simulated_annealing::pick_neighbour(const point& from)
{
    std::vector<point> adjacent, other;
    fresh_neighbours(from, adjacent, other);
    if (adjacent.empty() && other.empty())
        return std::nullopt;
    auto& pool = !adjacent.empty() && (other.empty() || rng_.chance(0.8)) ? adjacent : other;
    return pool[static_cast<std::size_t>(rng_.below(pool.size()))];
}

std::optional<suggestion> simulated_annealing::next()
{
    if (current_ && !restarting_)
    {
        if (auto q = pick_neighbour(current_->first))
        {
            parent_of_[*q] = current_->first;
            return suggestion{std::move(*q), current_->first, "neighbour"};
        }
        // The current neighbourhood is spent: continue around the best point if it has room.
        if (auto b = best(); b && b->first != current_->first)
        {
            if (auto q = pick_neighbour(b->first))
            {
                current_ = *b;
                parent_of_[*q] = current_->first;
                return suggestion{std::move(*q), current_->first, "neighbour of best"};
            }
        }
        restarting_ = true;
    }
    auto p = random_fresh();
    if (!p)
        return std::nullopt;
    starts_.insert(*p);
    return suggestion{std::move(*p), std::nullopt, "start"};
}

void simulated_annealing::on_tell(const point& p, double score)
{
    std::optional<point> parent;
    if (auto it = parent_of_.find(p); it != parent_of_.end())
    {
        parent = it->second;
        parent_of_.erase(it);
    }
    const bool start = starts_.erase(p) != 0;
    if (!std::isfinite(score))
        return;
    if (!current_ || (start && restarting_))
    {
        current_ = std::make_pair(p, score);
        restarting_ = false;
        return;
    }
    if (score < current_->second)
    {
        current_ = std::make_pair(p, score);
        return;
    }
    // Uphill moves only from the current point (a batch may tell moves made from an older one).
    if (!parent || *parent != current_->first)
        return;
    const double delta = (score - current_->second) / current_->second;
    if (rng_.chance(std::exp(-delta / temperature())))
        current_ = std::make_pair(p, score);
}

}  // namespace warpsmith::autotune
