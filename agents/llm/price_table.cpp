#include "agents/llm/price_table.hpp"

#include "agents/llm/model_types.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"

namespace warpsmith::llm
{

namespace json = boost::json;

price_table price_table::defaults()
{
    // USD per 1M tokens: input, cached input, output (OpenAI list prices).
    price_table t;
    t.prices_ = {
        {"gpt-5", {1.25, 0.125, 10.0}},
        {"gpt-5-mini", {0.25, 0.025, 2.0}},
        {"gpt-5-nano", {0.05, 0.005, 0.40}},
        {"gpt-5-codex", {1.25, 0.125, 10.0}},
        {"gpt-4.1", {2.0, 0.50, 8.0}},
        {"gpt-4.1-mini", {0.40, 0.10, 1.60}},
        {"gpt-4.1-nano", {0.10, 0.025, 0.40}},
        {"gpt-4o", {2.50, 1.25, 10.0}},
        {"gpt-4o-mini", {0.15, 0.075, 0.60}},
        {"o3", {2.0, 0.50, 8.0}},
        {"o3-mini", {1.10, 0.55, 4.40}},
        {"o4-mini", {1.10, 0.275, 4.40}},
    };
    return t;
}

void price_table::apply(const json::value& doc, std::string_view origin)
{
    const std::string o(origin);
    if (!doc.is_object())
        throw user_error(
            o + ": a price table must be a JSON object {\"models\": {NAME: {\"input\", \"output\", ...}}}");
    const json_reader r(doc, json_location(o));
    if (const json::value* w = r.find("web_search_call_usd"))
    {
        if (!w->is_number() || w->to_number<double>() < 0)
            throw user_error(o + ": web_search_call_usd: must be a non-negative number (USD per web search)");
        web_search_call_usd_ = w->to_number<double>();
    }
    const json::value* models = r.find("models");
    if (!models || !models->is_object())
        throw user_error(o + ": 'models' is missing or not an object (USD per 1M tokens per model)");
    for (const auto& kv : models->get_object())
    {
        const std::string name(kv.key());
        const std::string where = o + ": models." + name;
        if (!kv.value().is_object())
            throw user_error(where + ": must be an object {\"input\", \"cached_input\", \"output\"}");
        model_price p;
        bool has_cached = false;
        bool has_input = false, has_output = false;
        for (const auto& f : kv.value().get_object())
        {
            const auto key = std::string(f.key());
            if (!f.value().is_number() || f.value().to_number<double>() < 0)
                throw user_error(where + "." + key + ": must be a non-negative number (USD per 1M tokens)");
            const double x = f.value().to_number<double>();
            if (key == "input")
                p.input_per_mtok = x, has_input = true;
            else if (key == "cached_input")
                p.cached_input_per_mtok = x, has_cached = true;
            else if (key == "output")
                p.output_per_mtok = x, has_output = true;
            else
                throw user_error(where + ": unknown key '" + key + "' (input, cached_input, output)");
        }
        if (!has_input || !has_output)
            throw user_error(where + ": needs both 'input' and 'output' (USD per 1M tokens)");
        if (!has_cached)
            p.cached_input_per_mtok = p.input_per_mtok;
        prices_[name] = p;
    }
}

price_table price_table::with_overrides(const std::filesystem::path& file)
{
    auto t = defaults();
    t.apply(read_json_file(file), file.string());
    return t;
}

std::optional<model_price> price_table::find(std::string_view model) const
{
    if (auto it = prices_.find(model); it != prices_.end())
        return it->second;
    // Longest entry that is a prefix followed by '-' (dated snapshots).
    const model_price* best = nullptr;
    std::size_t best_len = 0;
    for (const auto& [name, p] : prices_)
        if (model.size() > name.size() && model.substr(0, name.size()) == name && model[name.size()] == '-' &&
            name.size() > best_len)
        {
            best = &p;
            best_len = name.size();
        }
    if (best)
        return *best;
    return std::nullopt;
}

double price_table::cost(std::string_view model, const token_usage& u) const
{
    const double searches = static_cast<double>(u.web_search_calls) * web_search_call_usd_;
    const auto p = find(model);
    if (!p)
        return searches;
    const auto cached = std::min(u.cached_input, u.input);
    return (static_cast<double>(u.input - cached) * p->input_per_mtok +
            static_cast<double>(cached) * p->cached_input_per_mtok +
            static_cast<double>(u.output) * p->output_per_mtok) /
               1e6 +
           searches;
}

token_usage price_table::priced(std::string_view model, token_usage usage) const
{
    usage.cost_usd = cost(model, usage);
    return usage;
}

json::object price_table::to_json() const
{
    json::object models;
    for (const auto& [name, p] : prices_)
        models[name] = json::object{{"input", p.input_per_mtok},
                                    {"cached_input", p.cached_input_per_mtok},
                                    {"output", p.output_per_mtok}};
    return json::object{{"models", std::move(models)}, {"web_search_call_usd", web_search_call_usd_}};
}

void usage_ledger::add(int branch, const token_usage& u)
{
    branches_[branch] += u;
    total_ += u;
    ++requests_;
}

token_usage usage_ledger::branch(int b) const
{
    if (auto it = branches_.find(b); it != branches_.end())
        return it->second;
    return {};
}

json::object usage_ledger::to_json() const
{
    json::object br;
    for (const auto& [b, u] : branches_)
        br[b < 0 ? std::string("inference") : std::to_string(b)] = usage_to_json(u);
    return json::object{
        {"total", usage_to_json(total_)}, {"requests", requests_}, {"branches", std::move(br)}};
}

usage_ledger usage_ledger::from_json(const json::value& v)
{
    usage_ledger l;
    if (!v.is_object())
        return l;
    const auto& o = v.get_object();
    if (const json::object* b = lenient::object_at(o, "branches"))
        for (const auto& kv : *b)
        {
            int branch = -1;
            if (kv.key() != "inference")
            {
                try
                {
                    branch = std::stoi(std::string(kv.key()));
                }
                catch (const std::exception&)
                {
                    continue;
                }
            }
            const auto u = usage_from_json(kv.value());
            l.branches_[branch] += u;
            l.total_ += u;
        }
    if (const json::value* r = lenient::value_at(o, "requests"); r && r->is_int64())
        l.requests_ = static_cast<int>(r->get_int64());
    return l;
}

}  // namespace warpsmith::llm
