#include "agents/http/retry_policy.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>

using namespace warpsmith::http;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace
{

std::chrono::system_clock::time_point at(std::int64_t unix_seconds)
{
    return std::chrono::system_clock::time_point(std::chrono::seconds(unix_seconds));
}

retry_options fast_options()
{
    retry_options o;
    o.max_attempts = 4;
    o.base_delay = 100ms;
    o.max_delay = 1000ms;
    o.max_retry_after = 60s;
    return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(retry_policy_suite)

BOOST_AUTO_TEST_CASE(retryable_statuses)
{
    for (unsigned s : {408u, 409u, 429u, 500u, 501u, 502u, 503u, 504u, 529u, 599u})
    {
        retry_policy p(fast_options(), 1);
        auto d = p.decide(attempt_outcome::http(s), 1);
        BOOST_TEST(d.retry, "status " << s);
        BOOST_TEST(d.reason.find(std::to_string(s)) != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(final_statuses)
{
    for (unsigned s : {400u, 401u, 403u, 404u, 405u, 410u, 413u, 422u, 301u, 304u, 600u})
    {
        retry_policy p(fast_options(), 1);
        auto d = p.decide(attempt_outcome::http(s), 1);
        BOOST_TEST(!d.retry, "status " << s);
        BOOST_TEST(d.reason.find("not retried") != std::string::npos);
    }
    retry_policy p(fast_options(), 1);
    BOOST_TEST(!p.decide(attempt_outcome::http(200), 1).retry);
    BOOST_TEST(!p.decide(attempt_outcome::http(204), 1).retry);
}

BOOST_AUTO_TEST_CASE(transport_failures)
{
    for (auto f : {transport_failure::connection_refused,
                   transport_failure::connection_reset,
                   transport_failure::timeout,
                   transport_failure::truncated,
                   transport_failure::malformed})
    {
        retry_policy p(fast_options(), 1);
        BOOST_TEST(p.decide(attempt_outcome::transport(f), 1).retry, to_string(f));
    }
    for (auto f : {transport_failure::name_resolution,
                   transport_failure::tls,
                   transport_failure::proxy,
                   transport_failure::cancelled,
                   transport_failure::other})
    {
        retry_policy p(fast_options(), 1);
        BOOST_TEST(!p.decide(attempt_outcome::transport(f), 1).retry, to_string(f));
    }
}

BOOST_AUTO_TEST_CASE(max_attempts_counts_the_first_attempt)
{
    auto o = fast_options();
    o.max_attempts = 3;
    retry_policy p(o, 7);
    BOOST_TEST(p.decide(attempt_outcome::http(503), 1).retry);
    BOOST_TEST(p.decide(attempt_outcome::http(503), 2).retry);
    auto d = p.decide(attempt_outcome::http(503), 3);
    BOOST_TEST(!d.retry);
    BOOST_TEST(d.reason.find("after 3 attempts") != std::string::npos, d.reason);

    o.max_attempts = 1;
    retry_policy once(o, 7);
    BOOST_TEST(!once.decide(attempt_outcome::transport(transport_failure::timeout), 1).retry);
}

BOOST_AUTO_TEST_CASE(full_jitter_backoff_stays_within_the_exponential_ceiling)
{
    retry_policy p(fast_options(), 12345);
    for (int attempt = 1; attempt <= 6; ++attempt)
    {
        const long long ceiling = std::min<long long>(100LL << (attempt - 1), 1000);
        long long lo = ceiling, hi = 0;
        for (int i = 0; i < 2000; ++i)
        {
            long long d = p.backoff(attempt).count();
            BOOST_TEST_REQUIRE(d >= 0);
            BOOST_TEST_REQUIRE(d <= ceiling);
            lo = std::min(lo, d);
            hi = std::max(hi, d);
        }
        // Full jitter spreads over the whole range [0, ceiling].
        BOOST_TEST(lo <= ceiling / 10, "attempt " << attempt);
        BOOST_TEST(hi >= ceiling * 9 / 10, "attempt " << attempt);
    }
}

BOOST_AUTO_TEST_CASE(backoff_is_reproducible_from_the_seed_and_saturates)
{
    retry_policy a(fast_options(), 99), b(fast_options(), 99), c(fast_options(), 100);
    bool differs = false;
    for (int i = 1; i <= 20; ++i)
    {
        auto x = a.backoff(i % 5 + 1), y = b.backoff(i % 5 + 1), z = c.backoff(i % 5 + 1);
        BOOST_TEST(x.count() == y.count());
        differs = differs || x != z;
    }
    BOOST_TEST(differs);
    // A huge attempt number must not overflow past the cap.
    for (int i = 0; i < 100; ++i)
        BOOST_TEST(a.backoff(10'000).count() <= 1000);
}

BOOST_AUTO_TEST_CASE(decide_uses_backoff_without_a_server_wish)
{
    retry_policy p(fast_options(), 5);
    auto d = p.decide(attempt_outcome::http(503), 2);
    BOOST_TEST(d.retry);
    BOOST_TEST(d.delay.count() >= 0);
    BOOST_TEST(d.delay.count() <= 200);
    BOOST_TEST(d.reason.find("backoff") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(retry_after_seconds_is_honoured_exactly)
{
    retry_policy p(fast_options(), 5);
    auto d = p.decide(attempt_outcome::http(429, "2"), 1);
    BOOST_TEST(d.retry);
    BOOST_TEST(d.delay.count() == 2000);
    BOOST_TEST(d.reason.find("Retry-After") != std::string::npos);
    BOOST_TEST(p.decide(attempt_outcome::http(503, " 3 "), 1).delay.count() == 3000);
    BOOST_TEST(p.decide(attempt_outcome::http(503, "1.5"), 1).delay.count() == 1500);
    BOOST_TEST(p.decide(attempt_outcome::http(503, "0"), 1).delay.count() == 0);
}

BOOST_AUTO_TEST_CASE(retry_after_http_date_forms)
{
    const auto now = at(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT
    BOOST_TEST(retry_policy::parse_retry_after("Sun, 06 Nov 1994 08:49:42 GMT", now)->count() == 5000);
    BOOST_TEST(retry_policy::parse_retry_after("Sunday, 06-Nov-94 08:49:47 GMT", now)->count() == 10000);
    BOOST_TEST(retry_policy::parse_retry_after("Sun Nov  6 08:50:37 1994", now)->count() == 60000);
    // A date in the past means "now".
    BOOST_TEST(retry_policy::parse_retry_after("Sat, 05 Nov 1994 08:49:37 GMT", now)->count() == 0);

    retry_policy p(fast_options(), 5);
    auto d = p.decide(attempt_outcome::http(503, "Sun, 06 Nov 1994 08:49:40 GMT"), 1, now);
    BOOST_TEST(d.retry);
    BOOST_TEST(d.delay.count() == 3000);
}

BOOST_AUTO_TEST_CASE(http_date_values)
{
    auto epoch = retry_policy::parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT");
    BOOST_TEST_REQUIRE(epoch.has_value());
    BOOST_TEST(std::chrono::duration_cast<std::chrono::seconds>(epoch->time_since_epoch()).count() == 0);
    auto t = retry_policy::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT");
    BOOST_TEST_REQUIRE(t.has_value());
    BOOST_TEST(std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count() == 784111777);
    auto leap = retry_policy::parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT");
    BOOST_TEST(leap.has_value());
    for (const char* bad : {"",
                            "tomorrow",
                            "Sun, 31 Nov 1994 08:49:37 GMT",
                            "Thu, 30 Feb 2023 00:00:00 GMT",
                            "Sun, 06 Nov 1994 25:49:37 GMT",
                            "Sun, 06 Foo 1994 08:49:37 GMT",
                            "Sun, 06 Nov 1994 08:49:37 UTC",
                            "Sun 06 Nov 1994 08:49:37 GMT"})
        BOOST_TEST(!retry_policy::parse_http_date(bad).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(retry_after_ms_wins_over_retry_after)
{
    retry_policy p(fast_options(), 5);
    auto d = p.decide(attempt_outcome::http(429, "10", "250"), 1);
    BOOST_TEST(d.retry);
    BOOST_TEST(d.delay.count() == 250);
    BOOST_TEST(d.reason.find("retry-after-ms") != std::string::npos);
    // A malformed retry-after-ms falls back to Retry-After.
    BOOST_TEST(p.decide(attempt_outcome::http(429, "4", "soon"), 1).delay.count() == 4000);
    BOOST_TEST(retry_policy::parse_retry_after_ms("12.2")->count() == 13);
    BOOST_TEST(!retry_policy::parse_retry_after_ms("-5").has_value());
}

BOOST_AUTO_TEST_CASE(malformed_retry_after_falls_back_to_backoff)
{
    retry_policy p(fast_options(), 5);
    for (const char* bad : {"soon", "-1", "1e999", "Mon, 99 Nov 1994 08:49:37 GMT"})
    {
        auto d = p.decide(attempt_outcome::http(503, bad), 1);
        BOOST_TEST(d.retry, bad);
        BOOST_TEST(d.delay.count() <= 100, bad);
        BOOST_TEST(d.reason.find("backoff") != std::string::npos, bad);
    }
}

BOOST_AUTO_TEST_CASE(a_wait_beyond_the_limit_gives_up_with_the_reason)
{
    retry_policy p(fast_options(), 5);
    auto d = p.decide(attempt_outcome::http(429, "3600"), 1);
    BOOST_TEST(!d.retry);
    BOOST_TEST(d.reason.find("3600 s") != std::string::npos, d.reason);
    BOOST_TEST(d.reason.find("limit") != std::string::npos, d.reason);
    // Exactly at the limit is still honoured.
    BOOST_TEST(p.decide(attempt_outcome::http(429, "60"), 1).retry);
}

BOOST_AUTO_TEST_CASE(retry_after_is_ignored_for_final_statuses)
{
    retry_policy p(fast_options(), 5);
    BOOST_TEST(!p.decide(attempt_outcome::http(400, "1"), 1).retry);
}

BOOST_AUTO_TEST_SUITE_END()
