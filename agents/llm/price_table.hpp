#pragma once

// Token prices and cost accounting (SPEC §5 "Accounting"). Prices are USD per million tokens for
// uncached input, cached input and output (reasoning tokens are billed as output and are part of
// the output count). Built-in defaults cover OpenAI's common models; --price-table FILE overrides
// or adds entries:
//
//   {"models": {"gpt-5-mini": {"input": 0.25, "cached_input": 0.025, "output": 2.0},
//               "my-local-model": {"input": 0, "output": 0}}}
//
// Hosted web searches (--nvidia-research with --provider openai) are billed per call, whatever the
// model: "web_search_call_usd" at the top level of the document overrides the default of 0.01 USD
// ($10 per 1,000 calls), e.g. {"web_search_call_usd": 0.025, "models": {...}}.
//
// A model name matches an entry exactly, else by the longest entry that is a prefix followed by
// '-' (dated snapshots: "gpt-5-mini-2025-08-07" -> "gpt-5-mini"). Unknown models cost 0 and are
// reported as unpriced (local servers are free; a hosted model missing from the table is worth a
// warning, which the caller prints once).

#include "agents/strategy.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::llm
{

struct model_price
{
    double input_per_mtok = 0;
    double cached_input_per_mtok = 0;  ///< Defaults to input when an override omits it.
    double output_per_mtok = 0;
};

class price_table
{
public:
    /// The built-in defaults.
    static price_table defaults();
    /// Defaults overridden by a JSON file (format above). Throws user_error naming the file and
    /// field: unreadable file, not an object, a price that is not a non-negative number.
    static price_table with_overrides(const std::filesystem::path& file);
    /// Applies the "models" object of an override document; `origin` names it in errors.
    void apply(const boost::json::value& doc, std::string_view origin);

    /// The price entry for a model, if any.
    std::optional<model_price> find(std::string_view model) const;
    /// usage with cost_usd computed (0 for unknown models).
    token_usage priced(std::string_view model, token_usage usage) const;
    /// Cost of the counts in usage (ignores usage.cost_usd).
    double cost(std::string_view model, const token_usage& usage) const;

    double web_search_call_usd() const { return web_search_call_usd_; }

    boost::json::object to_json() const;

private:
    std::map<std::string, model_price, std::less<>> prices_;
    double web_search_call_usd_ = 0.01;
};

/// Usage per branch and in total for one run (branch -1 is workload inference).
class usage_ledger
{
public:
    void add(int branch, const token_usage& u);
    const token_usage& total() const { return total_; }
    token_usage branch(int b) const;
    int requests() const { return requests_; }
    /// {"total": {...}, "requests": n, "branches": {"0": {...}, "inference": {...}}}
    boost::json::object to_json() const;
    /// Reads what to_json() wrote (usage.json of an earlier session); unknown shapes give an
    /// empty ledger.
    static usage_ledger from_json(const boost::json::value& v);

private:
    std::map<int, token_usage> branches_;
    token_usage total_;
    int requests_ = 0;
};

}  // namespace warpsmith::llm
