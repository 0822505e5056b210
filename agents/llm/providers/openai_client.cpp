#include "agents/llm/providers/openai_client.hpp"

#include "agents/llm/protocol_error.hpp"
#include "agents/llm/provider_errors.hpp"
#include "agents/llm/responses_mapping.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/core/secret_redaction.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

namespace warpsmith::llm
{

namespace asio = boost::asio;
namespace json = boost::json;
using clock_type = std::chrono::system_clock;

namespace
{

constexpr const char* default_base_url = "https://api.openai.com/v1";

bool is_protocol_failure(const boost::system::system_error& e)
{
    // Answers that arrived but cannot be used: worth asking again.
    const std::string what = e.what();
    return e.code() == make_error_code(errc::llm_protocol) ||
           what.find("after part of the body was delivered") != std::string::npos ||
           what.find("truncated response") != std::string::npos;
}

bool mentions_structured_output(const std::string& body)
{
    for (const char* word : {"response_format", "json_schema", "structured", "grammar"})
        if (body.find(word) != std::string::npos)
            return true;
    return false;
}

double ms_between(clock_type::time_point a, clock_type::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

openai_client::openai_client(asio::any_io_executor ex, openai_client_options opts)
    : opts_(std::move(opts)), failure_policy_(opts_.retry, opts_.retry_seed ? opts_.retry_seed + 1 : 0)
{
    if (opts_.base_url.empty())
        opts_.base_url = default_base_url;
    const auto url = http::parse_http_url(opts_.base_url, "--base-url");
    base_printable_ = url.to_string();
    loopback_ = http::is_loopback_host(url.host);
    if (opts_.insecure_local && !loopback_)
        throw user_error(
            "--insecure-local turns TLS verification off only for a loopback --base-url (127.0.0.1, ::1, "
            "localhost); '" +
            url.host + "' is not one");
    if (opts_.key && !url.is_https() && !loopback_)
        throw user_error("refusing to send the API key over plain http to '" + url.host +
                         "': use an https --base-url (plain http is allowed only for loopback hosts)");
    if (!opts_.key && url.host == "api.openai.com")
        throw user_error(
            "no OpenAI API key: set OPENAI_API_KEY (or put OPENAI_API_KEY=... in ./.env), or name another "
            "variable with --api-key-env");
    if (opts_.key)
    {
        redact_.add_secret(opts_.key->value);
        // Process-wide too: excerpts of the server's answers are cut after this redaction
        // (http::one_line_excerpt), and a cut key is past any redaction that comes later.
        register_secret(opts_.key->value);
    }
    if (opts_.model.empty())
        throw user_error("--model is empty");
    if (!opts_.prices)
        opts_.prices = std::make_shared<price_table>(price_table::defaults());

    http::http_client_options ho;
    ho.base_url = opts_.base_url;
    ho.verify_tls = !opts_.insecure_local;
    ho.extra_ca_file = opts_.extra_ca_file;
    ho.connect_timeout = opts_.connect_timeout;
    ho.request_timeout = opts_.request_timeout;
    ho.stream_idle_timeout = opts_.stream_idle_timeout;
    ho.max_concurrent_requests = opts_.max_concurrent_requests;
    ho.retry = opts_.retry;
    ho.retry_seed = opts_.retry_seed;
    ho.proxy = opts_.proxy;
    ho.final_answer = [](const http::http_response& r) -> std::optional<std::string>
    {
        // A rate limit passes; an exhausted quota does not, however long one waits.
        if (r.status == 429 && api_error_code(r.body) == "insufficient_quota")
            return "HTTP 429 insufficient_quota (not retried: waiting does not refill a quota)";
        return std::nullopt;
    };
    http_ = std::make_unique<http::http_client>(ex, std::move(ho));
}

openai_client::~openai_client() = default;

std::string openai_client::provider() const
{
    return opts_.api == api_kind::responses ? "openai" : "openai-chat";
}

bool openai_client::structured_output() const
{
    if (opts_.structured == structured_mode::fenced)
        return false;
    return opts_.api == api_kind::responses || opts_.chat_caps.json_schema;
}

json::object openai_client::body_for(const model_request& req) const
{
    const bool responses = opts_.api == api_kind::responses;
    model_request effective = req;
    if (!structured_output())
        effective.schema.reset();
    if (no_reasoning_.count(req.model))
        effective.reasoning_effort.clear();
    chat_capabilities caps = opts_.chat_caps;
    caps.reasoning_effort = caps.reasoning_effort && !no_reasoning_.count(req.model);
    json::object body = responses ? build_responses_body(effective) : build_chat_body(effective, caps);
    if (opts_.store)
    {
        body["store"] = *opts_.store;
        // Without storage the reasoning items sent back in a tool round cannot be looked up by id;
        // their encrypted content travels with them instead.
        if (responses && !*opts_.store)
            body["include"] = json::array{"reasoning.encrypted_content"};
    }
    return body;
}

bool openai_client::learn_refused_parameter(const http::http_status_error& e,
                                            const model_request& req,
                                            const json::object& sent)
{
    if (e.status() != 400)
        return false;
    const auto code = api_error_code(e.body());
    const auto param = api_error_param(e.body());
    const auto message = api_error_message(e.body());
    const bool unsupported = code == "unsupported_parameter" ||
                             message.find("nsupported parameter") != std::string::npos ||
                             message.find("nrecognized request argument") != std::string::npos;
    if (!unsupported)
        return false;
    const bool responses = opts_.api == api_kind::responses;
    const bool sent_reasoning = sent.contains(responses ? "reasoning" : "reasoning_effort");
    if (sent_reasoning &&
        (param.rfind("reasoning", 0) == 0 || message.find("reasoning") != std::string::npos))
    {
        // Requests already in flight learn it too; only the first says so.
        if (no_reasoning_.insert(req.model).second)
            log_warn(provider() + ": model '" + req.model +
                     "' does not take reasoning parameters (HTTP 400 unsupported_parameter); asking "
                     "again without them, and leaving them out for the rest of the run");
        return true;
    }
    if (!responses)
    {
        const bool refused_new =
            sent.contains("max_completion_tokens") &&
            (param == "max_completion_tokens" || message.find("max_completion_tokens") != std::string::npos);
        const bool refused_old = sent.contains("max_tokens") &&
                                 (param == "max_tokens" || message.find("'max_tokens'") != std::string::npos);
        if (refused_new || refused_old)
        {
            if (opts_.chat_caps.max_completion_tokens == refused_new)
            {
                opts_.chat_caps.max_completion_tokens = !refused_new;
                log_warn(base_printable_ + " refused " +
                         (refused_new ? "max_completion_tokens" : "max_tokens") + " (HTTP 400); sending " +
                         (refused_new ? "max_tokens" : "max_completion_tokens") + " from now on");
            }
            return true;
        }
    }
    return false;
}

asio::awaitable<model_response> openai_client::complete(model_request req)
{
    const bool responses = opts_.api == api_kind::responses;
    const std::string path = responses ? "/responses" : "/chat/completions";
    if (req.model.empty())
        req.model = opts_.model;
    endpoint_context ctx{
        provider(), base_printable_, req.model, opts_.key ? opts_.key->source : "", loopback_};
    const redactor& redact = opts_.redact ? *opts_.redact : redact_;

    int failed_attempts = 0;  // server_reported_failure answers, against retry.max_attempts
    int learnt = 0;           // requests sent again without a refused parameter
    for (int protocol_attempt = 1;;)
    {
        exchange_trace trace;
        trace.provider = provider();
        trace.url = base_printable_ + path;
        json::object body = body_for(req);
        trace.request_body = body;

        http::http_request hr;
        hr.method = "POST";
        hr.path = path;
        hr.headers.emplace_back("Content-Type", "application/json");
        if (opts_.key)
            hr.headers.emplace_back("Authorization", "Bearer " + opts_.key->value);
        if (!opts_.organization.empty())
            hr.headers.emplace_back("OpenAI-Organization", opts_.organization);
        if (!opts_.project.empty())
            hr.headers.emplace_back("OpenAI-Project", opts_.project);
        hr.body = to_json_text(body);
        hr.timeout = opts_.request_timeout;
        trace.request_headers = http::format_headers_redacted(hr.headers);
        trace.t_send = clock_type::now();

        model_response resp;
        std::exception_ptr failure;
        try
        {
            if (req.stream)
            {
                responses_stream rs;
                chat_stream cs;
                http::http_client::event_handler on_event = [&](const http::sse_event& ev)
                {
                    const auto now = clock_type::now();
                    if (!trace.t_first_byte)
                        trace.t_first_byte = now;
                    boost::system::error_code ec;
                    json::value data = json::parse(ev.data, ec);
                    if (ec)
                        data = json::value(ev.data);
                    trace.events.push_back(json::object{{"t_ms", ms_between(trace.t_send, now)},
                                                        {"event", ev.event},
                                                        {"data", std::move(data)}});
                    if (responses)
                        rs.on_event(ev);
                    else
                        cs.on_event(ev);
                };
                auto hresp = co_await http_->stream_events(std::move(hr), on_event);
                trace.status = hresp.status;
                trace.attempts = hresp.attempts;
                if (!hresp.body.empty())
                {
                    // The server ignored "stream": true and sent one JSON document.
                    if (!trace.t_first_byte)
                        trace.t_first_byte = clock_type::now();
                    auto v = parse_wire_json(hresp.body, "the answer of " + trace.url + " is not JSON");
                    trace.response_body = v;
                    resp = responses ? parse_responses_body(v) : parse_chat_body(v);
                }
                else
                    resp = responses ? rs.result() : cs.result();
            }
            else
            {
                std::string text;
                http::http_client::body_handler on_body = [&](std::string_view piece)
                {
                    if (!trace.t_first_byte)
                        trace.t_first_byte = clock_type::now();
                    text.append(piece);
                };
                auto hresp = co_await http_->stream(std::move(hr), on_body);
                trace.status = hresp.status;
                trace.attempts = hresp.attempts;
                boost::system::error_code ec;
                auto v = json::parse(text, ec);
                if (ec)
                {
                    trace.response_body = json::value(text);
                    throw_protocol_error("the answer of " + trace.url + " is not JSON (" + ec.message() +
                                         "): " + http::one_line_excerpt(text, 200));
                }
                trace.response_body = v;
                resp = responses ? parse_responses_body(v) : parse_chat_body(v);
            }
        }
        catch (...)
        {
            failure = std::current_exception();
        }
        trace.t_complete = clock_type::now();

        if (!failure)
        {
            if (resp.model.empty())
                resp.model = req.model;
            // A server holds the key; an answer that carries it (in a kernel, a rationale, a tool
            // call) would put it into candidates/, best.cu, the journal and report.html.
            if (!redact.empty())
            {
                resp.text = redact.apply(resp.text);
                resp.refusal = redact.apply(resp.refusal);
                for (auto& call : resp.tool_calls)
                    call.arguments = redact.apply(call.arguments);
                if (!resp.output_items.empty())
                    resp.output_items = redact.apply(json::value(resp.output_items)).as_array();
            }
            resp.usage = opts_.prices->priced(opts_.prices->find(req.model) ? req.model : resp.model,
                                              resp.usage.plausible());
            resp.trace = trace;
            resp.record = notify(req, &resp, trace);
            co_return resp;
        }

        // Decide what the failure means; record it either way.
        std::exception_ptr to_throw;
        bool again = false;
        std::chrono::milliseconds wait{0};
        try
        {
            std::rethrow_exception(failure);
        }
        catch (const http::http_status_error& e)
        {
            trace.status = e.status();
            trace.attempts = e.attempts();
            boost::system::error_code ec;
            auto v = json::parse(e.body(), ec);
            trace.response_body = ec ? json::value(e.body()) : v;
            trace.error = redact.apply(std::string_view(e.what()));
            if (learn_refused_parameter(e, req, body) && ++learnt <= 3)
                again = true;
            else if (!responses && req.schema && opts_.chat_caps.json_schema &&
                     opts_.structured == structured_mode::automatic && e.status() == 400 &&
                     mentions_structured_output(e.body()))
            {
                opts_.chat_caps.json_schema = false;
                log_warn(base_printable_ +
                         " refused response_format json_schema (HTTP 400); asking again without it; "
                         "answers are parsed from fenced blocks from now on");
                again = true;
            }
            else
                to_throw = map_status_failure(e, ctx, redact);
        }
        catch (const fatal_provider_error& e)
        {
            trace.error = redact.apply(std::string_view(e.what()));
            to_throw = std::current_exception();
        }
        catch (const server_reported_failure& e)
        {
            trace.error = redact.apply(std::string_view(e.what()));
            ++failed_attempts;
            if (e.api_code() == "insufficient_quota")
                to_throw = std::make_exception_ptr(
                    fatal_provider_error("the account behind the API key has no quota left at " +
                                         base_printable_ + " (" + trace.error + ")"));
            else if (e.api_code().rfind("invalid_", 0) == 0 || failed_attempts >= opts_.retry.max_attempts)
                to_throw = std::make_exception_ptr(system_error(
                    e.code(),
                    trace.error + (failed_attempts > 1
                                       ? " (after " + std::to_string(failed_attempts) + " attempts)"
                                       : std::string())));
            else
            {
                wait = failure_policy_.backoff(failed_attempts);
                log_warn(provider() + ": " + trace.error + "; asking again in " +
                         std::to_string(wait.count()) + " ms (attempt " +
                         std::to_string(failed_attempts + 1) + " of " +
                         std::to_string(opts_.retry.max_attempts) + ")");
                again = true;
            }
        }
        catch (const boost::system::system_error& e)
        {
            trace.error = redact.apply(std::string_view(e.what()));
            if (is_protocol_failure(e) && protocol_attempt <= opts_.protocol_retries)
            {
                log_warn(provider() + ": " + trace.error + "; asking again (" +
                         std::to_string(protocol_attempt + 1) + " of " +
                         std::to_string(opts_.protocol_retries + 1) + ")");
                ++protocol_attempt;
                again = true;
            }
            else
                to_throw = map_transport_failure(e, ctx, redact);
        }
        catch (const std::exception& e)
        {
            trace.error = redact.apply(std::string_view(e.what()));
            to_throw = std::make_exception_ptr(std::runtime_error(trace.error));
        }
        notify(req, nullptr, trace);
        if (!again)
            std::rethrow_exception(to_throw);
        if (wait.count() > 0)
        {
            asio::steady_timer timer(co_await asio::this_coro::executor);
            timer.expires_after(wait);
            auto [wait_ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
            if (wait_ec)
                throw_system_error(wait_ec, provider() + ": cancelled while waiting to retry");
        }
    }
}

}  // namespace warpsmith::llm
