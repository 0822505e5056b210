#include "agents/autotune/genetic_search.hpp"

#include <algorithm>

namespace warpsmith::autotune
{

namespace
{

bool by_score(const std::pair<point, double>& a, const std::pair<point, double>& b)
{
    if (a.second != b.second)
        return a.second < b.second;
    return a.first < b.first;  // Deterministic among equals.
}

}  // namespace

genetic_search::genetic_search(const search_space& space, const optimizer_options& opts)
    : optimizer(space, opts),
      size_(std::max<std::size_t>(opts.population, 2)),
      elite_(std::min(opts.elite, std::max<std::size_t>(opts.population, 2) - 1))
{
}

const std::pair<point, double>& genetic_search::tournament()
{
    const std::size_t k = std::max<std::size_t>(opts_.tournament, 1);
    const std::pair<point, double>* winner = nullptr;
    for (std::size_t i = 0; i < k; ++i)
    {
        const auto& c = population_[static_cast<std::size_t>(rng_.below(population_.size()))];
        if (!winner || by_score(c, *winner))
            winner = &c;
    }
    return *winner;
}

std::optional<suggestion> genetic_search::next()
{
    // Founders: random points until the first population is complete (or while too few have
    // been told to breed from, in a wide batch).
    if (founders_asked_ < size_ || population_.size() < 2)
    {
        auto p = random_fresh();
        if (!p)
            return std::nullopt;
        ++founders_asked_;
        return suggestion{std::move(*p), std::nullopt, "founder"};
    }
    const auto& a = tournament();
    const auto& b = tournament();
    const auto& dims = space_.dimensions();
    point child = a.first;
    if (rng_.chance(opts_.crossover_rate))
        for (std::size_t i = 0; i < dims.size(); ++i)
            if (rng_.chance(0.5))
                child[i] = b.first[i];
    const double rate = 1.0 / static_cast<double>(dims.size());
    bool mutated = false;
    point m = child;
    for (std::size_t i = 0; i < dims.size(); ++i)
    {
        if (dims[i].values.size() > 1 && rng_.chance(rate))
        {
            const int n = static_cast<int>(dims[i].values.size());
            if (rng_.chance(0.7))
                m[i] = child[i] == 0 ? 1 : child[i] == n - 1 ? n - 2 : child[i] + (rng_.chance(0.5) ? 1 : -1);
            else
            {
                int v = static_cast<int>(rng_.below(static_cast<std::uint64_t>(n - 1)));
                m[i] = v >= child[i] ? v + 1 : v;
            }
            mutated = true;
        }
    }
    child = mutated ? m : mutate_one(child);
    // Repair: a child outside the feasible region or already seen is nudged until it is new.
    for (int attempt = 0; attempt < 32 && !fresh(child); ++attempt)
        child = mutate_one(child);
    if (!fresh(child))
    {
        auto p = random_fresh();
        if (!p)
            return std::nullopt;
        return suggestion{std::move(*p), std::nullopt, "random (repair failed)"};
    }
    return suggestion{std::move(child), a.first, "child"};
}

void genetic_search::on_tell(const point& p, double score)
{
    if (population_.size() < size_ && generation_ == 0)
    {
        population_.emplace_back(p, score);
        return;
    }
    children_.emplace_back(p, score);
    if (children_.size() >= size_ - elite_)
        next_generation();
}

void genetic_search::next_generation()
{
    std::sort(population_.begin(), population_.end(), by_score);
    std::sort(children_.begin(), children_.end(), by_score);
    const auto keep = static_cast<std::ptrdiff_t>(std::min(elite_, population_.size()));
    std::vector<std::pair<point, double>> next(population_.begin(), population_.begin() + keep);
    for (auto& c : children_)
    {
        if (next.size() >= size_)
            break;
        next.push_back(std::move(c));
    }
    population_ = std::move(next);
    children_.clear();
    ++generation_;
}

}  // namespace warpsmith::autotune
