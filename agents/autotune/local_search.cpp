#include "agents/autotune/local_search.hpp"

#include <algorithm>

namespace warpsmith::autotune
{

std::optional<suggestion> local_search::next()
{
    if (current_)
    {
        while (!queue_.empty())
        {
            point q = std::move(queue_.back());
            queue_.pop_back();
            if (!fresh(q))
                continue;
            ++outstanding_;
            parent_of_[q] = current_->first;
            return suggestion{std::move(q), current_->first, "neighbour"};
        }
        if (outstanding_ == 0)
        {
            // Every neighbour was tried and none was better: a local optimum. Climb again from a
            // fresh start.
            current_.reset();
            ++restarts_;
        }
        // Otherwise neighbours are still being evaluated (a batch); a start keeps the other
        // branches busy meanwhile.
    }
    auto p = random_fresh();
    if (!p)
        return std::nullopt;
    starts_.insert(*p);
    return suggestion{std::move(*p), std::nullopt, "start"};
}

void local_search::on_tell(const point& p, double score)
{
    if (auto it = parent_of_.find(p); it != parent_of_.end())
    {
        const bool of_current = current_ && it->second == current_->first;
        parent_of_.erase(it);
        if (of_current)
        {
            --outstanding_;
            if (score < current_->second)
                move_to(p, score);
        }
        return;
    }
    if (starts_.erase(p) && !current_ && score < infeasible_score)
        move_to(p, score);
}

void local_search::move_to(const point& p, double score)
{
    current_ = std::make_pair(p, score);
    outstanding_ = 0;
    std::vector<point> adjacent, other;
    fresh_neighbours(p, adjacent, other);
    shuffle(adjacent);
    shuffle(other);
    // The queue pops from the back: other values last, adjacent ones first.
    queue_.assign(other.rbegin(), other.rend());
    queue_.insert(queue_.end(), adjacent.rbegin(), adjacent.rend());
}

}  // namespace warpsmith::autotune
