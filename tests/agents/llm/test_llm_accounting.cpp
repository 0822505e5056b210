// Prices and accounting, API keys and redaction, llm/ records and the provider error mapping
// (agents/llm/price_table.hpp, credentials.hpp, llm_records.hpp, provider_errors.hpp).

#include "agents/http/http_message.hpp"
#include "agents/llm/credentials.hpp"
#include "agents/llm/llm_records.hpp"
#include "agents/llm/model_client.hpp"
#include "agents/llm/price_table.hpp"
#include "agents/llm/provider_errors.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>

using namespace warpsmith;
using namespace warpsmith::llm;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

token_usage usage(std::int64_t in, std::int64_t cached, std::int64_t out, std::int64_t reasoning = 0)
{
    token_usage u;
    u.input = in;
    u.cached_input = cached;
    u.output = out;
    u.reasoning = reasoning;
    return u;
}

void write(const fs::path& p, const std::string& text)
{
    std::ofstream(p) << text;
}

std::string message_of(std::exception_ptr e)
{
    try
    {
        std::rethrow_exception(e);
    }
    catch (const std::exception& x)
    {
        return x.what();
    }
    return {};
}

bool is_fatal(std::exception_ptr e)
{
    try
    {
        std::rethrow_exception(e);
    }
    catch (const fatal_provider_error&)
    {
        return true;
    }
    catch (...)
    {
        return false;
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(accounting_suite)

BOOST_AUTO_TEST_CASE(default_prices_and_cost)
{
    const auto t = price_table::defaults();
    // gpt-5-mini: $0.25 / 1M input, $0.025 cached, $2 output.
    const auto u = usage(1'000'000, 400'000, 100'000, 60'000);
    const double expected = 600'000 * 0.25 / 1e6 + 400'000 * 0.025 / 1e6 + 100'000 * 2.0 / 1e6;
    BOOST_TEST(std::abs(t.cost("gpt-5-mini", u) - expected) < 1e-12);
    // Dated snapshots match their family by the longest prefix; gpt-5-mini is not gpt-5.
    BOOST_TEST(std::abs(t.cost("gpt-5-mini-2025-08-07", u) - expected) < 1e-12);
    BOOST_TEST(t.find("gpt-5-2025-08-07")->input_per_mtok == 1.25);
    BOOST_TEST(!t.find("my-local-llama"));
    BOOST_TEST(t.cost("my-local-llama", u) == 0);
    BOOST_TEST(t.priced("gpt-5-mini", u).cost_usd == t.cost("gpt-5-mini", u));
}

BOOST_AUTO_TEST_CASE(overrides_from_a_file)
{
    test::temp_dir tmp;
    const auto f = tmp.path() / "prices.json";
    write(
        f,
        R"({"models": {"gpt-5-mini": {"input": 1, "output": 4}, "local": {"input": 0, "cached_input": 0, "output": 0}}})");
    const auto t = price_table::with_overrides(f);
    BOOST_TEST(t.find("gpt-5-mini")->cached_input_per_mtok == 1.0);  // defaults to input
    BOOST_TEST(std::abs(t.cost("gpt-5-mini", usage(1'000'000, 0, 1'000'000)) - 5.0) < 1e-12);
    BOOST_TEST(t.find("local").has_value());
    BOOST_TEST(t.find("gpt-4o").has_value());  // defaults kept

    auto fails = [&](const std::string& text, const std::string& needle)
    {
        write(f, text);
        try
        {
            price_table::with_overrides(f);
            BOOST_ERROR("no error for " << text);
        }
        catch (const user_error& e)
        {
            BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos, e.what());
        }
    };
    fails("[1]", "must be a JSON object");
    fails(R"({"prices": {}})", "'models' is missing");
    fails(R"({"models": {"m": {"input": -1, "output": 1}}})",
          "models.m.input: must be a non-negative number");
    fails(R"({"models": {"m": {"input": 1}}})", "needs both 'input' and 'output'");
    fails(R"({"models": {"m": {"input": 1, "output": 1, "cache": 2}}})", "unknown key 'cache'");
    fails("{not json", "prices.json");
    BOOST_CHECK_THROW(price_table::with_overrides(tmp.path() / "missing.json"), user_error);
}

BOOST_AUTO_TEST_CASE(ledger_per_branch_and_total)
{
    usage_ledger l;
    auto a = usage(100, 10, 20, 5);
    a.cost_usd = 0.5;
    l.add(0, a);
    l.add(1, a);
    l.add(-1, a);
    BOOST_TEST(l.total().input == 300);
    BOOST_TEST(l.total().cost_usd == 1.5);
    BOOST_TEST(l.branch(1).output == 20);
    BOOST_TEST(l.requests() == 3);
    const auto j = l.to_json();
    BOOST_TEST(j.at("branches").as_object().contains("inference"));
    const auto back = usage_ledger::from_json(j);
    BOOST_TEST(back.total().input == 300);
    BOOST_TEST(back.branch(-1).reasoning == 5);
    BOOST_TEST(back.requests() == 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(credentials_suite)

BOOST_AUTO_TEST_CASE(dotenv_parsing)
{
    const auto v = parse_dotenv(
        "# comment\nOPENAI_API_KEY=sk-abc\nexport OTHER = \"quoted # not a comment\"\n"
        "SINGLE='a b'\nTRAIL=value # comment\nESC=\"x\\ny\"\nbroken line\n=novalue\nCRLF=z\r\n");
    BOOST_TEST(v.at("OPENAI_API_KEY") == "sk-abc");
    BOOST_TEST(v.at("OTHER") == "quoted # not a comment");
    BOOST_TEST(v.at("SINGLE") == "a b");
    BOOST_TEST(v.at("TRAIL") == "value");
    BOOST_TEST(v.at("ESC") == "x\ny");
    BOOST_TEST(v.at("CRLF") == "z");
    BOOST_TEST(v.size() == 6u);
}

BOOST_AUTO_TEST_CASE(key_from_environment_then_dotenv)
{
    test::temp_dir tmp;
    const auto env = tmp.path() / ".env";
    write(env, "WARPSMITH_TEST_KEY=sk-from-dotenv-123\n");
    ::unsetenv("WARPSMITH_TEST_KEY");
    auto k = find_api_key("WARPSMITH_TEST_KEY", env);
    BOOST_REQUIRE(k);
    BOOST_TEST(k->value == "sk-from-dotenv-123");
    BOOST_TEST(k->source.find(".env") != std::string::npos);
    BOOST_TEST(k->source.find("sk-") == std::string::npos);  // the source never names the key
    ::setenv("WARPSMITH_TEST_KEY", "sk-from-env-456", 1);
    k = find_api_key("WARPSMITH_TEST_KEY", env);
    BOOST_TEST(k->value == "sk-from-env-456");
    BOOST_TEST(k->source == "environment variable WARPSMITH_TEST_KEY");
    ::unsetenv("WARPSMITH_TEST_KEY");
    BOOST_TEST(!find_api_key("WARPSMITH_TEST_KEY", tmp.path() / "nope.env"));
}

BOOST_AUTO_TEST_CASE(redactor_in_text_and_json)
{
    redactor r;
    r.add_secret("sk-SECRET-0123456789");
    r.add_secret("short");  // ignored: too short to be a key
    BOOST_TEST(r.apply(std::string_view("key sk-SECRET-0123456789 and sk-SECRET-0123456789")) ==
               "key [REDACTED] and [REDACTED]");
    BOOST_TEST(r.apply(std::string_view("short stays")) == "short stays");
    const auto v = r.apply(json::value(
        json::object{{"a", json::array{"Bearer sk-SECRET-0123456789"}}, {"sk-SECRET-0123456789", 1}}));
    const auto s = json::serialize(v);
    BOOST_TEST(s.find("SECRET") == std::string::npos);
    BOOST_TEST(s.find("Bearer [REDACTED]") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(records_suite)

BOOST_AUTO_TEST_CASE(file_names)
{
    BOOST_TEST(record_file_name(7, 2, 3, "propose") == "0007-b2-i3-propose.json");
    BOOST_TEST(record_file_name(1, -1, 0, "infer") == "0001-inference-infer.json");
    BOOST_TEST(record_file_name(12, 0, 1, "a/b c") == "0012-b0-i1-a_b_c.json");
}

BOOST_AUTO_TEST_CASE(writer_records_redacts_and_continues_numbering)
{
    test::temp_dir tmp;
    const std::string key = "sk-test-SECRET-abcdefghijkl";
    auto red = std::make_shared<redactor>();
    red->add_secret(key);

    model_request req;
    req.model = "gpt-5-mini";
    req.branch = 1;
    req.iteration = 2;
    req.purpose = "improve";
    req.stream = true;
    req.messages.push_back(message::user("hello"));
    exchange_trace trace;
    trace.provider = "openai";
    trace.url = "https://api.openai.com/v1/responses";
    trace.request_headers = http::format_headers_redacted({{"Authorization", "Bearer " + key}});
    trace.request_body = json::object{{"input", "hello"}};
    trace.events.push_back(json::object{{"t_ms", 1.0},
                                        {"event", "response.output_text.delta"},
                                        {"data", json::object{{"delta", "echo " + key}}}});
    trace.t_send = std::chrono::system_clock::now();
    trace.t_first_byte = trace.t_send + std::chrono::milliseconds(120);
    trace.t_complete = trace.t_send + std::chrono::milliseconds(900);
    trace.status = 200;
    trace.attempts = 1;
    model_response resp;
    resp.text = "answer mentioning " + key;
    resp.tool_calls.push_back(tool_call{"call_1", "compile", "{}"});
    resp.usage = usage(100, 20, 30, 10);
    resp.usage.cost_usd = 0.001;

    std::string file;
    {
        record_writer w(tmp.path() / "llm", red);
        file = w.write(req, &resp, trace);
        BOOST_TEST(file == "0001-b1-i2-improve.json");
        w.attach_tool_results(
            file, json::array{json::object{{"id", "call_1"}, {"name", "compile"}, {"output", "{}"}}});
        trace.error = "HTTP 401: Incorrect API key provided: " + key;
        BOOST_TEST(w.write(req, nullptr, trace) == "0002-b1-i2-improve.json");
        BOOST_TEST(w.ledger().total().input == 100);  // failed exchanges add no usage
    }
    const auto rec = read_json_file(tmp.path() / "llm" / file).as_object();
    BOOST_TEST(rec.at("format") == record_format);
    BOOST_TEST(rec.at("branch") == 1);
    BOOST_TEST(rec.at("iteration") == 2);
    BOOST_TEST(rec.at("stream") == true);
    BOOST_TEST(rec.at("timestamps").as_object().contains("first_byte"));
    BOOST_TEST(rec.at("latency_ms").at("first_byte").to_number<double>() == 120.0);
    BOOST_TEST(rec.at("latency_ms").at("complete").to_number<double>() == 900.0);
    BOOST_TEST(rec.at("usage").at("cached_input_tokens") == 20);
    BOOST_TEST(rec.at("usage").at("reasoning_tokens") == 10);
    BOOST_TEST(rec.at("tool_calls").as_array().size() == 1u);
    BOOST_TEST(rec.at("tool_results").as_array().size() == 1u);
    BOOST_TEST(rec.at("events").as_array().size() == 1u);

    // No file of the folder holds the key.
    for (const auto& e : fs::directory_iterator(tmp.path() / "llm"))
        BOOST_TEST(read_text_file(e.path()).find("SECRET") == std::string::npos, e.path());

    // A second writer (a later session) continues the numbering and the totals.
    record_writer again(tmp.path() / "llm", red);
    BOOST_TEST(again.write(req, &resp, trace) == "0003-b1-i2-improve.json");
    BOOST_TEST(again.ledger().total().input == 200);

    const auto back = read_records(tmp.path() / "llm");
    BOOST_REQUIRE_EQUAL(back.size(), 3u);
    BOOST_TEST(back[0].ok);
    BOOST_TEST(!back[1].ok);
    BOOST_TEST(back[0].response.tool_calls.size() == 1u);
    BOOST_TEST(back[0].response.usage.output == 30);
    BOOST_TEST(back[0].request_digest == request_digest(req));
}

BOOST_AUTO_TEST_CASE(the_request_digest_ignores_measured_numbers_but_not_words)
{
    BOOST_TEST(mask_numbers("c0007: 64.67 us, 8.64x; run-002 1e-3 2.5E+4") == "c#: # us, #x; run-# # #");
    BOOST_TEST(mask_numbers("sm_90 v1.2. end.") == "sm_# v#. end.");
    BOOST_TEST(mask_numbers("") == "");

    model_request a;
    a.messages.push_back(message::user("reference 558.78 us; c0003 is 2.24x"));
    model_request b = a;
    b.messages[0].content = "reference 558.58 us; c0001 is 2.23x";
    BOOST_TEST(request_digest(a) == request_digest(b));
    b.messages[0].content = "reference 558.58 us; c0001 is 2.23x faster";
    BOOST_TEST(request_digest(a) != request_digest(b));
}

BOOST_AUTO_TEST_CASE(reading_foreign_files_fails_with_the_file_name)
{
    test::temp_dir tmp;
    write(tmp.path() / "0001-b0-i1-x.json", R"({"hello": 1})");
    try
    {
        read_records(tmp.path());
        BOOST_ERROR("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("0001-b0-i1-x.json") != std::string::npos);
    }
    BOOST_CHECK_THROW(read_records(tmp.path() / "missing"), user_error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(provider_errors_suite)

BOOST_AUTO_TEST_CASE(status_mapping)
{
    redactor red;
    red.add_secret("sk-live-0123456789abcdef");
    endpoint_context ctx{
        "openai", "https://api.openai.com/v1", "gpt-5-mini", "environment variable OPENAI_API_KEY", false};
    auto status = [&](unsigned s, const std::string& body)
    {
        return map_status_failure(
            http::http_status_error(s, "x", {}, body, "POST https://api.openai.com/v1/responses", 1),
            ctx,
            red);
    };
    auto e = status(
        401,
        R"({"error": {"message": "Incorrect API key provided: sk-live-0123456789abcdef", "code": "invalid_api_key"}})");
    BOOST_TEST(is_fatal(e));
    BOOST_TEST(message_of(e).find("the API key was rejected by https://api.openai.com/v1 (HTTP 401") == 0u,
               message_of(e));
    BOOST_TEST(message_of(e).find("sk-live") == std::string::npos);
    BOOST_TEST(message_of(e).find("environment variable OPENAI_API_KEY") != std::string::npos);

    e = status(404,
               R"({"error": {"message": "The model `gpt-9` does not exist", "code": "model_not_found"}})");
    BOOST_TEST(is_fatal(e));
    BOOST_TEST(message_of(e).find("model 'gpt-5-mini' is not available") == 0u, message_of(e));

    e = status(404, "<html>Not Found</html>");
    BOOST_TEST(is_fatal(e));
    BOOST_TEST(message_of(e).find("has no /responses endpoint") != std::string::npos, message_of(e));

    e = status(429,
               R"({"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}})");
    BOOST_TEST(is_fatal(e));
    BOOST_TEST(message_of(e).find("no quota left") != std::string::npos);

    for (unsigned s : {400u, 422u, 429u, 500u, 503u})
    {
        e = status(s, R"({"error": {"message": "something"}})");
        BOOST_TEST(!is_fatal(e), s);
        BOOST_TEST(message_of(e).find("HTTP " + std::to_string(s)) != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(a_status_failure_says_each_thing_once)
{
    // The fake server's 500 used to come out as "HTTP 500 ... from ...: {the JSON body with the
    // message} (HTTP 500: the message)": the status and the message twice in one failure line.
    redactor red;
    red.add_secret("sk-live-0123456789abcdef");
    endpoint_context ctx{"openai-chat", "http://127.0.0.1:8000/v1", "m", "", true};
    const auto count = [](const std::string& s, const std::string& what)
    {
        std::size_t n = 0;
        for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1))
            ++n;
        return n;
    };
    const std::string message = "The server had an error while processing your request.";
    auto e = map_status_failure(
        http::http_status_error(500,
                                "Internal Server Error",
                                {},
                                R"({"error": {"message": ")" + message + R"(", "type": "server_error"}})",
                                "POST http://127.0.0.1:8000/v1/chat/completions",
                                3),
        ctx,
        red);
    const auto line = message_of(e);
    BOOST_TEST(!is_fatal(e));
    BOOST_TEST(
        line.rfind("HTTP 500 Internal Server Error from POST http://127.0.0.1:8000/v1/chat/completions "
                   "(after 3 attempts): " +
                       message,
                   0) == 0u,
        line);
    BOOST_TEST(count(line, "HTTP error status") == 1u, line);  // the category's text, once
    BOOST_TEST(count(line, message) == 1u, line);
    BOOST_TEST(count(line, "HTTP 500") == 1u, line);

    // The API's code is named when the message does not already say it; secrets stay out.
    e = map_status_failure(
        http::http_status_error(
            400,
            "Bad Request",
            {},
            R"({"error": {"message": "Bad key sk-live-0123456789abcdef here", "code": "invalid_value"}})",
            "POST http://127.0.0.1:8000/v1/chat/completions",
            1),
        ctx,
        red);
    BOOST_TEST(message_of(e).find("sk-live") == std::string::npos, message_of(e));
    BOOST_TEST(message_of(e).find("[invalid_value]") != std::string::npos, message_of(e));
    BOOST_TEST(count(message_of(e), "HTTP 400") == 1u, message_of(e));

    // A body that is no API error stays as the excerpt, once.
    e = map_status_failure(http::http_status_error(
                               502, "Bad Gateway", {}, "<html>upstream down</html>", "POST http://x/v1/c", 1),
                           ctx,
                           red);
    BOOST_TEST(count(message_of(e), "upstream down") == 1u, message_of(e));
    BOOST_TEST(count(message_of(e), "HTTP 502") == 1u, message_of(e));
}

BOOST_AUTO_TEST_CASE(transport_mapping)
{
    redactor red;
    endpoint_context ctx{"openai-chat", "https://127.0.0.1:8443/v1", "m", "", true};
    auto transport = [&](const std::string& what)
    {
        return map_transport_failure(
            system_error(boost::system::errc::make_error_code(boost::system::errc::io_error), what),
            ctx,
            red);
    };
    auto e = transport(
        "POST https://127.0.0.1:8443/v1/chat/completions: TLS handshake with 127.0.0.1:8443 failed: "
        "certificate verify failed (self-signed certificate)");
    BOOST_TEST(is_fatal(e));
    BOOST_TEST(message_of(e).find("does not verify") != std::string::npos);
    BOOST_TEST(message_of(e).find("--insecure-local") != std::string::npos);
    e = transport(
        "POST http://127.0.0.1:9/v1/chat/completions: connection refused while connecting (after 4 "
        "attempts)");
    BOOST_TEST(is_fatal(e));
    BOOST_TEST(message_of(e).find("cannot reach https://127.0.0.1:8443/v1") == 0u);
    e = transport("POST http://nohost.invalid/v1: host name not found while resolving nohost.invalid");
    BOOST_TEST(is_fatal(e));
    e = transport("POST http://127.0.0.1:9/v1: timeout while reading the response headers");
    BOOST_TEST(!is_fatal(e));
}

BOOST_AUTO_TEST_SUITE_END()
