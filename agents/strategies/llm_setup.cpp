#include "agents/strategies/llm_setup.hpp"

#include "agents/http/url.hpp"
#include "agents/llm/providers/openai_client.hpp"
#include "agents/llm/providers/replay_client.hpp"
#include "agents/llm/tools.hpp"
#include "harness/core/error.hpp"
#include "harness/core/secret_redaction.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <limits>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

// --strategy is not among them: autotune takes it too (agents/providers/provider_registry.hpp).
const char* const llm_flags[] = {"--model",
                                 "--reasoning-effort",
                                 "--base-url",
                                 "--api-key-env",
                                 "--no-api-key",
                                 "--insecure-local",
                                 "--price-table",
                                 "--replay-from",
                                 "--no-stream",
                                 "--structured-output",
                                 "--llm-timeout",
                                 "--stream-idle-timeout-s",
                                 "--store",
                                 "--max-tool-rounds",
                                 "--nvidia-research"};

std::string joined_efforts()
{
    std::string out;
    for (const auto& e : llm::reasoning_effort_values())
        out += (out.empty() ? "" : ", ") + e;
    return out;
}

}  // namespace

bool is_llm_provider(std::string_view provider)
{
    return provider == "openai" || provider == "openai-chat" || provider == "replay";
}

const std::vector<std::string>& nvidia_research_domains()
{
    static const std::vector<std::string> domains{"docs.nvidia.com", "developer.nvidia.com"};
    return domains;
}

std::string openai_setting(const std::string& name)
{
    const char* v = std::getenv(name.c_str());
    return v ? std::string(v) : std::string();
}

void llm_options::add_to(CLI::App& cmd, const std::string& group)
{
    cmd_ = &cmd;
    cmd.add_option("--model", model, "Model name (openai: default gpt-5-mini; openai-chat: required)")
        ->group(group);
    cmd.add_option("--reasoning-effort",
                   reasoning_effort,
                   joined_efforts() +
                       " (openai: default medium; openai-chat: sent only when given; a model that refuses "
                       "reasoning parameters is asked again without them)")
        ->group(group);
    cmd.add_option("--base-url",
                   base_url,
                   "API base URL (default: OPENAI_BASE_URL, else https://api.openai.com/v1 for openai; "
                   "openai-chat: e.g. http://127.0.0.1:8000/v1). Plain http only for loopback hosts when a "
                   "key is sent. OPENAI_ORG_ID and OPENAI_PROJECT_ID, when set, go out as the "
                   "OpenAI-Organization and OpenAI-Project headers")
        ->group(group);
    cmd.add_option("--api-key-env",
                   api_key_env,
                   "Environment variable holding the API key (default OPENAI_API_KEY; also read from ./.env)")
        ->group(group);
    cmd.add_flag("--no-api-key",
                 no_api_key,
                 "Send no API key (a local model server that needs none); bench-strategies adds it to the "
                 "runs of a suite that names its own --base-url")
        ->group(group);
    cmd.add_flag("--insecure-local",
                 insecure_local,
                 "Turn TLS verification off, only for a loopback --base-url (self-signed local servers)")
        ->group(group);
    cmd.add_option(
           "--price-table",
           price_table,
           "JSON price overrides {\"models\": {NAME: {\"input\", \"cached_input\", \"output\"}}} (USD per 1M "
           "tokens)")
        ->group(group);
    cmd.add_option("--replay-from",
                   replay_from,
                   "--provider replay: the earlier run whose llm/ records are re-served")
        ->group(group);
    cmd.add_flag("--no-stream", no_stream, "Ask for whole responses instead of streamed events")
        ->group(group);
    cmd.add_option(
           "--structured-output",
           structured_output,
           "auto (JSON schema; openai-chat falls back to fenced blocks when refused), schema or fenced")
        ->group(group);
    cmd.add_option("--llm-timeout", request_timeout_s, "Seconds per model request attempt (default 600)")
        ->group(group);
    cmd.add_option("--stream-idle-timeout-s",
                   stream_idle_timeout_s,
                   "Seconds a streamed answer may stay silent before the attempt is given up (default 600; "
                   "keep-alives count as traffic)")
        ->group(group);
    cmd.add_option("--store",
                   store,
                   "true or false: whether the API may keep responses (\"store\"); default: not sent (the "
                   "API's default)")
        ->group(group);
    cmd.add_option(
           "--max-tool-rounds", max_tool_rounds, "Rounds of tool calls per proposal (default 4; 0: no tools)")
        ->group(group);
    cmd.add_flag(
           "--nvidia-research",
           nvidia_research,
           "Offer the nvidia_docs tool (the guidance notes in docs/guidance/); with --provider openai "
           "also OpenAI's hosted web search limited to docs.nvidia.com and developer.nvidia.com (billed "
           "per search; cited pages go to llm/ and the candidate's rationale)")
        ->group(group);
}

std::vector<std::string> llm_options::given_llm_flags() const
{
    std::vector<std::string> out;
    if (!cmd_)
        return out;
    for (const char* f : llm_flags)
        if (auto* o = cmd_->get_option_no_throw(f); o && o->count() > 0)
            out.emplace_back(f);
    return out;
}

bool llm_options::given(std::string_view flag) const
{
    if (!cmd_)
        return false;
    const auto* o = cmd_->get_option_no_throw(std::string(flag));
    return o && o->count() > 0;
}

void llm_options::confirm_resumed_endpoint(const llm_options& given_now, std::string_view origin) const
{
    if (provider != "openai" && provider != "openai-chat")
    {
        for (const char* flag : {"--base-url", "--api-key-env"})
            if (given_now.given(flag))
                throw user_error(std::string(origin) + ": the run's provider is " + provider +
                                 ", which sends no key; " + flag + " cannot be combined with --resume");
        return;
    }
    const auto confirm =
        [&](const char* flag, const char* field, const std::string& stored, bool needs_confirming)
    {
        const bool confirmed = given_now.given(flag);
        const std::string& now =
            std::string_view(flag) == "--base-url" ? given_now.base_url : given_now.api_key_env;
        if (confirmed && now != stored)
            throw user_error(std::string(origin) + ": config.llm." + field + " is '" + stored + "'; " + flag +
                             " '" + now + "' cannot change it on --resume (start a new run instead)");
        if (needs_confirming && !confirmed)
            throw user_error(std::string(origin) + ": config.llm." + field + " is '" + stored +
                             "'; --resume sends the API key there only when you give " + flag + " " + stored +
                             " again (a run directory can come from anyone)");
    };
    // Loopback servers too: on a shared machine any local user can listen on a loopback port, and
    // the key would reach it in clear text.
    confirm("--base-url", "base_url", base_url, !base_url.empty());
    confirm("--api-key-env", "api_key_env", api_key_env, api_key_env != llm_options{}.api_key_env);
}

void llm_options::check() const
{
    if (!is_llm_provider(provider))
    {
        if (auto given = given_llm_flags(); !given.empty())
            throw user_error(given.front() +
                             " is an option of the model providers (--provider openai, openai-chat or "
                             "replay), not of --provider " +
                             provider);
        return;
    }
    if (strategy != "refine" && strategy != "beam" && strategy != "evolve")
        throw user_error("--strategy " + strategy + ": unknown strategy (refine, beam, evolve)");
    if (!reasoning_effort.empty())
    {
        const auto& values = llm::reasoning_effort_values();
        if (std::find(values.begin(), values.end(), reasoning_effort) == values.end())
            throw user_error("--reasoning-effort " + reasoning_effort + ": expected " + joined_efforts());
    }
    if (!store.empty() && store != "true" && store != "false")
        throw user_error("--store " + store + ": expected true or false");
    if (stream_idle_timeout_s <= 0)
        throw user_error("--stream-idle-timeout-s must be greater than 0");
    if (structured_output != "auto" && structured_output != "schema" && structured_output != "fenced")
        throw user_error("--structured-output " + structured_output + ": expected auto, schema or fenced");
    if (request_timeout_s <= 0)
        throw user_error("--llm-timeout must be greater than 0");
    if (max_tool_rounds < 0)
        throw user_error("--max-tool-rounds must be at least 0");
    if (provider == "replay")
    {
        if (replay_from.empty())
            throw user_error(
                "--provider replay needs --replay-from RUN (an earlier run directory with llm/ records)");
        return;
    }
    if (!replay_from.empty())
        throw user_error("--replay-from is an option of --provider replay");
    if (provider == "openai-chat")
    {
        if (effective_base_url().empty())
            throw user_error(
                "--provider openai-chat needs --base-url or OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1 "
                "for "
                "vLLM)");
        if (model.empty())
            throw user_error("--provider openai-chat needs --model (the name the server knows the model by)");
    }
}

std::string llm_options::effective_model() const
{
    if (!model.empty())
        return model;
    return provider == "openai" ? "gpt-5-mini" : "";
}

std::string llm_options::effective_reasoning_effort() const
{
    if (!reasoning_effort.empty())
        return reasoning_effort;
    return provider == "openai" ? "medium" : "";
}

std::string llm_options::effective_base_url() const
{
    return base_url.empty() ? openai_setting("OPENAI_BASE_URL") : base_url;
}

json::object llm_options::to_json() const
{
    return json::object{{"provider", provider},
                        {"model", effective_model()},
                        {"reasoning_effort", reasoning_effort},
                        {"base_url", base_url},
                        {"strategy", strategy},
                        {"api_key_env", api_key_env},
                        {"insecure_local", insecure_local},
                        {"no_api_key", no_api_key},
                        {"price_table",
                         price_table.empty() ? json::value(nullptr)
                                             : json::value(std::filesystem::absolute(price_table).string())},
                        {"replay_from",
                         replay_from.empty() ? json::value(nullptr)
                                             : json::value(std::filesystem::absolute(replay_from).string())},
                        {"stream", !no_stream},
                        {"structured_output", structured_output},
                        {"request_timeout_s", request_timeout_s},
                        {"stream_idle_timeout_s", stream_idle_timeout_s},
                        {"store", store.empty() ? json::value(nullptr) : json::value(store == "true")},
                        {"max_tool_rounds", max_tool_rounds},
                        {"nvidia_research", nvidia_research},
                        {"seed", seed},
                        {"branches", branches}};
}

// run.json is warpsmith's record (null is absent): "run-001/run.json: config.llm.stream: must be
// true or false, got \"yes\"".
llm_options llm_options::from_json(const json::value& v, std::string_view origin)
try
{
    const json_reader r(v, json_location(std::string(origin), "config.llm", json_style::record));
    llm_options out;
    auto str = [&](const char* k, std::string& dst) { dst = r.optional_string(k).value_or(dst); };
    str("provider", out.provider);
    str("model", out.model);
    str("reasoning_effort", out.reasoning_effort);
    str("base_url", out.base_url);
    str("strategy", out.strategy);
    str("api_key_env", out.api_key_env);
    str("price_table", out.price_table);
    str("replay_from", out.replay_from);
    str("structured_output", out.structured_output);
    out.insecure_local = r.optional_bool("insecure_local").value_or(out.insecure_local);
    out.no_api_key = r.optional_bool("no_api_key").value_or(out.no_api_key);
    out.no_stream = !r.optional_bool("stream").value_or(!out.no_stream);
    out.nvidia_research = r.optional_bool("nvidia_research").value_or(out.nvidia_research);
    out.request_timeout_s = r.optional_number("request_timeout_s").value_or(out.request_timeout_s);
    out.stream_idle_timeout_s =
        r.optional_number("stream_idle_timeout_s").value_or(out.stream_idle_timeout_s);
    if (auto store = r.optional_bool("store"))
        out.store = *store ? "true" : "false";
    constexpr json_int_range int_range{0, std::numeric_limits<int>::max()};
    out.max_tool_rounds =
        static_cast<int>(r.optional_int64("max_tool_rounds", int_range).value_or(out.max_tool_rounds));
    out.seed = r.optional_uint64("seed").value_or(out.seed);
    out.branches = static_cast<int>(r.optional_int64("branches", int_range).value_or(out.branches));
    return out;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

model_client_bundle make_model_client(const llm_options& o, boost::asio::any_io_executor ex)
{
    o.check();
    model_client_bundle b;
    b.redact = std::make_shared<llm::redactor>();
    auto prices = std::make_shared<llm::price_table>(o.price_table.empty()
                                                         ? llm::price_table::defaults()
                                                         : llm::price_table::with_overrides(o.price_table));
    b.prices = prices;
    if (o.provider == "replay")
    {
        b.client = std::make_shared<llm::replay_client>(o.replay_from);
        return b;
    }
    llm::openai_client_options co;
    co.api = o.provider == "openai" ? llm::api_kind::responses : llm::api_kind::chat;
    co.base_url = o.effective_base_url();
    co.organization = openai_setting("OPENAI_ORG_ID");
    co.project = openai_setting("OPENAI_PROJECT_ID");
    if (!o.store.empty())
        co.store = o.store == "true";
    co.model = o.effective_model();
    if (!o.no_api_key)
        co.key = llm::find_api_key(o.api_key_env);
    if (co.key)
    {
        b.redact->add_secret(co.key->value);
        // Process-wide too: compile logs are redacted of it, and compile workers start without it.
        register_secret(co.key->value);
        b.key_source = co.key->source;
    }
    else if (o.provider == "openai" && !o.no_api_key)
    {
        const std::string base = co.base_url.empty() ? "https://api.openai.com/v1" : co.base_url;
        const auto url = http::parse_http_url(base, "--base-url");
        if (!http::is_loopback_host(url.host))
            throw user_error("no OpenAI API key: set " + o.api_key_env + " (or put " + o.api_key_env +
                             "=... in ./.env), or name another variable with --api-key-env");
    }
    co.insecure_local = o.insecure_local;
    co.structured = o.structured_output == "schema"   ? llm::structured_mode::schema
                    : o.structured_output == "fenced" ? llm::structured_mode::fenced
                                                      : llm::structured_mode::automatic;
    if (co.structured == llm::structured_mode::fenced)
        co.chat_caps.json_schema = false;
    co.chat_caps.reasoning_effort = !o.reasoning_effort.empty();
    co.request_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.request_timeout_s * 1000));
    co.stream_idle_timeout =
        std::chrono::milliseconds(static_cast<std::int64_t>(o.stream_idle_timeout_s * 1000));
    co.max_concurrent_requests = static_cast<std::size_t>(std::max(8, o.branches));
    co.retry.base_delay = o.retry_base_delay;
    co.extra_ca_file = o.extra_ca_file;
    co.proxy = o.proxy;
    co.prices = prices;
    co.redact = b.redact;
    b.client = std::make_shared<llm::openai_client>(ex, std::move(co));
    return b;
}

std::unique_ptr<llm_strategy> make_llm_strategy(const llm_options& o,
                                                const model_client_bundle& b,
                                                const workload& w)
{
    llm_strategy_options so;
    so.kind = o.strategy;
    so.seed = o.seed;
    so.stream = !o.no_stream;
    so.reasoning_effort = o.effective_reasoning_effort();
    so.exchange.max_tool_rounds = o.max_tool_rounds;
    so.tools = o.max_tool_rounds > 0;
    so.nvidia_docs = o.nvidia_research;
    if (o.nvidia_research && o.provider == "openai")
        so.web_search_domains = nvidia_research_domains();
    return make_llm_strategy_of_kind(b.client, std::move(so), w, b.redact);
}

}  // namespace warpsmith
