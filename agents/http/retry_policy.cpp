#include "agents/http/retry_policy.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace warpsmith::http
{
namespace
{

using std::chrono::milliseconds;

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_spaces(std::string_view s)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size())
    {
        while (i < s.size() && s[i] == ' ')
            ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ')
            ++j;
        if (j > i)
            out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

std::optional<int> to_int(std::string_view s, std::size_t min_digits, std::size_t max_digits)
{
    if (s.size() < min_digits || s.size() > max_digits)
        return std::nullopt;
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::optional<unsigned> month_of(std::string_view s)
{
    static constexpr std::array<std::string_view, 12> names = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (unsigned i = 0; i < names.size(); ++i)
        if (s == names[i])
            return i + 1;
    return std::nullopt;
}

bool is_day_name(std::string_view s, bool comma)
{
    if (comma)
    {
        if (s.empty() || s.back() != ',')
            return false;
        s.remove_suffix(1);
    }
    return s.size() >= 3 &&
           std::all_of(
               s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

std::optional<std::chrono::seconds> time_of_day(std::string_view s)
{
    if (s.size() != 8 || s[2] != ':' || s[5] != ':')
        return std::nullopt;
    auto h = to_int(s.substr(0, 2), 2, 2);
    auto m = to_int(s.substr(3, 2), 2, 2);
    auto sec = to_int(s.substr(6, 2), 2, 2);
    if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 60)
        return std::nullopt;
    return std::chrono::hours(*h) + std::chrono::minutes(*m) + std::chrono::seconds(*sec);
}

std::optional<std::chrono::system_clock::time_point> make_time(int y,
                                                               unsigned mo,
                                                               int d,
                                                               std::chrono::seconds tod)
{
    using namespace std::chrono;
    year_month_day ymd{year{y}, month{mo}, day{static_cast<unsigned>(d)}};
    if (!ymd.ok())
        return std::nullopt;
    return time_point_cast<system_clock::duration>(sys_days(ymd) + tod);
}

}  // namespace

const char* to_string(transport_failure f)
{
    switch (f)
    {
        case transport_failure::none:
            return "no failure";
        case transport_failure::connection_refused:
            return "connection refused";
        case transport_failure::connection_reset:
            return "connection reset";
        case transport_failure::timeout:
            return "timeout";
        case transport_failure::truncated:
            return "truncated response";
        case transport_failure::malformed:
            return "malformed response";
        case transport_failure::name_resolution:
            return "host name not found";
        case transport_failure::tls:
            return "TLS failure";
        case transport_failure::proxy:
            return "proxy refused the tunnel";
        case transport_failure::cancelled:
            return "cancelled";
        case transport_failure::other:
            return "transport failure";
    }
    return "transport failure";
}

attempt_outcome attempt_outcome::http(unsigned status,
                                      std::optional<std::string> retry_after,
                                      std::optional<std::string> retry_after_ms)
{
    attempt_outcome o;
    o.status = status;
    o.retry_after = std::move(retry_after);
    o.retry_after_ms = std::move(retry_after_ms);
    return o;
}

attempt_outcome attempt_outcome::transport(transport_failure f)
{
    attempt_outcome o;
    o.failure = f;
    return o;
}

retry_policy::retry_policy(retry_options opts, std::uint64_t seed)
    : opts_(opts),
      rng_(seed != 0 ? seed : (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}())
{
    opts_.max_attempts = std::max(opts_.max_attempts, 1);
}

bool retry_policy::is_retryable_status(unsigned status)
{
    return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

bool retry_policy::is_retryable_failure(transport_failure f)
{
    switch (f)
    {
        case transport_failure::connection_refused:
        case transport_failure::connection_reset:
        case transport_failure::timeout:
        case transport_failure::truncated:
        case transport_failure::malformed:
            return true;
        default:
            return false;
    }
}

milliseconds retry_policy::backoff(int attempts_made)
{
    // Computed in double so that a large attempt number saturates at the cap instead of overflowing.
    double scaled = double(opts_.base_delay.count()) * std::pow(2.0, std::max(attempts_made, 1) - 1);
    auto ceiling = static_cast<long long>(std::min(scaled, double(opts_.max_delay.count())));
    if (ceiling <= 0)
        return milliseconds(0);
    std::uniform_int_distribution<long long> dist(0, ceiling);
    return milliseconds(dist(rng_));
}

retry_decision retry_policy::decide(const attempt_outcome& outcome,
                                    int attempts_made,
                                    std::chrono::system_clock::time_point now)
{
    retry_decision d;
    std::string label;
    if (outcome.failure == transport_failure::none)
    {
        label = "HTTP " + std::to_string(outcome.status);
        if (outcome.status >= 200 && outcome.status < 300)
        {
            d.reason = label + " is a success";
            return d;
        }
        if (!is_retryable_status(outcome.status))
        {
            d.reason = label + " is not retried";
            return d;
        }
    }
    else
    {
        label = to_string(outcome.failure);
        if (!is_retryable_failure(outcome.failure))
        {
            d.reason = label + " is not retried";
            return d;
        }
    }
    if (attempts_made >= opts_.max_attempts)
    {
        d.reason = label + " after " + std::to_string(attempts_made) +
                   (attempts_made == 1 ? " attempt" : " attempts") + " (retries exhausted)";
        return d;
    }

    std::optional<milliseconds> wish;
    std::string source;
    if (outcome.retry_after_ms)
    {
        wish = parse_retry_after_ms(*outcome.retry_after_ms);
        source = "retry-after-ms";
    }
    if (!wish && outcome.retry_after)
    {
        wish = parse_retry_after(*outcome.retry_after, now);
        source = "Retry-After";
    }
    auto seconds_text = [](milliseconds ms)
    {
        char buf[32];
        if (ms.count() < 10'000)
            std::snprintf(buf, sizeof buf, "%.3g s", double(ms.count()) / 1000.0);
        else
            std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>((ms.count() + 999) / 1000));
        return std::string(buf);
    };
    if (wish)
    {
        if (*wish > opts_.max_retry_after)
        {
            d.reason = label + ": the server asks to wait " + seconds_text(*wish) + " (" + source +
                       "), more than the " + seconds_text(opts_.max_retry_after) + " limit";
            return d;
        }
        d.retry = true;
        d.delay = *wish;
        d.reason = label + "; " + source + " " + seconds_text(*wish);
        return d;
    }
    d.retry = true;
    d.delay = backoff(attempts_made);
    d.reason = label + "; backoff " + seconds_text(d.delay);
    return d;
}

std::optional<milliseconds> retry_policy::parse_retry_after_ms(std::string_view value)
{
    value = trim(value);
    if (value.empty() || value.size() > 15)
        return std::nullopt;
    double v = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || p != value.data() + value.size() || !(v >= 0) || !std::isfinite(v))
        return std::nullopt;
    return milliseconds(static_cast<long long>(std::ceil(v)));
}

std::optional<milliseconds> retry_policy::parse_retry_after(std::string_view value,
                                                            std::chrono::system_clock::time_point now)
{
    value = trim(value);
    if (value.empty())
        return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(value.front())))
    {
        if (value.size() > 12)
            return std::nullopt;
        double v = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || p != value.data() + value.size() || !(v >= 0) || !std::isfinite(v))
            return std::nullopt;
        return milliseconds(static_cast<long long>(std::ceil(v * 1000.0)));
    }
    auto when = parse_http_date(value);
    if (!when)
        return std::nullopt;
    if (*when <= now)
        return milliseconds(0);
    // Round up so that waiting the returned time never lands before the stated date.
    return std::chrono::ceil<milliseconds>(*when - now);
}

std::optional<std::chrono::system_clock::time_point> retry_policy::parse_http_date(std::string_view value)
{
    auto t = split_spaces(trim(value));
    if (t.size() == 6 && is_day_name(t[0], true) && t[5] == "GMT")
    {
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        auto d = to_int(t[1], 2, 2);
        auto m = month_of(t[2]);
        auto y = to_int(t[3], 4, 4);
        auto tod = time_of_day(t[4]);
        if (d && m && y && tod)
            return make_time(*y, *m, *d, *tod);
        return std::nullopt;
    }
    if (t.size() == 4 && is_day_name(t[0], true) && t[3] == "GMT")
    {
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT. Two-digit years below 70 are taken as 20xx.
        auto date = t[1];
        if (date.size() != 9 || date[2] != '-' || date[6] != '-')
            return std::nullopt;
        auto d = to_int(date.substr(0, 2), 2, 2);
        auto m = month_of(date.substr(3, 3));
        auto yy = to_int(date.substr(7, 2), 2, 2);
        auto tod = time_of_day(t[2]);
        if (d && m && yy && tod)
            return make_time(*yy < 70 ? 2000 + *yy : 1900 + *yy, *m, *d, *tod);
        return std::nullopt;
    }
    if (t.size() == 5 && is_day_name(t[0], false))
    {
        // asctime: Sun Nov  6 08:49:37 1994
        auto m = month_of(t[1]);
        auto d = to_int(t[2], 1, 2);
        auto tod = time_of_day(t[3]);
        auto y = to_int(t[4], 4, 4);
        if (d && m && y && tod)
            return make_time(*y, *m, *d, *tod);
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace warpsmith::http
