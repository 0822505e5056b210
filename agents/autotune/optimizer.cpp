#include "agents/autotune/optimizer.hpp"

#include "agents/autotune/genetic_search.hpp"
#include "agents/autotune/grid_search.hpp"
#include "agents/autotune/local_search.hpp"
#include "agents/autotune/random_search.hpp"
#include "agents/autotune/simulated_annealing.hpp"
#include "harness/core/error.hpp"

#include <algorithm>
#include <cmath>

namespace warpsmith::autotune
{

optimizer::optimizer(const search_space& space, const optimizer_options& opts)
    : space_(space), opts_(opts), rng_(opts.seed)
{
}

std::optional<suggestion> optimizer::ask()
{
    if (exhausted_)
        return std::nullopt;
    auto s = next();
    if (s && !fresh(s->p))
    {
        // A strategy's move led somewhere already seen or infeasible; fall back to a random fresh
        // point so the guarantee "never the same point twice" holds whatever the strategy does.
        s.reset();
        if (auto p = random_fresh())
            s = suggestion{std::move(*p), std::nullopt, "random"};
    }
    if (!s)
    {
        // next() may have given up only because its own moves ran out; a random fresh point is
        // still a valid suggestion while any is left.
        if (auto p = random_fresh())
            s = suggestion{std::move(*p), std::nullopt, "random"};
    }
    if (!s)
    {
        exhausted_ = true;
        return std::nullopt;
    }
    seen_.insert(s->p);
    ++asked_;
    return s;
}

std::vector<suggestion> optimizer::ask_batch(std::size_t n)
{
    std::vector<suggestion> out;
    for (std::size_t i = 0; i < n; ++i)
    {
        auto s = ask();
        if (!s)
            break;
        out.push_back(std::move(*s));
    }
    return out;
}

void optimizer::tell(const point& p, double score)
{
    if (std::isnan(score) || score <= 0)
        score = infeasible_score;
    seen_.insert(p);
    scores_[p] = score;
    ++told_;
    if (std::isfinite(score) && (!best_ || score < best_->second))
        best_ = std::make_pair(p, score);
    on_tell(p, score);
}

std::optional<std::pair<point, double>> optimizer::best() const
{
    return best_;
}

double optimizer::score_of(const point& p) const
{
    auto it = scores_.find(p);
    // clang-tidy 14 takes the infinite constant for a narrowing double -> double conversion.
    return it == scores_.end() ? infeasible_score : it->second;  // NOLINT(bugprone-narrowing-conversions)
}

double optimizer::progress() const
{
    double n = static_cast<double>(opts_.expected_evaluations);
    if (n <= 0)
        n = std::min(200.0, space_.total());
    const double by_count = static_cast<double>(told_) / std::max(1.0, n);
    return std::clamp(std::max(by_count, progress_), 0.0, 1.0);
}

std::optional<point> optimizer::random_fresh()
{
    const auto& dims = space_.dimensions();
    point p(dims.size());
    // Rejection sampling is uniform over the fresh points and cheap while they are plentiful.
    auto draw = [&]
    {
        for (std::size_t i = 0; i < dims.size(); ++i)
            p[i] = static_cast<int>(rng_.below(dims[i].values.size()));
    };
    for (int attempt = 0; attempt < 64; ++attempt)
    {
        draw();
        if (fresh(p))
            return p;
    }
    if (space_.enumerable())
    {
        // Few fresh points are left: list them and pick one uniformly.
        std::vector<point> left;
        point q = space_.first();
        do
            if (fresh(q))
                left.push_back(q);
        while (space_.next(q));
        if (left.empty())
            return std::nullopt;
        return left[static_cast<std::size_t>(rng_.below(left.size()))];
    }
    for (int attempt = 0; attempt < 100'000; ++attempt)
    {
        draw();
        if (fresh(p))
            return p;
    }
    return std::nullopt;
}

void optimizer::fresh_neighbours(const point& p,
                                 std::vector<point>& adjacent,
                                 std::vector<point>& other) const
{
    adjacent.clear();
    other.clear();
    const auto& dims = space_.dimensions();
    point q = p;
    for (std::size_t i = 0; i < dims.size(); ++i)
    {
        const int n = static_cast<int>(dims[i].values.size());
        for (int v = 0; v < n; ++v)
        {
            if (v == p[i])
                continue;
            q[i] = v;
            if (fresh(q))
                (std::abs(v - p[i]) == 1 ? adjacent : other).push_back(q);
        }
        q[i] = p[i];
    }
}

point optimizer::mutate_one(const point& p)
{
    const auto& dims = space_.dimensions();
    // Only dimensions with a choice can move.
    std::vector<std::size_t> movable;
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i].values.size() > 1)
            movable.push_back(i);
    point q = p;
    if (movable.empty())
        return q;
    const auto i = movable[static_cast<std::size_t>(rng_.below(movable.size()))];
    const int n = static_cast<int>(dims[i].values.size());
    if (rng_.chance(0.7))
    {
        if (q[i] == 0)
            q[i] = 1;
        else if (q[i] == n - 1)
            q[i] = n - 2;
        else
            q[i] += rng_.chance(0.5) ? 1 : -1;
    }
    else
    {
        int v = static_cast<int>(rng_.below(static_cast<std::uint64_t>(n - 1)));
        q[i] = v >= p[i] ? v + 1 : v;
    }
    return q;
}

const std::vector<std::string>& optimizer_names()
{
    static const std::vector<std::string> names{"grid", "random", "local", "anneal", "genetic"};
    return names;
}

std::unique_ptr<optimizer> make_optimizer(const std::string& name,
                                          const search_space& space,
                                          const optimizer_options& opts)
{
    if (name == "grid")
        return std::make_unique<grid_search>(space, opts);
    if (name == "random")
        return std::make_unique<random_search>(space, opts);
    if (name == "local")
        return std::make_unique<local_search>(space, opts);
    if (name == "anneal")
        return std::make_unique<simulated_annealing>(space, opts);
    if (name == "genetic")
        return std::make_unique<genetic_search>(space, opts);
    throw user_error("--strategy: unknown autotune strategy '" + name +
                     "' (expected grid, random, local, anneal or genetic)");
}

}  // namespace warpsmith::autotune
