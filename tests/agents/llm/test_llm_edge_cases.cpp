// The real-API edge cases of the OpenAI providers, each against the strict fake server
// (tests/agents/support/fake_openai_server.hpp, which refuses what the API refuses):
//  * reasoning parameters for a model that does not reason: learnt from the 400 once per run,
//    asked again without them, one warning;
//  * a repair after an answer cut off with only a reasoning item does not send that item alone;
//  * response.failed and stream "error" events are asked again after a back-off under the retry
//    policy, never sent to answer validation;
//  * the stream idle timeout (default 600 s; keep-alives count as traffic);
//  * OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_PROJECT_ID;
//  * max_completion_tokens towards OpenAI in openai-chat, max_tokens learnt for older servers;
//  * no retries on 429 insufficient_quota;
//  * every reasoning effort of the API reference; "store": false with encrypted reasoning;
//  * no key over plain http to a non-loopback host;
//  * the hosted web search of --nvidia-research: request shape, citations, billing.

#include "agents/llm/exchange.hpp"
#include "agents/llm/llm_records.hpp"
#include "agents/llm/providers/openai_client.hpp"
#include "agents/strategies/llm_setup.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "tests/agents/support/async_test.hpp"
#include "tests/agents/support/fake_openai_server.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <mutex>

using namespace warpsmith;
using namespace warpsmith::llm;
using namespace warpsmith::test;
namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace
{

const std::string key = "sk-test-EDGE-4b1d0c9e7a2f";

openai_client_options options_for(const fake_openai_server& s, api_kind api, std::string model = "gpt-5-mini")
{
    openai_client_options o;
    o.api = api;
    o.base_url = s.base_url();
    o.model = std::move(model);
    o.key = api_key{key, "the test"};
    o.retry.base_delay = 10ms;
    o.retry.max_delay = 50ms;
    o.retry_seed = 7;
    o.request_timeout = 20s;
    return o;
}

/// A proposal request with a strict schema the API accepts (every property required, no others).
model_request proposal_request(const std::string& model, bool stream, bool tools)
{
    model_request r;
    r.model = model;
    r.branch = 0;
    r.iteration = 1;
    r.purpose = "propose";
    r.stream = stream;
    r.reasoning_effort = "medium";
    r.messages.push_back(message::system("system"));
    r.messages.push_back(
        message::user("[warpsmith task=propose mode=improve branch=0 iteration=1]\nsee c0001"));
    if (tools)
        r.tools.push_back(tool_definition{
            "compile",
            "compile",
            json::object{
                {"type", "object"}, {"properties", json::object{}}, {"additionalProperties", true}}});
    r.schema = output_schema{"kernel_proposal",
                             json::object{{"type", "object"},
                                          {"properties", json::object{}},
                                          {"required", json::array{}},
                                          {"additionalProperties", false}},
                             true};
    return r;
}

model_response complete(asio::io_context& ioc, model_client& c, model_request r)
{
    return run_coro(ioc, c.complete(std::move(r)), 60s);
}

bool contains(const std::string& s, const std::string& n)
{
    return s.find(n) != std::string::npos;
}

int occurrences(const std::string& s, const std::string& n)
{
    int count = 0;
    for (auto p = s.find(n); p != std::string::npos; p = s.find(n, p + 1))
        ++count;
    return count;
}

json::object body_of(const recorded_request& r)
{
    return json::parse(r.body).as_object();
}

struct log_capture
{
    std::mutex m;
    std::string text;
    log_capture()
    {
        set_log_sink(
            [this](log_level, std::string_view s)
            {
                std::lock_guard lock(m);
                text.append(s).append("\n");
            },
            log_level::debug);
    }
    ~log_capture() { set_log_sink(nullptr); }
    std::string all()
    {
        std::lock_guard lock(m);
        return text;
    }
};

/// Sets environment variables for one test and restores them.
struct scoped_env
{
    std::vector<std::pair<std::string, std::optional<std::string>>> saved;
    void set(const std::string& name, const std::string& value)
    {
        const char* old = std::getenv(name.c_str());
        saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~scoped_env()
    {
        for (auto it = saved.rbegin(); it != saved.rend(); ++it)
            if (it->second)
                ::setenv(it->first.c_str(), it->second->c_str(), 1);
            else
                ::unsetenv(it->first.c_str());
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(edge_cases_suite, io_fixture)

BOOST_AUTO_TEST_CASE(reasoning_parameters_refused_by_a_model_are_learnt_once_per_run)
{
    for (auto api : {api_kind::responses, api_kind::chat})
    {
        BOOST_TEST_CONTEXT((api == api_kind::responses ? "responses" : "chat"))
        {
            log_capture logs;
            fake_openai_options fo;
            fo.tool_calls = false;
            fo.rules.models_without_reasoning = {"my-plain-model"};
            fake_openai_server server(fo);
            auto opts = options_for(server, api, "gpt-4.1");
            opts.chat_caps.reasoning_effort = true;  // --reasoning-effort given
            openai_client client(ioc.get_executor(), opts);
            for (const char* model : {"gpt-4.1", "gpt-4.1", "my-plain-model"})
            {
                auto r = complete(ioc, client, proposal_request(model, false, false));
                BOOST_TEST(contains(r.text, "kernel_source"));
            }
            // gpt-4.1: refused once, asked again, then never sent; the same for the other model.
            const auto reqs = server.requests();
            BOOST_REQUIRE_EQUAL(reqs.size(), 5u);
            const char* field = api == api_kind::responses ? "reasoning" : "reasoning_effort";
            BOOST_TEST(body_of(reqs[0]).contains(field));
            BOOST_TEST(!body_of(reqs[1]).contains(field));
            BOOST_TEST(!body_of(reqs[2]).contains(field));
            BOOST_TEST(body_of(reqs[3]).contains(field));
            BOOST_TEST(!body_of(reqs[4]).contains(field));
            BOOST_TEST(server.rejected().size() == 2u);
            BOOST_TEST(contains(server.rejected()[0], "unsupported_parameter"));
            BOOST_TEST(client.models_without_reasoning().count("gpt-4.1") == 1u);
            BOOST_TEST(occurrences(logs.all(), "'gpt-4.1' does not take reasoning parameters") == 1);
            // A model that reasons still gets them.
            complete(ioc, client, proposal_request("gpt-5-mini", false, false));
            BOOST_TEST(body_of(server.requests().back()).contains(field));
            server.stop();
        }
    }
}

BOOST_AUTO_TEST_CASE(a_repair_after_a_reasoning_only_answer_sends_no_lone_reasoning_item)
{
    for (bool stream : {false, true})
    {
        BOOST_TEST_CONTEXT("stream " << stream)
        {
            fake_openai_options fo;
            fo.tool_calls = false;
            fake_openai_server server(fo);
            openai_client client(ioc.get_executor(), options_for(server, api_kind::responses));
            server.inject(openai_fault::reasoning_only);
            int validations = 0;
            answer_validator validate = [&](const model_response& r)
            {
                ++validations;
                return contains(r.text, "kernel_source") ? std::vector<std::string>{}
                                                         : std::vector<std::string>{"no kernel"};
            };
            repair_renderer repair = [](const std::vector<std::string>& p) { return "fix: " + p.front(); };
            exchange_settings settings;
            auto outcome = run_coro(ioc,
                                    run_exchange(client,
                                                 proposal_request("gpt-5-mini", stream, false),
                                                 nullptr,
                                                 validate,
                                                 repair,
                                                 nullptr,
                                                 nullptr,
                                                 settings),
                                    60s);
            BOOST_TEST(outcome.accepted);
            BOOST_TEST(outcome.answer_repairs == 1);
            BOOST_TEST(server.rejected().empty());
            const auto reqs = server.requests();
            BOOST_REQUIRE_EQUAL(reqs.size(), 2u);
            const auto repair_body = body_of(reqs[1]);
            for (const auto& item : repair_body.at("input").as_array())
            {
                const auto* type = item.as_object().if_contains("type");
                const bool reasoning = type && *type == "reasoning";
                BOOST_TEST(!reasoning);
            }
            server.stop();
        }
    }
}

BOOST_AUTO_TEST_CASE(failed_responses_and_stream_errors_are_retried_with_back_off)
{
    struct fault_case
    {
        openai_fault fault;
        api_kind api;
        bool stream;
    };
    const fault_case cases[] = {
        {openai_fault::response_failed, api_kind::responses, false},
        {openai_fault::response_failed, api_kind::responses, true},
        {openai_fault::rate_limit_event, api_kind::responses, true},
        {openai_fault::error_event, api_kind::responses, true},
        {openai_fault::rate_limit_event, api_kind::chat, true},
    };
    for (const auto& fc : cases)
    {
        BOOST_TEST_CONTEXT("fault " << static_cast<int>(fc.fault) << " stream " << fc.stream)
        {
            log_capture logs;
            fake_openai_options fo;
            fo.tool_calls = false;
            fake_openai_server server(fo);
            test::temp_dir tmp;
            record_writer records(tmp.path(), std::make_shared<redactor>());
            auto opts = options_for(server, fc.api);
            opts.retry.base_delay = 300ms;
            opts.retry.max_delay = 300ms;
            openai_client client(ioc.get_executor(), opts);
            client.set_observer(records.observer());
            server.inject(fc.fault);
            int validations = 0;
            answer_validator validate = [&](const model_response&)
            {
                ++validations;
                return std::vector<std::string>{};
            };
            repair_renderer repair = [](const std::vector<std::string>&) { return std::string("fix"); };
            auto outcome = run_coro(ioc,
                                    run_exchange(client,
                                                 proposal_request("gpt-5-mini", fc.stream, false),
                                                 nullptr,
                                                 validate,
                                                 repair,
                                                 nullptr,
                                                 nullptr,
                                                 exchange_settings{}),
                                    60s);
            // Asked again by the client, not by a "fix your answer" follow-up.
            BOOST_TEST(outcome.accepted);
            BOOST_TEST(outcome.answer_repairs == 0);
            BOOST_TEST(validations == 1);
            const auto reqs = server.requests();
            BOOST_REQUIRE_EQUAL(reqs.size(), 2u);
            // After the back-off the policy chose (seeded: the same draw as here), not at once.
            http::retry_policy same(opts.retry, opts.retry_seed + 1);
            const auto backoff = same.backoff(1);
            BOOST_TEST((reqs[1].arrival - reqs[0].arrival >= backoff - 5ms));
            BOOST_TEST(contains(logs.all(), "asking again in " + std::to_string(backoff.count()) + " ms"));
            const auto recs = read_records(tmp.path());
            BOOST_TEST(recs.size() == 2u);
            BOOST_TEST(!recs.front().ok);
            server.stop();
        }
    }
    {
        // Under the same policy: max_attempts in all, then a one-line, non-fatal error.
        fake_openai_options fo;
        fo.tool_calls = false;
        fake_openai_server server(fo);
        auto opts = options_for(server, api_kind::responses);
        opts.retry.max_attempts = 3;
        openai_client client(ioc.get_executor(), opts);
        server.inject(openai_fault::response_failed, 5);
        try
        {
            complete(ioc, client, proposal_request("gpt-5-mini", true, false));
            BOOST_ERROR("expected a failure");
        }
        catch (const fatal_provider_error& e)
        {
            BOOST_ERROR("not fatal: " << e.what());
        }
        catch (const boost::system::system_error& e)
        {
            const std::string what = e.what();
            BOOST_TEST(contains(what, "the response failed"), what);
            BOOST_TEST(contains(what, "after 3 attempts"), what);
            BOOST_TEST(what.find('\n') == std::string::npos);
        }
        BOOST_TEST(server.request_count() == 3u);
        server.stop();
    }
}

BOOST_AUTO_TEST_CASE(stream_idle_timeout_is_configurable_and_keep_alives_count)
{
    BOOST_TEST(openai_client_options{}.stream_idle_timeout == 600s);
    BOOST_TEST(llm_options{}.stream_idle_timeout_s == 600);
    {
        CLI::App app;
        llm_options o;
        o.add_to(app, "model");
        app.parse(std::vector<std::string>{"5", "--stream-idle-timeout-s"});
        BOOST_TEST(o.stream_idle_timeout_s == 5);
        o.provider = "openai";
        BOOST_TEST(llm_options::from_json(o.to_json(), "test").stream_idle_timeout_s == 5);
    }
    for (bool keepalives : {false, true})
    {
        BOOST_TEST_CONTEXT("keep-alives " << keepalives)
        {
            fake_openai_options fo;
            fo.tool_calls = false;
            fo.silence = 3000ms;
            fo.keepalive_interval = keepalives ? 150ms : 0ms;
            fake_openai_server server(fo);
            auto opts = options_for(server, api_kind::responses);
            opts.stream_idle_timeout = 1200ms;  // generous: keep-alives come every 150 ms
            opts.retry.max_attempts = 1;
            opts.protocol_retries = 0;
            openai_client client(ioc.get_executor(), opts);
            server.inject(openai_fault::long_silence);
            if (keepalives)
                BOOST_TEST(contains(complete(ioc, client, proposal_request("gpt-5-mini", true, false)).text,
                                    "kernel_source"));
            else
            {
                try
                {
                    complete(ioc, client, proposal_request("gpt-5-mini", true, false));
                    BOOST_ERROR("expected the idle timeout");
                }
                catch (const std::exception& e)
                {
                    BOOST_TEST(contains(e.what(), "timeout"), e.what());
                }
            }
            server.stop();
        }
    }
}

BOOST_AUTO_TEST_CASE(base_url_organization_and_project_come_from_the_environment)
{
    fake_openai_options fo;
    fo.tool_calls = false;
    fake_openai_server server(fo);
    scoped_env env;
    env.set("OPENAI_BASE_URL", server.base_url());
    env.set("OPENAI_ORG_ID", "org-test123");
    env.set("OPENAI_PROJECT_ID", "proj_test456");
    env.set("WARPSMITH_TEST_EDGE_KEY", key);
    for (const char* provider : {"openai", "openai-chat"})
    {
        BOOST_TEST_CONTEXT(provider)
        {
            llm_options o;
            o.provider = provider;
            o.model = "gpt-5-mini";
            o.api_key_env = "WARPSMITH_TEST_EDGE_KEY";
            o.check();  // openai-chat needs no --base-url with OPENAI_BASE_URL
            auto b = make_model_client(o, ioc.get_executor());
            complete(ioc, *b.client, proposal_request("gpt-5-mini", false, false));
            const auto r = server.requests().back();
            BOOST_TEST(r.header("openai-organization") == "org-test123");
            BOOST_TEST(r.header("openai-project") == "proj_test456");
            BOOST_TEST(r.header("authorization") == "Bearer " + key);
        }
    }
    BOOST_TEST(server.request_count() == 2u);
    BOOST_TEST(server.rejected().empty());
    server.stop();
}

BOOST_AUTO_TEST_CASE(openai_chat_sends_max_completion_tokens_and_learns_max_tokens_where_needed)
{
    {
        // OpenAI's reasoning models refuse max_tokens.
        fake_openai_options fo;
        fo.tool_calls = false;
        fake_openai_server server(fo);
        openai_client client(ioc.get_executor(), options_for(server, api_kind::chat));
        auto req = proposal_request("gpt-5-mini", false, false);
        req.max_output_tokens = 4000;
        complete(ioc, client, req);
        const auto body = body_of(server.requests().front());
        BOOST_TEST(body.at("max_completion_tokens") == 4000);
        BOOST_TEST(!body.contains("max_tokens"));
        BOOST_TEST(server.request_count() == 1u);
        server.stop();
    }
    {
        // An older compatible server knows only max_tokens: learnt once.
        log_capture logs;
        fake_openai_options fo;
        fo.tool_calls = false;
        fo.rules.chat_max_tokens_only = true;
        fake_openai_server server(fo);
        openai_client client(ioc.get_executor(), options_for(server, api_kind::chat, "local-model"));
        for (int i = 0; i < 2; ++i)
        {
            auto req = proposal_request("local-model", false, false);
            req.max_output_tokens = 4000;
            complete(ioc, client, req);
        }
        const auto reqs = server.requests();
        BOOST_REQUIRE_EQUAL(reqs.size(), 3u);
        BOOST_TEST(body_of(reqs[1]).at("max_tokens") == 4000);
        BOOST_TEST(body_of(reqs[2]).at("max_tokens") == 4000);
        BOOST_TEST(occurrences(logs.all(), "refused max_completion_tokens") == 1);
        server.stop();
    }
}

BOOST_AUTO_TEST_CASE(insufficient_quota_is_not_retried)
{
    for (bool stream : {false, true})
    {
        fake_openai_options fo;
        fo.tool_calls = false;
        fake_openai_server server(fo);
        openai_client client(ioc.get_executor(), options_for(server, api_kind::responses));
        server.inject(openai_fault::insufficient_quota, 3);
        try
        {
            complete(ioc, client, proposal_request("gpt-5-mini", stream, false));
            BOOST_ERROR("expected a fatal error");
        }
        catch (const fatal_provider_error& e)
        {
            const std::string what = e.what();
            BOOST_TEST(contains(what, "no quota left"), what);
            BOOST_TEST(what.find('\n') == std::string::npos);
        }
        BOOST_TEST(server.request_count() == 1u);
        server.stop();
    }
}

BOOST_AUTO_TEST_CASE(every_reasoning_effort_of_the_api_reference_is_accepted)
{
    const std::vector<std::string> expected{"none", "minimal", "low", "medium", "high", "xhigh", "max"};
    BOOST_TEST(reasoning_effort_values() == expected, boost::test_tools::per_element());
    fake_openai_options fo;
    fo.tool_calls = false;
    fake_openai_server server(fo);
    openai_client client(ioc.get_executor(), options_for(server, api_kind::responses));
    for (const auto& effort : expected)
    {
        llm_options o;
        o.provider = "openai";
        o.reasoning_effort = effort;
        BOOST_CHECK_NO_THROW(o.check());
        BOOST_TEST(o.effective_reasoning_effort() == effort);
        auto req = proposal_request("gpt-5-mini", false, false);
        req.reasoning_effort = effort;
        complete(ioc, client, req);
        BOOST_TEST(body_of(server.requests().back()).at("reasoning").at("effort") == json::value(effort));
    }
    BOOST_TEST(server.rejected().empty());
    llm_options bad;
    bad.provider = "openai";
    bad.reasoning_effort = "extreme";
    BOOST_CHECK_THROW(bad.check(), user_error);
    server.stop();
}

BOOST_AUTO_TEST_CASE(store_false_sends_reasoning_with_its_encrypted_content)
{
    llm_options bad;
    bad.provider = "openai";
    bad.store = "maybe";
    BOOST_CHECK_THROW(bad.check(), user_error);

    fake_openai_server server;
    auto opts = options_for(server, api_kind::responses);
    opts.store = false;
    openai_client client(ioc.get_executor(), opts);
    auto r1 = complete(ioc, client, proposal_request("gpt-5-mini", true, true));
    BOOST_REQUIRE(!r1.tool_calls.empty());
    auto req = proposal_request("gpt-5-mini", true, true);
    message a;
    a.role = role::assistant;
    a.tool_calls = r1.tool_calls;
    a.provider_items = r1.output_items;
    req.messages.push_back(a);
    for (const auto& c : r1.tool_calls)
        req.messages.push_back(message::tool_result(c.id, "{}"));
    auto r2 = complete(ioc, client, req);
    BOOST_TEST(contains(r2.text, "kernel_source"));
    BOOST_TEST(server.rejected().empty());
    for (const auto& q : server.requests())
    {
        const auto body = body_of(q);
        BOOST_TEST(body.at("store") == false);
        BOOST_TEST(body.at("include").as_array()[0] == "reasoning.encrypted_content");
    }
    server.stop();

    // Without the option nothing is sent (the API's default).
    fake_openai_server plain;
    openai_client default_client(ioc.get_executor(), options_for(plain, api_kind::responses));
    complete(ioc, default_client, proposal_request("gpt-5-mini", false, false));
    BOOST_TEST(!body_of(plain.requests().front()).contains("store"));
    plain.stop();
}

BOOST_AUTO_TEST_CASE(a_key_is_never_sent_over_plain_http_to_a_remote_host)
{
    openai_client_options o;
    o.base_url = "http://api.example.com/v1";
    o.model = "gpt-5-mini";
    o.key = api_key{key, "the test"};
    try
    {
        openai_client c(ioc.get_executor(), o);
        BOOST_ERROR("expected a refusal");
    }
    catch (const user_error& e)
    {
        const std::string what = e.what();
        BOOST_TEST(contains(what, "refusing to send the API key over plain http to 'api.example.com'"), what);
        BOOST_TEST(what.find('\n') == std::string::npos);
        BOOST_TEST(!contains(what, "EDGE"));
    }
    // Loopback over http is fine (local servers), and https anywhere.
    o.base_url = "http://127.0.0.1:9/v1";
    BOOST_CHECK_NO_THROW(openai_client(ioc.get_executor(), o));
    o.base_url = "https://api.example.com/v1";
    BOOST_CHECK_NO_THROW(openai_client(ioc.get_executor(), o));
}

BOOST_AUTO_TEST_CASE(hosted_web_search_is_limited_to_nvidia_docs_cited_and_billed)
{
    for (bool stream : {false, true})
    {
        BOOST_TEST_CONTEXT("stream " << stream)
        {
            fake_openai_options fo;
            fo.tool_calls = false;
            fake_openai_server server(fo);
            test::temp_dir tmp;
            record_writer records(tmp.path(), std::make_shared<redactor>());
            openai_client client(ioc.get_executor(), options_for(server, api_kind::responses));
            client.set_observer(records.observer());
            auto req = proposal_request("gpt-5-mini", stream, false);
            req.web_search_domains = nvidia_research_domains();
            auto r = complete(ioc, client, req);
            BOOST_TEST(server.rejected().empty());
            const auto body = body_of(server.requests().front());
            const auto& tool = body.at("tools").as_array().back();
            BOOST_TEST(tool.at("type") == "web_search");
            BOOST_TEST(tool.at("filters").at("allowed_domains") ==
                       json::array({"docs.nvidia.com", "developer.nvidia.com"}));
            BOOST_TEST(body.at("max_tool_calls") == 4);
            BOOST_REQUIRE_EQUAL(r.citations.size(), 2u);
            BOOST_TEST(r.citations[0].url == "https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/");
            BOOST_TEST(r.usage.web_search_calls == 1);
            const auto tokens_only = price_table::defaults().cost("gpt-5-mini",
                                                                  [&]
                                                                  {
                                                                      auto u = r.usage;
                                                                      u.web_search_calls = 0;
                                                                      return u;
                                                                  }());
            BOOST_TEST(r.usage.cost_usd == tokens_only + 0.01, boost::test_tools::tolerance(1e-9));
            const auto recs = read_records(tmp.path());
            BOOST_REQUIRE_EQUAL(recs.size(), 1u);
            BOOST_TEST(recs[0].response.citations.size() == 2u);
            BOOST_TEST(recs[0].response.usage.web_search_calls == 1);
            server.stop();
        }
    }
    // The price of a search can be overridden like token prices.
    price_table t = price_table::defaults();
    t.apply(json::parse(R"({"web_search_call_usd": 0.025, "models": {}})"), "test");
    token_usage u;
    u.web_search_calls = 2;
    BOOST_TEST(t.cost("unknown-model", u) == 0.05, boost::test_tools::tolerance(1e-12));
}

namespace
{

// A model (or a server that ignores tool_choice "none") scripted reply by reply.
class scripted_model final : public model_client
{
public:
    std::function<model_response(const model_request&)> answer;
    int requests = 0;
    std::string provider() const override { return "openai-chat"; }
    std::string model() const override { return "m"; }
    bool structured_output() const override { return false; }
    boost::asio::awaitable<model_response> complete(model_request req) override
    {
        ++requests;
        co_return answer(req);
    }
};

class echo_tools final : public tool_executor
{
public:
    std::size_t output_bytes = 10;
    int executed = 0;
    std::vector<tool_definition> definitions() const override { return kernel_tool_definitions(false); }
    boost::asio::awaitable<std::string> execute(const tool_call&) override
    {
        ++executed;
        co_return std::string("\"") + std::string(output_bytes, 'x') + "\"";
    }
};

model_response tool_calls_reply(std::size_t n)
{
    model_response r;
    for (std::size_t i = 0; i < n; ++i)
        r.tool_calls.push_back(tool_call{"call_" + std::to_string(i), "gpu_properties", "{}"});
    return r;
}

}  // namespace

// A model that calls tools for ever, or a thousand at once, ends its turn: calls after the tools
// were withdrawn and answers with too many calls count as follow-ups (a server that ignored
// tool_choice "none" made 386 requests in 20 s, each larger than the last).
BOOST_AUTO_TEST_CASE(an_exchange_ends_when_the_model_keeps_calling_tools)
{
    answer_validator validate = [](const model_response&) { return std::vector<std::string>{}; };
    repair_renderer repair = [](const std::vector<std::string>& p) { return "fix: " + p.front(); };
    exchange_settings settings;  // 4 tool rounds, 2 follow-ups, 16 calls per answer
    {
        scripted_model model;
        model.answer = [](const model_request&) { return tool_calls_reply(1); };
        echo_tools tools;
        model_request req;
        req.model = "m";
        std::string error;
        try
        {
            (void)run_coro(
                ioc, run_exchange(model, req, &tools, validate, repair, nullptr, nullptr, settings), 60s);
        }
        catch (const std::runtime_error& e)
        {
            error = e.what();
        }
        BOOST_TEST(contains(error, "called tools after they were withdrawn"));
        BOOST_TEST(tools.executed == 4);
        BOOST_TEST(model.requests == 4 + 3);  // 4 rounds run, then 3 withdrawn turns
    }
    {
        // Twenty thousand calls in one answer: none is run, the model is told, the next answer counts.
        scripted_model model;
        int turn = 0;
        model.answer = [&](const model_request& req)
        {
            if (turn++ == 0)
                return tool_calls_reply(20000);
            BOOST_TEST(contains(req.messages.back().content, "the answer made 20000 tool calls; at most 16"));
            model_response r;
            r.text = "fine";
            return r;
        };
        echo_tools tools;
        model_request req;
        req.model = "m";
        auto outcome = run_coro(
            ioc, run_exchange(model, req, &tools, validate, repair, nullptr, nullptr, settings), 60s);
        BOOST_TEST(outcome.accepted);
        BOOST_TEST(outcome.answer_repairs == 1);
        BOOST_TEST(tools.executed == 0);
        BOOST_TEST(outcome.tool_calls == 0);
    }
    {
        // A tool's answer beyond the cap reaches the model as an error, not as 1 MB of text.
        scripted_model model;
        std::string seen;
        int turn = 0;
        model.answer = [&](const model_request& req)
        {
            if (turn++ == 0)
                return tool_calls_reply(1);
            seen = req.messages.back().content;
            model_response r;
            r.text = "fine";
            return r;
        };
        echo_tools tools;
        tools.output_bytes = 1 << 20;
        model_request req;
        req.model = "m";
        auto outcome = run_coro(
            ioc, run_exchange(model, req, &tools, validate, repair, nullptr, nullptr, settings), 60s);
        BOOST_TEST(outcome.accepted);
        BOOST_TEST(seen.size() < 200u);
        BOOST_TEST(contains(seen, "more than 65536; ask for less"));
    }
    {
        // A refused answer of 2 MB goes back cut, and a problem quoting 1 MB of it is cut too.
        scripted_model model;
        std::vector<std::size_t> request_bytes;
        int turn = 0;
        model.answer = [&](const model_request& req)
        {
            std::size_t bytes = 0;
            for (const auto& m : req.messages)
                bytes += m.content.size();
            request_bytes.push_back(bytes);
            model_response r;
            r.text = turn++ < 2 ? std::string(2 << 20, 'x') : "fine";
            return r;
        };
        answer_validator picky = [](const model_response& r)
        {
            return r.text == "fine"
                       ? std::vector<std::string>{}
                       : std::vector<std::string>{"entry: '" + r.text.substr(0, 1 << 20) + "' is bad"};
        };
        std::vector<std::string> told;
        repair_renderer remember = [&](const std::vector<std::string>& p)
        {
            told = p;
            return "fix: " + p.front();
        };
        model_request req;
        req.model = "m";
        auto outcome = run_coro(
            ioc, run_exchange(model, req, nullptr, picky, remember, nullptr, nullptr, settings), 60s);
        BOOST_TEST(outcome.accepted);
        BOOST_REQUIRE_EQUAL(request_bytes.size(), 3u);
        BOOST_TEST(request_bytes[2] < 2 * settings.max_echoed_answer_bytes + 4096);
        BOOST_REQUIRE_EQUAL(told.size(), 1u);
        BOOST_TEST(told.front().size() < settings.max_problem_bytes + 40);
        BOOST_TEST(contains(told.front(), "bytes)"));
    }
}

BOOST_AUTO_TEST_SUITE_END()
