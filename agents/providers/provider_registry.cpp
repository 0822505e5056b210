#include "agents/providers/provider_registry.hpp"

#include "harness/core/error.hpp"

namespace warpsmith {

namespace json = boost::json;

namespace {

using factory = std::unique_ptr<strategy> (*)(const provider_options&, const workload&);

struct row
{
    const char* name;
    const char* summary;
    factory make;  ///< Null: defined by the product, not in this build yet.
};

std::unique_ptr<strategy> make_scripted(const provider_options& o, const workload& w)
{
    if (!o.candidates_dir)
        throw user_error("--provider scripted needs --candidates DIR");
    scripted_options so;
    so.dir = *o.candidates_dir;
    so.latency = o.scripted_latency;
    so.sleep = o.sleep;
    return std::make_unique<scripted_strategy>(w, std::move(so));
}

const row table[] = {
    {"scripted", "candidates from a directory of .cu files (--candidates DIR)", &make_scripted},
    {"openai", "OpenAI Responses API", nullptr},
    {"openai-chat", "OpenAI-compatible Chat Completions (--base-url)", nullptr},
    {"replay", "re-serves the llm/ records of an earlier run", nullptr},
    {"autotune", "model-free parameter search over the workload's tunables", nullptr},
};

}  // namespace

json::object provider_options::to_json() const
{
    json::object o{{"name", name}, {"seed", seed}};
    if (name == "scripted")
    {
        o["candidates"] = candidates_dir ? json::value(std::filesystem::absolute(*candidates_dir).string())
                                         : json::value(nullptr);
        o["scripted_latency_ms"] = std::chrono::duration<double, std::milli>(scripted_latency).count();
    }
    return o;
}

std::vector<provider_info> providers()
{
    std::vector<provider_info> out;
    for (const auto& r : table)
        out.push_back(provider_info{r.name, r.summary, r.make != nullptr});
    return out;
}

std::unique_ptr<strategy> make_strategy(const provider_options& opts, const workload& w)
{
    std::string known;
    for (const auto& r : table)
    {
        if (opts.name == r.name)
        {
            if (!r.make)
                throw user_error("--provider " + opts.name + " is not available in this build yet (available: scripted)");
            return r.make(opts, w);
        }
        known += (known.empty() ? "" : ", ") + std::string(r.name);
    }
    throw user_error("--provider " + opts.name + ": unknown provider (known: " + known + ")");
}

}  // namespace warpsmith
