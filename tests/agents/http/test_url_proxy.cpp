#include "agents/http/http_message.hpp"
#include "agents/http/proxy_config.hpp"
#include "agents/http/url.hpp"
#include "harness/core/error.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>

using namespace warpsmith;
using namespace warpsmith::http;

namespace
{

std::string error_of(std::string_view text, bool userinfo = false)
{
    try
    {
        parse_http_url(text, "--base-url", userinfo);
    }
    catch (const user_error& e)
    {
        return e.what();
    }
    return {};
}

/// Sets environment variables for one test and restores them afterwards.
class scoped_env
{
public:
    void set(const char* name, const char* value)
    {
        const char* old = std::getenv(name);
        saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~scoped_env()
    {
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it)
        {
            if (it->second)
                ::setenv(it->first.c_str(), it->second->c_str(), 1);
            else
                ::unsetenv(it->first.c_str());
        }
    }

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(url)

BOOST_AUTO_TEST_CASE(base_urls)
{
    auto u = parse_http_url("https://api.openai.com/v1");
    BOOST_TEST(u.scheme == "https");
    BOOST_TEST(u.host == "api.openai.com");
    BOOST_TEST(u.port == 443);
    BOOST_TEST(u.path == "/v1");
    BOOST_TEST(u.host_header() == "api.openai.com");
    BOOST_TEST(u.authority() == "api.openai.com:443");
    BOOST_TEST(u.to_string() == "https://api.openai.com/v1");

    auto l = parse_http_url("http://127.0.0.1:8000/");
    BOOST_TEST(l.port == 8000);
    BOOST_TEST(l.path == "");
    BOOST_TEST(l.host_header() == "127.0.0.1:8000");

    auto m = parse_http_url("HTTPS://API.Example.COM:8443/Some/Path//");
    BOOST_TEST(m.scheme == "https");
    BOOST_TEST(m.host == "api.example.com");
    BOOST_TEST(m.path == "/Some/Path");  // paths keep their case

    auto v6 = parse_http_url("http://[::1]:8080/v1");
    BOOST_TEST(v6.host == "::1");
    BOOST_TEST(v6.authority() == "[::1]:8080");
    BOOST_TEST(v6.to_string() == "http://[::1]:8080/v1");

    auto plain = parse_http_url("http://localhost");
    BOOST_TEST(plain.port == 80);
    BOOST_TEST(plain.path == "");
}

BOOST_AUTO_TEST_CASE(malformed_urls_are_one_line_user_errors)
{
    struct bad_case
    {
        const char* text;
        const char* expect;
    };
    for (auto [text, expect] : {bad_case{"ftp://host", "unsupported scheme 'ftp'"},
                                bad_case{"api.openai.com/v1", "absolute URL"},
                                bad_case{"https://", "missing host"},
                                bad_case{"https://:443", "missing host"},
                                bad_case{"https://host:0", "port"},
                                bad_case{"https://host:70000", "port"},
                                bad_case{"https://host:", "empty port"},
                                bad_case{"https://host:8a", "port"},
                                bad_case{"https://host/v1?key=1", "query"},
                                bad_case{"https://host/v1#x", "fragment"},
                                bad_case{"https://user:pw@host", "user information"},
                                bad_case{"https://ho st/", "space"},
                                bad_case{"https://host/a b", "space"},
                                bad_case{"https://host/a%zz", "percent"},
                                bad_case{"https://h$st/", "invalid character"},
                                bad_case{"http://[::1/", "IPv6"}})
    {
        std::string what = error_of(text);
        BOOST_TEST(what.find(expect) != std::string::npos, text << " -> " << what);
        BOOST_TEST(what.find("--base-url") == 0u, what);
        BOOST_TEST(what.find('\n') == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(userinfo_for_proxies)
{
    auto u = parse_http_url("http://us%65r:p%40ss@proxy.local:3128", "proxy", true);
    BOOST_TEST(u.user == "user");
    BOOST_TEST(u.password == "p@ss");
    BOOST_TEST(u.host == "proxy.local");
    BOOST_TEST(u.to_string() == "http://proxy.local:3128");  // never the password
}

BOOST_AUTO_TEST_CASE(loopback_hosts)
{
    for (const char* h :
         {"localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "[::1]"})
        BOOST_TEST(is_loopback_host(h), h);
    // Names the resolver answers (DNS may give "evil.localhost" any address) and malformed or
    // shortened literals that resolvers read as names or other addresses.
    for (const char* h : {"example.com",
                          "127.example.com",
                          "10.0.0.1",
                          "localhost.example.com",
                          "::2",
                          "api.localhost",
                          "evil.localhost",
                          "127.0.0.256",
                          "127.1",
                          "127.0.0.1.",
                          "[::ffff:127.0.0.1]",
                          "localhost."})
        BOOST_TEST(!is_loopback_host(h), h);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(proxy_selection)

BOOST_AUTO_TEST_CASE(scheme_specific_variables_and_fallback)
{
    proxy_environment env;
    env.https_proxy = "http://secure-proxy:3128";
    env.http_proxy = "plain-proxy:8080";
    auto https = select_proxy(parse_http_url("https://api.openai.com/v1"), env);
    BOOST_TEST_REQUIRE(https.has_value());
    BOOST_TEST(https->authority() == "secure-proxy:3128");
    auto http = select_proxy(parse_http_url("http://models.example.com"), env);
    BOOST_TEST_REQUIRE(http.has_value());
    BOOST_TEST(http->authority() == "plain-proxy:8080");

    proxy_environment all;
    all.all_proxy = "http://everything:1234";
    BOOST_TEST(select_proxy(parse_http_url("https://api.openai.com"), all)->authority() == "everything:1234");
    BOOST_TEST(!select_proxy(parse_http_url("https://api.openai.com"), proxy_environment{}).has_value());
}

BOOST_AUTO_TEST_CASE(loopback_and_no_proxy_go_direct)
{
    proxy_environment env;
    env.https_proxy = "http://proxy:3128";
    env.http_proxy = "http://proxy:3128";
    env.no_proxy = " internal.corp , 10.0.0.0/8,.example.org, special.host:8443";
    BOOST_TEST(!select_proxy(parse_http_url("http://127.0.0.1:8000"), env).has_value());
    BOOST_TEST(!select_proxy(parse_http_url("http://localhost:11434"), env).has_value());
    BOOST_TEST(!select_proxy(parse_http_url("http://[::1]:8000"), env).has_value());
    BOOST_TEST(!select_proxy(parse_http_url("https://internal.corp"), env).has_value());
    BOOST_TEST(!select_proxy(parse_http_url("https://llm.internal.corp/v1"), env).has_value());
    BOOST_TEST(!select_proxy(parse_http_url("http://10.1.2.3:8000"), env).has_value());
    BOOST_TEST(!select_proxy(parse_http_url("https://api.example.org"), env).has_value());
    BOOST_TEST(!select_proxy(parse_http_url("https://special.host:8443"), env).has_value());
    BOOST_TEST(select_proxy(parse_http_url("https://special.host"), env).has_value());  // other port
    BOOST_TEST(select_proxy(parse_http_url("https://notinternal.corp"), env).has_value());
    BOOST_TEST(select_proxy(parse_http_url("http://11.0.0.1"), env).has_value());
    BOOST_TEST(select_proxy(parse_http_url("https://api.openai.com"), env).has_value());
}

BOOST_AUTO_TEST_CASE(no_proxy_entries)
{
    BOOST_TEST(no_proxy_matches("*", "anything", 443));
    BOOST_TEST(no_proxy_matches("*.example.com", "a.example.com", 443));
    BOOST_TEST(no_proxy_matches("example.com.", "EXAMPLE.com", 443));
    BOOST_TEST(no_proxy_matches("192.168.1.5", "192.168.1.5", 80));
    BOOST_TEST(!no_proxy_matches("192.168.1.5", "192.168.1.6", 80));
    BOOST_TEST(no_proxy_matches("192.168.0.0/16", "192.168.77.1", 80));
    BOOST_TEST(!no_proxy_matches("192.168.0.0/16", "192.169.0.1", 80));
    BOOST_TEST(no_proxy_matches("[fd00::1]:8000", "fd00::1", 8000));
    BOOST_TEST(no_proxy_matches("fd00::1", "fd00::1", 8000));
    BOOST_TEST(!no_proxy_matches("", "example.com", 443));
    BOOST_TEST(!no_proxy_matches(",,", "example.com", 443));
}

BOOST_AUTO_TEST_CASE(proxy_urls)
{
    auto bare = parse_proxy_url("proxy.corp:3128", "https_proxy");
    BOOST_TEST(bare.scheme == "http");
    BOOST_TEST(bare.port == 3128);
    BOOST_TEST(parse_proxy_url("http://proxy.corp", "https_proxy").port == 1080);
    BOOST_TEST(parse_proxy_url("http://proxy.corp:80/", "https_proxy").port == 80);
    auto creds = parse_proxy_url("http://alice:s3cret@proxy.corp:3128", "https_proxy");
    BOOST_TEST(creds.user == "alice");
    BOOST_TEST(creds.password == "s3cret");

    BOOST_CHECK_THROW(parse_proxy_url("socks5://proxy:1080", "all_proxy"), user_error);
    BOOST_CHECK_THROW(parse_proxy_url("https://proxy:443", "https_proxy"), user_error);
    BOOST_CHECK_THROW(parse_proxy_url("http://proxy:3128/path", "https_proxy"), user_error);
    try
    {
        parse_proxy_url("http://alice:s3cret@bad host:3128", "https_proxy");
        BOOST_FAIL("expected a user_error");
    }
    catch (const user_error& e)
    {
        std::string what = e.what();
        BOOST_TEST(what.find("s3cret") == std::string::npos, what);
        BOOST_TEST(what.find("https_proxy") == 0u, what);
    }
}

BOOST_AUTO_TEST_CASE(environment_lower_case_wins)
{
    scoped_env env;
    env.set("https_proxy", "http://lower:1");
    env.set("HTTPS_PROXY", "http://upper:2");
    env.set("http_proxy", nullptr);
    env.set("HTTP_PROXY", "http://upper-plain:3");
    env.set("all_proxy", nullptr);
    env.set("ALL_PROXY", nullptr);
    env.set("no_proxy", nullptr);
    env.set("NO_PROXY", "internal");
    auto e = proxy_environment::from_process();
    BOOST_TEST(e.https_proxy == "http://lower:1");
    BOOST_TEST(e.http_proxy == "http://upper-plain:3");
    BOOST_TEST(e.all_proxy == "");
    BOOST_TEST(e.no_proxy == "internal");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(http_messages)

BOOST_AUTO_TEST_CASE(credentials_are_redacted)
{
    header_list h = {{"Authorization", "Bearer sk-secret"},
                     {"api-key", "azure-secret"},
                     {"X-Api-Key", "k3"},
                     {"Proxy-Authorization", "Basic abc"},
                     {"Content-Type", "application/json"}};
    std::string shown = format_headers_redacted(h);
    BOOST_TEST(shown.find("sk-secret") == std::string::npos);
    BOOST_TEST(shown.find("azure-secret") == std::string::npos);
    BOOST_TEST(shown.find("k3") == std::string::npos);
    BOOST_TEST(shown.find("Basic abc") == std::string::npos);
    BOOST_TEST(shown.find("Authorization: [redacted]") != std::string::npos);
    BOOST_TEST(shown.find("Content-Type: application/json") != std::string::npos);
    BOOST_TEST(is_sensitive_header("AUTHORIZATION"));
    BOOST_TEST(is_sensitive_header("x-goog-api-key"));
    BOOST_TEST(is_sensitive_header("X-Auth-Token"));
    BOOST_TEST(!is_sensitive_header("Authorization-Hint"));
    BOOST_TEST(!is_sensitive_header("Content-Type"));
    BOOST_TEST(!is_sensitive_header("OpenAI-Organization"));
}

BOOST_AUTO_TEST_CASE(header_lookup_is_case_insensitive)
{
    header_list h = {{"Retry-After", "3"}, {"retry-after", "4"}};
    BOOST_TEST(*find_header(h, "RETRY-AFTER") == "3");
    BOOST_TEST(!find_header(h, "retry-after-ms").has_value());
}

BOOST_AUTO_TEST_CASE(status_error_carries_status_and_body)
{
    http_status_error e(401,
                        "Unauthorized",
                        {{"x-request-id", "r1"}},
                        "{\"error\":{\"message\":\"Incorrect API key\"}}\n",
                        "POST https://api.openai.com/v1/responses",
                        1);
    BOOST_TEST(e.status() == 401u);
    BOOST_TEST((e.code() == make_error_code(errc::http_status)));
    BOOST_TEST(e.body().find("Incorrect API key") != std::string::npos);
    std::string what = e.what();
    BOOST_TEST(what.find("HTTP 401 Unauthorized from POST https://api.openai.com/v1/responses") == 0u, what);
    BOOST_TEST(what.find('\n') == std::string::npos, what);
    const boost::system::system_error& base = e;
    BOOST_TEST(base.code().message() == "HTTP error status");
}

BOOST_AUTO_TEST_CASE(excerpts_are_one_line_and_valid_utf8)
{
    BOOST_TEST(one_line_excerpt("a\nb\r\tc") == "a b  c");
    std::string euro = "\xE2\x82\xAC\xE2\x82\xAC";
    BOOST_TEST(one_line_excerpt(euro, 4) == "\xE2\x82\xAC...");
    BOOST_TEST(one_line_excerpt(std::string(500, 'x')).size() == 303u);
}

BOOST_AUTO_TEST_SUITE_END()
