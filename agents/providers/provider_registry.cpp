#include "agents/providers/provider_registry.hpp"

#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"

namespace warpsmith
{

namespace json = boost::json;

namespace
{

using factory = provider_strategy (*)(const provider_options&, const workload&, boost::asio::any_io_executor);

struct row
{
    const char* name;
    const char* summary;
    std::vector<std::string> strategies;
    const char* default_strategy;
    factory make;
};

provider_strategy make_scripted(const provider_options& o, const workload& w, boost::asio::any_io_executor)
{
    if (!o.candidates_dir)
        throw user_error("--provider scripted needs --candidates DIR");
    scripted_options so;
    so.dir = *o.candidates_dir;
    so.latency = o.scripted_latency;
    so.sleep = o.sleep;
    return provider_strategy{std::make_unique<scripted_strategy>(w, std::move(so)), nullptr};
}

provider_strategy make_model(const provider_options& o, const workload& w, boost::asio::any_io_executor ex)
{
    const auto lo = o.model_options();
    auto s = make_llm_strategy(lo, make_model_client(lo, std::move(ex)), w);
    const llm_strategy* llm = s.get();
    auto fatal = [llm]() -> std::optional<std::string> { return llm->fatal_error(); };
    return provider_strategy{std::move(s), fatal};
}

provider_strategy make_autotune(const provider_options& o, const workload& w, boost::asio::any_io_executor)
{
    return provider_strategy{std::make_unique<autotune_strategy>(w, o.tune_options()), nullptr};
}

const std::vector<row>& table()
{
    static const std::vector<row> rows{
        {"scripted", "candidates from a directory of .cu files (--candidates DIR)", {}, "", &make_scripted},
        {"openai", "OpenAI Responses API", {"refine", "beam", "evolve"}, "refine", &make_model},
        {"openai-chat",
         "OpenAI-compatible Chat Completions (--base-url, --model)",
         {"refine", "beam", "evolve"},
         "refine",
         &make_model},
        {"replay",
         "re-serves the llm/ records of an earlier run (--replay-from)",
         {"refine", "beam", "evolve"},
         "refine",
         &make_model},
        {"autotune",
         "model-free parameter search over the workload's tunables",
         {"grid", "random", "local", "anneal", "genetic"},
         "anneal",
         &make_autotune},
    };
    return rows;
}

const row* find_row(std::string_view name)
{
    for (const auto& r : table())
        if (name == r.name)
            return &r;
    return nullptr;
}

std::string joined(const std::vector<std::string>& words)
{
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : ", ") + w;
    return out;
}

/// The strategy the provider uses: --strategy when given, else the provider's default.
std::string strategy_of(const provider_options& o)
{
    if (!o.strategy.empty())
        return o.strategy;
    const auto* r = find_row(o.name);
    return r ? r->default_strategy : std::string();
}

}  // namespace

llm_options provider_options::model_options() const
{
    llm_options o = llm;
    o.provider = name;
    o.seed = seed;
    o.strategy = strategy_of(*this);
    return o;
}

autotune_options provider_options::tune_options() const
{
    autotune_options t = tune;
    t.strategy = strategy_of(*this);
    t.optimizer.seed = seed;
    return t;
}

void provider_options::to_config(json::object& config) const
{
    json::object o{{"name", name}, {"seed", seed}};
    if (name == "scripted")
    {
        o["candidates"] = candidates_dir ? json::value(std::filesystem::absolute(*candidates_dir).string())
                                         : json::value(nullptr);
        o["scripted_latency_ms"] = std::chrono::duration<double, std::milli>(scripted_latency).count();
    }
    config["provider"] = std::move(o);
    if (is_llm_provider(name))
        config["llm"] = model_options().to_json();
    if (name == "autotune")
        config["tune"] = tune_options().to_json();
}

provider_options provider_options::from_config(const json::object& config, std::string_view origin)
try
{
    // run.json's "config" is warpsmith's record (null is absent); a missing section stops the
    // resume, a malformed field names itself ("run-001/run.json: config.provider.seed: ...").
    const json_reader cr(config, json_location(std::string(origin), "config", json_style::record));
    const auto po = cr.optional_nested("provider");
    if (!po || !po->find("name"))
        throw user_error(std::string(origin) + ": 'config.provider' is missing; cannot resume");
    provider_options o;
    o.name = po->require_string("name");
    o.seed = po->optional_uint64("seed").value_or(o.seed);
    if (auto d = po->optional_string("candidates"))
        o.candidates_dir = std::filesystem::path(*d);
    if (auto l = po->optional_number("scripted_latency_ms"))
        o.scripted_latency = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::duration<double, std::milli>(*l));
    if (is_llm_provider(o.name))
    {
        if (!cr.optional_object("llm"))
            throw user_error(std::string(origin) + ": 'config.llm' is missing; cannot resume --provider " +
                             o.name);
        o.llm = llm_options::from_json(cr.require("llm"), origin);
        o.strategy = o.llm.strategy;
    }
    if (o.name == "autotune")
    {
        const auto t = cr.optional_nested("tune");
        if (!t || !t->find("strategy"))
            throw user_error(std::string(origin) +
                             ": 'config.tune' is missing; cannot resume --provider autotune");
        o.tune = autotune_options::from_json(*t);
        o.strategy = o.tune.strategy;
    }
    return o;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

std::vector<provider_info> providers()
{
    std::vector<provider_info> out;
    for (const auto& r : table())
        out.push_back(provider_info{r.name, r.summary, r.strategies, r.default_strategy});
    return out;
}

provider_strategy make_strategy(const provider_options& opts,
                                const workload& w,
                                boost::asio::any_io_executor ex)
{
    const row* r = find_row(opts.name);
    if (!r)
    {
        std::vector<std::string> known;
        for (const auto& k : table())
            known.emplace_back(k.name);
        throw user_error("--provider " + opts.name + ": unknown provider (known: " + joined(known) + ")");
    }
    if (!opts.strategy.empty() && r->strategies.empty())
        throw user_error(
            "--strategy is an option of the model providers and of autotune, not of --provider " + opts.name);
    return r->make(opts, w, std::move(ex));
}

}  // namespace warpsmith
