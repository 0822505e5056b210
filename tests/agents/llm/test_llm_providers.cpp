// The providers against the fake OpenAI server on 127.0.0.1 (tests/agents/support): the Responses
// API and Chat Completions, streamed and not, tool calls, usage and records; every fault kind
// (429 with Retry-After, 500, 503, slow past the timeout, truncated body, malformed JSON, a stream
// cut short, an error event); the fatal errors (401, 404 unknown model, unreachable URL, a
// certificate that does not verify) and their one-line messages; TLS with a trusted throwaway
// certificate and --insecure-local; the json_schema fallback of openai-chat; replay; redaction.

#include "agents/llm/llm_records.hpp"
#include "agents/llm/providers/openai_client.hpp"
#include "agents/llm/providers/replay_client.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/core/secret_redaction.hpp"
#include "tests/agents/support/async_test.hpp"
#include "tests/agents/support/fake_http_server.hpp"
#include "tests/agents/support/fake_openai_server.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdio>
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

const std::string test_key = "sk-test-SECRET-5f8a2c19d7e4b6";

openai_client_options options_for(const fake_openai_server& s, api_kind api)
{
    openai_client_options o;
    o.api = api;
    o.base_url = s.base_url();
    o.model = "gpt-5-mini";
    o.key = api_key{test_key, "the test"};
    o.retry.base_delay = 10ms;
    o.retry.max_delay = 50ms;
    o.retry_seed = 7;
    o.request_timeout = 10s;
    return o;
}

model_request propose_request(bool stream, bool tools = true)
{
    model_request r;
    r.model = "gpt-5-mini";
    r.branch = 0;
    r.iteration = 1;
    r.purpose = "propose";
    r.stream = stream;
    r.reasoning_effort = "medium";
    r.messages.push_back(message::system("system"));
    r.messages.push_back(
        message::user("[warpsmith task=propose mode=improve branch=0 iteration=1]\nsee c0001"));
    if (tools)
        r.tools.push_back(tool_definition{"compile", "compile", json::object{{"type", "object"}}});
    // A strict schema the API accepts (the strict fake refuses one without additionalProperties).
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
    return run_coro(ioc, c.complete(std::move(r)), 30s);
}

std::string error_of(asio::io_context& ioc, model_client& c, model_request r, bool* fatal = nullptr)
{
    try
    {
        complete(ioc, c, std::move(r));
    }
    catch (const fatal_provider_error& e)
    {
        if (fatal)
            *fatal = true;
        return e.what();
    }
    catch (const std::exception& e)
    {
        if (fatal)
            *fatal = false;
        return e.what();
    }
    BOOST_ERROR("expected an exception");
    return {};
}

bool contains(const std::string& s, const std::string& n)
{
    return s.find(n) != std::string::npos;
}

/// Every file below dir must be free of the key.
void check_no_key(const fs::path& dir)
{
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            BOOST_TEST(!contains(read_text_file(e.path()), "SECRET"), e.path());
}

struct log_capture
{
    std::mutex m;
    std::vector<std::string> lines;
    log_capture()
    {
        set_log_sink(
            [this](log_level, std::string_view s)
            {
                std::lock_guard lock(m);
                lines.emplace_back(s);
            },
            log_level::debug);
    }
    ~log_capture() { set_log_sink(nullptr); }
    std::string all()
    {
        std::lock_guard lock(m);
        std::string out;
        for (const auto& l : lines)
            out += l + "\n";
        return out;
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(providers_suite, io_fixture)

BOOST_AUTO_TEST_CASE(responses_api_non_streamed_and_streamed)
{
    fake_openai_server server;
    openai_client client(ioc.get_executor(), options_for(server, api_kind::responses));
    BOOST_TEST(client.provider() == "openai");
    BOOST_TEST(client.structured_output());
    for (bool stream : {false, true})
    {
        BOOST_TEST_CONTEXT("stream " << stream)
        {
            // First a round of tool calls (compile + history c0001), then the proposal.
            auto r1 = complete(ioc, client, propose_request(stream));
            BOOST_REQUIRE_EQUAL(r1.tool_calls.size(), 2u);
            BOOST_TEST(r1.tool_calls[0].name == "compile");
            BOOST_TEST(contains(r1.tool_calls[0].arguments, "__global__"));
            BOOST_TEST(r1.tool_calls[1].name == "history");
            BOOST_TEST(r1.tool_calls[1].arguments == R"({"id":"c0001"})");
            BOOST_TEST(r1.output_items.size() == 3u);  // reasoning + two function calls
            BOOST_TEST(r1.usage.input > 0);
            BOOST_TEST(r1.usage.reasoning == 32);
            BOOST_TEST(r1.usage.cost_usd > 0);  // gpt-5-mini is priced
            BOOST_TEST(r1.trace.t_first_byte.has_value());
            BOOST_TEST((stream ? !r1.trace.events.empty() : r1.trace.events.empty()));

            auto req = propose_request(stream);
            message a;
            a.role = role::assistant;
            a.tool_calls = r1.tool_calls;
            a.provider_items = r1.output_items;
            req.messages.push_back(a);
            for (const auto& c : r1.tool_calls)
                req.messages.push_back(message::tool_result(c.id, "{}"));
            auto r2 = complete(ioc, client, req);
            BOOST_TEST(r2.tool_calls.empty());
            BOOST_TEST(r2.text.front() == '{');
            BOOST_TEST(contains(r2.text, "kernel_source"));
            BOOST_TEST(r2.usage.cached_input > 0);
        }
    }
    // The follow-up carried the earlier output items verbatim, the key only in the header.
    const auto reqs = server.requests();
    const auto body = json::parse(reqs[1].body).as_object();
    BOOST_TEST(body.at("input").as_array()[1].at("type") == "reasoning");
    BOOST_TEST(body.at("input").as_array()[2].at("type") == "function_call");
    BOOST_TEST(body.at("input").as_array()[4].at("type") == "function_call_output");
    BOOST_TEST(reqs[0].header("authorization") == "Bearer " + test_key);
    BOOST_TEST(!contains(reqs[0].body, "SECRET"));
    BOOST_TEST(reqs[0].target == "/v1/responses");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(chat_completions_non_streamed_and_streamed)
{
    fake_openai_server server;
    auto opts = options_for(server, api_kind::chat);
    opts.model = "local-model";
    openai_client client(ioc.get_executor(), opts);
    BOOST_TEST(client.provider() == "openai-chat");
    for (bool stream : {false, true})
    {
        auto r1 = complete(ioc, client, propose_request(stream));
        BOOST_REQUIRE_EQUAL(r1.tool_calls.size(), 2u);
        BOOST_TEST(r1.tool_calls[0].name == "compile");
        BOOST_TEST(json::parse(r1.tool_calls[0].arguments).at("entry") == "sgemm");  // fragments joined
        BOOST_TEST(r1.usage.input > 0);
        auto req2 = propose_request(stream, false);
        req2.model.clear();  // the client's model: "local-model", not in the price table
        auto r2 = complete(ioc, client, req2);
        BOOST_TEST(contains(r2.text, "kernel_source"));
        BOOST_TEST(r2.usage.output > 0);
        BOOST_TEST(r2.usage.cost_usd == 0);  // unknown model: free
    }
    const auto reqs = server.requests();
    BOOST_TEST(reqs[0].target == "/v1/chat/completions");
    const auto streamed = json::parse(reqs[2].body).as_object();
    BOOST_TEST(streamed.at("stream") == true);
    BOOST_TEST(streamed.at("stream_options").at("include_usage") == true);
    BOOST_TEST(streamed.at("response_format").at("type") == "json_schema");
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(chat_falls_back_to_fenced_blocks_when_json_schema_is_refused)
{
    fake_openai_options fo;
    fo.chat_json_schema = false;
    fo.tool_calls = false;
    fake_openai_server server(fo);
    auto opts = options_for(server, api_kind::chat);
    openai_client client(ioc.get_executor(), opts);
    BOOST_TEST(client.structured_output());
    auto r = complete(ioc, client, propose_request(false));
    BOOST_TEST(!client.structured_output());
    BOOST_TEST(contains(r.text, "```cuda"));
    BOOST_TEST(server.request_count() == 2u);
    const auto second = json::parse(server.requests()[1].body).as_object();
    BOOST_TEST(!second.contains("response_format"));
    // Later requests go without the schema from the start.
    complete(ioc, client, propose_request(false));
    BOOST_TEST(server.request_count() == 3u);
    BOOST_TEST(server.stop());
}

BOOST_AUTO_TEST_CASE(retryable_faults_recover)
{
    struct fault_case
    {
        openai_fault fault;
        bool stream;
        int expected_requests;
    };
    const fault_case cases[] = {
        {openai_fault::rate_limit, false, 2},
        {openai_fault::server_error, false, 2},
        {openai_fault::unavailable, true, 2},
        {openai_fault::truncated, false, 2},
        {openai_fault::truncated, true, 2},
        {openai_fault::malformed_json, false, 2},
        {openai_fault::stream_cut, true, 2},
        {openai_fault::error_event, true, 2},
    };
    for (const auto& fc : cases)
    {
        BOOST_TEST_CONTEXT("fault " << static_cast<int>(fc.fault) << " stream " << fc.stream)
        {
            fake_openai_options fo;
            fo.tool_calls = false;
            fo.retry_after_s = 1;
            fake_openai_server server(fo);
            test::temp_dir tmp;
            auto red = std::make_shared<redactor>();
            red->add_secret(test_key);
            record_writer records(tmp.path(), red);
            openai_client client(ioc.get_executor(), options_for(server, api_kind::responses));
            client.set_observer(records.observer());
            server.inject(fc.fault);
            const auto t0 = std::chrono::steady_clock::now();
            auto r = complete(ioc, client, propose_request(fc.stream, false));
            BOOST_TEST(contains(r.text, "kernel_source"));
            BOOST_TEST(server.request_count() == static_cast<std::size_t>(fc.expected_requests));
            if (fc.fault == openai_fault::rate_limit)
            {
                // Retry-After: 1 s was honoured, not the 10 ms backoff.
                BOOST_TEST((std::chrono::steady_clock::now() - t0 >= 900ms));
                BOOST_TEST(r.trace.attempts == 2);
            }
            // Answers that arrived but were unusable (bytes delivered, then cut or malformed) are
            // asked again by the provider and recorded as failed exchanges; statuses are retried
            // inside the HTTP client (one exchange).
            const bool protocol =
                fc.fault == openai_fault::malformed_json || fc.fault == openai_fault::stream_cut ||
                fc.fault == openai_fault::error_event || fc.fault == openai_fault::truncated;
            const auto recs = read_records(tmp.path());
            BOOST_TEST(recs.size() == (protocol ? 2u : 1u));
            BOOST_TEST(recs.back().ok);
            BOOST_TEST(server.stop());
        }
    }
}

BOOST_AUTO_TEST_CASE(slow_server_times_out_without_being_fatal)
{
    fake_openai_options fo;
    fo.tool_calls = false;
    fo.slow_delay = 2000ms;
    fake_openai_server server(fo);
    auto opts = options_for(server, api_kind::chat);
    opts.request_timeout = 200ms;
    opts.retry.max_attempts = 2;
    openai_client client(ioc.get_executor(), opts);
    server.inject(openai_fault::slow, 2);
    bool fatal = true;
    const auto msg = error_of(ioc, client, propose_request(false, false), &fatal);
    BOOST_TEST(!fatal);
    BOOST_TEST(contains(msg, "timeout"), msg);
    BOOST_TEST(contains(msg, "2 attempts"), msg);
    // The next request succeeds.
    BOOST_TEST(contains(complete(ioc, client, propose_request(false, false)).text, "kernel_source"));
    server.stop();
}

BOOST_AUTO_TEST_CASE(rejected_key_is_fatal_and_redacted)
{
    fake_openai_options fo;
    fo.api_key = "sk-the-right-key-000000";
    fake_openai_server server(fo);
    test::temp_dir tmp;
    auto red = std::make_shared<redactor>();
    red->add_secret(test_key);
    record_writer records(tmp.path(), red);
    auto opts = options_for(server, api_kind::responses);
    opts.redact = red;
    openai_client client(ioc.get_executor(), opts);
    client.set_observer(records.observer());
    log_capture logs;
    bool fatal = false;
    const auto msg = error_of(ioc, client, propose_request(true), &fatal);
    BOOST_TEST(fatal);
    BOOST_TEST(msg.find("the API key was rejected by " + server.base_url() + " (HTTP 401") == 0u, msg);
    BOOST_TEST(!contains(msg, "SECRET"), msg);  // the server echoed the key; the message does not
    BOOST_TEST(contains(msg, "[REDACTED]"), msg);
    BOOST_TEST(!contains(logs.all(), "SECRET"));
    BOOST_TEST(read_records(tmp.path()).size() == 1u);
    check_no_key(tmp.path());
    server.stop();
}

// A server that echoes the key where an excerpt of its answer is cut (the 300 bytes of an error
// message, the 300 of a body in the status line) or with its characters \u-escaped in JSON: no part
// of the key reaches the error, the log or the records, whatever bytes come before it.
BOOST_AUTO_TEST_CASE(echoed_key_cut_by_an_excerpt_or_escaped_is_redacted)
{
    std::string escaped;
    for (char c : test_key)
    {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(c));
        escaped += hex;
    }
    struct echo_case
    {
        unsigned status;
        std::string body;
    };
    std::vector<echo_case> cases;
    for (std::size_t pad = 250; pad < 300; pad += 7)
    {
        const std::string filler(pad, 'x');
        cases.push_back({401, R"({"error": {"message": ")" + filler + test_key + R"("}})"});
        cases.push_back({400, R"({"error": {"message": ")" + filler + test_key + R"("}})"});
        cases.push_back({500, filler + test_key});
    }
    cases.push_back({400, R"({"error": {"message": "bad request", "header": "Bearer )" + escaped + R"("}})"});
    cases.push_back({401, R"({"error": {"message": "Incorrect API key provided: )" + escaped + R"("}})"});
    for (const auto& ec : cases)
    {
        BOOST_TEST_CONTEXT("HTTP " << ec.status << ", body of " << ec.body.size() << " bytes")
        {
            fake_http_server server([&](const recorded_request&)
                                    { return response_plan::json(ec.status, ec.body); });
            test::temp_dir tmp;
            auto red = std::make_shared<redactor>();
            red->add_secret(test_key);
            record_writer records(tmp.path(), red);
            openai_client_options opts;
            opts.api = api_kind::responses;
            opts.base_url = server.base_url() + "/v1";
            opts.model = "gpt-5-mini";
            opts.key = api_key{test_key, "the test"};
            opts.retry.max_attempts = 1;
            opts.request_timeout = 10s;
            opts.redact = red;
            openai_client client(ioc.get_executor(), opts);
            client.set_observer(records.observer());
            log_capture logs;
            // The key's first 9 characters, plain or \u-escaped (once in a message, twice in a
            // record, where JSON escapes the backslash again).
            auto check = [&](std::string text, const std::string& where)
            {
                BOOST_TEST(!contains(text, "sk-test-S"), where);
                std::erase(text, '\\');
                BOOST_TEST(!contains(text, "u0073u006bu002du0074u0065u0073u0074u002du0053"), where);
            };
            check(error_of(ioc, client, propose_request(false, false)), "the error");
            check(logs.all(), "the log");
            for (const auto& e : fs::recursive_directory_iterator(tmp.path()))
                if (e.is_regular_file())
                    check(read_text_file(e.path()), e.path().string());
        }
    }
}

BOOST_AUTO_TEST_CASE(unknown_model_is_fatal)
{
    fake_openai_options fo;
    fo.models = {"gpt-5"};
    fake_openai_server server(fo);
    openai_client client(ioc.get_executor(), options_for(server, api_kind::responses));
    bool fatal = false;
    const auto msg = error_of(ioc, client, propose_request(false), &fatal);
    BOOST_TEST(fatal);
    BOOST_TEST(msg.find("model 'gpt-5-mini' is not available at " + server.base_url()) == 0u, msg);
    BOOST_TEST(contains(msg, "check --model"));
    server.stop();
}

BOOST_AUTO_TEST_CASE(unreachable_base_url_is_fatal)
{
    // A port that was just free: nothing listens there.
    std::uint16_t port = 0;
    {
        asio::ip::tcp::acceptor a(ioc, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        port = a.local_endpoint().port();
    }
    openai_client_options o;
    o.api = api_kind::chat;
    o.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    o.model = "m";
    o.retry.max_attempts = 2;
    o.retry.base_delay = 5ms;
    openai_client client(ioc.get_executor(), o);
    bool fatal = false;
    const auto msg = error_of(ioc, client, propose_request(false), &fatal);
    BOOST_TEST(fatal);
    BOOST_TEST(
        msg.find("cannot reach http://127.0.0.1:" + std::to_string(port) + "/v1: connection refused") == 0u,
        msg);
}

BOOST_AUTO_TEST_CASE(tls_certificates)
{
    fake_openai_options fo;
    fo.tool_calls = false;
    fake_openai_server server(fo, transport::https);
    {
        // Not trusted: fatal, with the hint for a loopback server.
        openai_client client(ioc.get_executor(), options_for(server, api_kind::chat));
        bool fatal = false;
        const auto msg = error_of(ioc, client, propose_request(false), &fatal);
        BOOST_TEST(fatal);
        BOOST_TEST(contains(msg, "does not verify"), msg);
        BOOST_TEST(contains(msg, "--insecure-local"), msg);
    }
    {
        // Trusted through the extra CA file: works, verified.
        auto o = options_for(server, api_kind::chat);
        o.extra_ca_file = server.ca_file();
        openai_client client(ioc.get_executor(), o);
        BOOST_TEST(contains(complete(ioc, client, propose_request(true)).text, "kernel_source"));
    }
    {
        // --insecure-local: verification off for a loopback URL.
        auto o = options_for(server, api_kind::responses);
        o.insecure_local = true;
        openai_client client(ioc.get_executor(), o);
        BOOST_TEST(contains(complete(ioc, client, propose_request(false)).text, "kernel_source"));
    }
    server.stop();
    // ... and refused for any other host, before any request.
    openai_client_options o;
    o.base_url = "https://api.example.com/v1";
    o.model = "m";
    o.key = api_key{test_key, "t"};
    o.insecure_local = true;
    try
    {
        openai_client client(ioc.get_executor(), o);
        BOOST_ERROR("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(contains(e.what(), "only for a loopback --base-url"), e.what());
    }
}

BOOST_AUTO_TEST_CASE(bad_configuration_messages)
{
    auto fails = [&](openai_client_options o, const std::string& needle)
    {
        try
        {
            openai_client client(ioc.get_executor(), std::move(o));
            BOOST_ERROR("expected user_error for " << needle);
        }
        catch (const user_error& e)
        {
            BOOST_TEST(contains(e.what(), needle), e.what());
        }
    };
    openai_client_options o;
    o.model = "gpt-5-mini";
    fails(o, "no OpenAI API key");  // api.openai.com without a key
    o.base_url = "ftp://x";
    o.key = api_key{test_key, "t"};
    fails(o, "--base-url");
    o.base_url = "http://127.0.0.1:1/v1";
    o.model = "";
    fails(o, "--model is empty");
}

BOOST_AUTO_TEST_CASE(replay_reserves_recorded_answers_per_branch)
{
    test::temp_dir tmp;
    const auto llm_dir = tmp.path() / "run-001" / "llm";
    std::vector<std::string> original;
    {
        fake_openai_server server;
        record_writer records(llm_dir, nullptr);
        openai_client client(ioc.get_executor(), options_for(server, api_kind::chat));
        client.set_observer(records.observer());
        for (int i = 0; i < 3; ++i)
            for (int b = 0; b < 2; ++b)
            {
                auto req = propose_request(i % 2 == 0);
                req.branch = b;
                req.iteration = i;
                original.push_back(complete(ioc, client, req).text + "|" + std::to_string(b));
            }
        server.stop();
    }
    test::temp_dir tmp2;
    record_writer records2(tmp2.path(), nullptr);
    // Asked one at a time in another order, each answer waits a short grace for the earlier ones.
    replay_client replay(tmp.path() / "run-001", 20ms);
    replay.set_observer(records2.observer());
    BOOST_TEST(replay.model() == "gpt-5-mini");
    BOOST_TEST(replay.remaining().at(0) == 3u);
    log_capture logs;
    // Branch 1 asks first this time: per-branch order is what counts.
    std::vector<std::string> replayed(6);
    for (int b : {1, 0})
        for (int i = 0; i < 3; ++i)
        {
            auto req = propose_request(i % 2 == 0);
            req.branch = b;
            req.iteration = i;
            const auto r = complete(ioc, replay, req);
            BOOST_TEST(r.usage.cost_usd == 0);
            BOOST_TEST(r.usage.input > 0);  // token counts are kept
            replayed[static_cast<std::size_t>(i * 2 + b)] = r.text + "|" + std::to_string(b);
        }
    BOOST_TEST(replayed == original);
    BOOST_TEST(read_records(tmp2.path()).size() == 6u);  // the replayed run has its own records
    // Exhausted, and a branch the recorded run never had.
    auto req = propose_request(false);
    BOOST_CHECK_THROW(complete(ioc, replay, req), replay_exhausted);
    req.branch = 7;
    BOOST_CHECK_THROW(complete(ioc, replay, req), replay_exhausted);
    BOOST_TEST(!contains(logs.all(), "differs from"));  // identical requests: no mismatch warning
    BOOST_TEST(contains(logs.all(), "out of the recorded order"));

    // A changed prompt is still served, with one warning per branch.
    replay_client again(tmp.path() / "run-001", 20ms);
    auto changed = propose_request(false);
    changed.messages.back().content = "[warpsmith task=propose] something else";
    complete(ioc, again, changed);
    complete(ioc, again, changed);
    const auto all = logs.all();
    BOOST_TEST(contains(all, "differs from the recorded one"));
    BOOST_TEST(all.find("differs from") == all.rfind("differs from"));

    BOOST_CHECK_THROW(replay_client(tmp.path() / "nope"), user_error);
    BOOST_CHECK_THROW(replay_client(tmp2.path() / "empty-dir-that-does-not-exist"), user_error);
}

BOOST_AUTO_TEST_CASE(replay_serves_concurrent_branches_in_the_recorded_order)
{
    // Recorded order: branch 1, branch 0, branch 1. Replayed with branch 0 asking first and both
    // branches in flight at once, the answers still come out in the recorded order, so a search
    // assigns the same candidate ids as the recorded run did.
    test::temp_dir tmp;
    const auto llm_dir = tmp.path() / "run-001" / "llm";
    {
        fake_openai_server server;
        record_writer records(llm_dir, nullptr);
        openai_client client(ioc.get_executor(), options_for(server, api_kind::chat));
        client.set_observer(records.observer());
        for (int b : {1, 0, 1})
        {
            auto req = propose_request(false);
            req.branch = b;
            complete(ioc, client, req);
        }
        server.stop();
    }
    replay_client replay(tmp.path() / "run-001");
    std::vector<int> order;
    auto branch = [&](int b, int asks) -> asio::awaitable<void>
    {
        for (int i = 0; i < asks; ++i)
        {
            auto req = propose_request(false);
            req.branch = b;
            co_await replay.complete(req);
            order.push_back(b);
        }
    };
    log_capture logs;
    asio::co_spawn(ioc, branch(0, 1), asio::detached);
    asio::co_spawn(ioc, branch(1, 2), asio::detached);
    ioc.restart();
    ioc.run_for(10s);
    BOOST_TEST((order == std::vector<int>{1, 0, 1}));
    BOOST_TEST(!contains(logs.all(), "out of the recorded order"));  // no grace period ran out
}

BOOST_AUTO_TEST_CASE(a_diverged_replay_waits_for_missing_answers_once)
{
    // Recorded: branch 0, then branch 1 twice. The replay runs branch 1 only (fewer --branches):
    // its first answer waits the grace period for branch 0's answer, which never comes; its
    // second must not wait again, or every answer of a diverged replay would cost the grace.
    test::temp_dir tmp;
    {
        fake_openai_server server;
        record_writer records(tmp.path() / "run-001" / "llm", nullptr);
        openai_client client(ioc.get_executor(), options_for(server, api_kind::chat));
        client.set_observer(records.observer());
        for (int b : {0, 1, 1})
        {
            auto req = propose_request(false);
            req.branch = b;
            complete(ioc, client, req);
        }
        server.stop();
    }
    replay_client replay(tmp.path() / "run-001", 2s);
    log_capture logs;
    auto branch1 = [&]() -> asio::awaitable<int>
    {
        int served = 0;
        for (int i = 0; i < 2; ++i)
        {
            auto req = propose_request(false);
            req.branch = 1;
            co_await replay.complete(req);
            ++served;
        }
        co_return served;
    };
    // One grace period fits in the limit, two do not.
    BOOST_TEST(run_coro(ioc, branch1(), 3500ms) == 2);
    const auto all = logs.all();
    BOOST_TEST(contains(all, "out of the recorded order"));
    BOOST_TEST(all.find("out of the recorded order") == all.rfind("out of the recorded order"));
    // Branch 0's answer is still there for it, without waiting.
    BOOST_CHECK_NO_THROW(run_coro(ioc, replay.complete(propose_request(false)), 1s));
}

BOOST_AUTO_TEST_SUITE_END()
