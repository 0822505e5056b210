#include "engine/search/budget.hpp"

namespace warpsmith
{

namespace json = boost::json;

namespace
{

template <class T>
json::value opt(const std::optional<T>& v)
{
    return v ? json::value(*v) : json::value(nullptr);
}

}  // namespace

json::object budget_limits::to_json() const
{
    return json::object{{"max_iterations", opt(iterations)},
                        {"max_candidates", opt(candidates)},
                        {"max_wall_seconds", opt(wall_seconds)},
                        {"max_tokens", opt(tokens)},
                        {"max_cost_usd", opt(cost_usd)}};
}

bool budget_tracker::usage_exhausted() const
{
    return (limits_.tokens && counted_tokens(usage_) >= *limits_.tokens) ||
           (limits_.cost_usd && usage_.cost_usd >= *limits_.cost_usd);
}

std::optional<std::string> budget_tracker::add_usage(const token_usage& u)
{
    usage_ += u;
    if (reported_)
        return std::nullopt;
    if (limits_.tokens && counted_tokens(usage_) >= *limits_.tokens)
    {
        reported_ = true;
        return "max_tokens";
    }
    if (limits_.cost_usd && usage_.cost_usd >= *limits_.cost_usd)
    {
        reported_ = true;
        return "max_cost";
    }
    return std::nullopt;
}

json::object to_json(const token_usage& u)
{
    return json::object{{"input", u.input},
                        {"cached_input", u.cached_input},
                        {"output", u.output},
                        {"reasoning", u.reasoning},
                        {"cost_usd", u.cost_usd}};
}

json::object budget_tracker::to_json(int iterations, int candidates, double wall_seconds) const
{
    return json::object{{"limits", limits_.to_json()},
                        {"used",
                         json::object{{"iterations", iterations},
                                      {"candidates", candidates},
                                      {"wall_seconds", wall_seconds},
                                      {"tokens", counted_tokens(usage_)},
                                      {"cost_usd", usage_.cost_usd}}}};
}

}  // namespace warpsmith
