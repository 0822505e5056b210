#include "agents/autotune/tune_curve.hpp"

#include <boost/json/array.hpp>

#include <cmath>
#include <limits>

namespace warpsmith::autotune
{

namespace json = boost::json;

namespace
{

json::value finite_or_null(double x)
{
    return std::isfinite(x) ? json::value(x) : json::value(nullptr);
}

}  // namespace

void tune_curve::add(std::string id, double score_us)
{
    if (!(score_us > 0) || !std::isfinite(score_us))
        score_us = std::numeric_limits<double>::infinity();
    const double prev = steps_.empty() ? std::numeric_limits<double>::infinity() : steps_.back().best_us;
    steps_.push_back(step{steps_.size() + 1, std::move(id), score_us, std::min(prev, score_us)});
}

std::optional<double> tune_curve::best() const
{
    return best_after(steps_.size());
}

std::optional<double> tune_curve::best_after(std::size_t n) const
{
    if (n == 0 || steps_.empty())
        return std::nullopt;
    const double b = steps_[std::min(n, steps_.size()) - 1].best_us;
    return std::isfinite(b) ? std::optional<double>(b) : std::nullopt;
}

std::optional<std::size_t> tune_curve::time_to_best() const
{
    const auto b = best();
    if (!b)
        return std::nullopt;
    for (const auto& s : steps_)
        if (s.best_us == *b)
            return s.n;
    return std::nullopt;
}

json::object tune_curve::to_json() const
{
    json::array curve;
    for (const auto& s : steps_)
        curve.push_back(json::object{{"n", s.n},
                                     {"id", s.id},
                                     {"score_us", finite_or_null(s.score_us)},
                                     {"best_us", finite_or_null(s.best_us)}});
    const auto b = best();
    const auto t = time_to_best();
    return json::object{{"evaluations", steps_.size()},
                        {"best_us", b ? json::value(*b) : json::value(nullptr)},
                        {"time_to_best", t ? json::value(*t) : json::value(nullptr)},
                        {"curve", std::move(curve)}};
}

}  // namespace warpsmith::autotune
