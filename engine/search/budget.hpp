#pragma once

// Run budgets (SPEC §4 "Budgets"): iterations, candidates, wall time, tokens and money, each
// optional; the run stops at the first one reached. Iterations and candidates are enforced by the
// scheduler (search_scheduler.hpp), wall time by a timer in the search loop; this class accounts
// for tokens and money, which strategies report through strategy_services::record_usage.
//
// Tokens counted against --max-tokens are input + output tokens (reasoning tokens are part of the
// output tokens in the providers' accounting; cached input tokens are part of the input).

#include "agents/strategy.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace warpsmith
{

struct budget_limits
{
    std::optional<int> iterations;
    std::optional<int> candidates;
    std::optional<double> wall_seconds;
    std::optional<std::int64_t> tokens;
    std::optional<double> cost_usd;

    boost::json::object to_json() const;
};

class budget_tracker
{
public:
    explicit budget_tracker(budget_limits limits) : limits_(limits) {}

    /// Adds usage. Returns "max_tokens" or "max_cost" when the total reaches that limit (each
    /// reason is returned once, the first time it is reached).
    std::optional<std::string> add_usage(const token_usage& u);
    /// Whether a token or money limit has been reached.
    bool usage_exhausted() const;

    const token_usage& usage() const { return usage_; }
    const budget_limits& limits() const { return limits_; }
    static std::int64_t counted_tokens(const token_usage& u) { return u.input + u.output; }

    /// {"limits": {...}, "used": {"iterations", "candidates", "wall_seconds", "tokens", "cost_usd"}}.
    boost::json::object to_json(int iterations, int candidates, double wall_seconds) const;

private:
    budget_limits limits_;
    token_usage usage_;
    bool reported_ = false;
};

boost::json::object to_json(const token_usage& u);

}  // namespace warpsmith
