#include "agents/llm/provider_errors.hpp"

#include "agents/llm/model_client.hpp"
#include "agents/llm/responses_mapping.hpp"
#include "harness/core/error.hpp"

namespace warpsmith::llm
{

namespace
{

bool contains(const std::string& haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string::npos;
}

std::string lower(std::string s)
{
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

std::string status_failure_line(const http::http_status_error& e,
                                const std::string& api_message,
                                const std::string& api_code,
                                const redactor& redact)
{
    // e.what() is "HTTP 500 Internal Server Error from <request> (after 3 attempts): <excerpt of the
    // body>" (http_message.hpp). The body of an API error is a JSON object around one message, so
    // the message takes the excerpt's place: the status, the server's words and its code, once each.
    // system_error::what() ends with the category's text, which the caller's error adds again.
    std::string what = e.what();
    const std::string category = ": " + e.code().message();
    if (what.size() >= category.size() &&
        what.compare(what.size() - category.size(), category.size(), category) == 0)
        what.resize(what.size() - category.size());
    const std::string body_part = e.body().empty() ? std::string() : ": " + http::one_line_excerpt(e.body());
    if (api_message.empty() || body_part.empty() || what.size() < body_part.size() ||
        what.compare(what.size() - body_part.size(), body_part.size(), body_part) != 0)
        return redact.apply(std::string_view(what));
    std::string line = redact.apply(std::string_view(what).substr(0, what.size() - body_part.size()));
    line += ": " + api_message;
    if (!api_code.empty() && api_message.find(api_code) == std::string::npos)
        line += " [" + redact.apply(std::string_view(api_code)) + "]";
    return line;
}

std::exception_ptr map_status_failure(const http::http_status_error& e,
                                      const endpoint_context& ctx,
                                      const redactor& redact)
{
    const auto status = e.status();
    const auto msg = redact.apply(std::string_view(api_error_message(e.body())));
    const auto code = api_error_code(e.body());
    const std::string detail = "HTTP " + std::to_string(status) + (msg.empty() ? "" : ": " + msg);
    if (status == 401 || status == 403)
        return std::make_exception_ptr(fatal_provider_error(
            "the API key was rejected by " + ctx.base_url + " (" + detail + ")" +
            (ctx.key_source.empty() ? "; no key was sent (--api-key-env names the variable)"
                                    : "; it came from " + ctx.key_source)));
    const bool model_problem = code == "model_not_found" ||
                               (contains(lower(msg), "model") && (contains(lower(msg), "not found") ||
                                                                  contains(lower(msg), "does not exist")));
    if (status == 404 || (status == 400 && code == "model_not_found"))
    {
        if (model_problem)
            return std::make_exception_ptr(fatal_provider_error("model '" + ctx.model +
                                                                "' is not available at " + ctx.base_url +
                                                                " (" + detail + "); check --model"));
        return std::make_exception_ptr(fatal_provider_error(
            ctx.base_url + " has no " + (ctx.provider == "openai" ? "/responses" : "/chat/completions") +
            " endpoint (" + detail + "); check --base-url" +
            (ctx.provider == "openai" ? " or use --provider openai-chat for a Chat Completions server"
                                      : "")));
    }
    if (status == 429 && (code == "insufficient_quota" || contains(lower(msg), "quota")))
        return std::make_exception_ptr(fatal_provider_error(
            "the account behind the API key has no quota left at " + ctx.base_url + " (" + detail + ")"));
    return std::make_exception_ptr(
        system_error(make_error_code(errc::http_status), status_failure_line(e, msg, code, redact)));
}

std::exception_ptr map_transport_failure(const boost::system::system_error& e,
                                         const endpoint_context& ctx,
                                         const redactor& redact)
{
    const std::string what = redact.apply(std::string_view(e.what()));
    if (contains(what, "certificate verify failed"))
        return std::make_exception_ptr(fatal_provider_error(
            "the TLS certificate of " + ctx.base_url + " does not verify: " + what +
            (ctx.loopback ? "; for a local server with a self-signed certificate add --insecure-local"
                          : "")));
    if (contains(what, "TLS handshake"))
        return std::make_exception_ptr(
            fatal_provider_error("cannot talk TLS to " + ctx.base_url + ": " + what +
                                 (ctx.loopback ? " (is the server plain http?)" : "")));
    if (contains(what, "connection refused"))
        return std::make_exception_ptr(fatal_provider_error(
            "cannot reach " + ctx.base_url + ": connection refused (is the server running?): " + what));
    if (contains(what, "host name not found"))
        return std::make_exception_ptr(
            fatal_provider_error("cannot reach " + ctx.base_url + ": host name not found; check --base-url"));
    return std::make_exception_ptr(system_error(e.code(), what));
}

}  // namespace warpsmith::llm
