#pragma once

// When and how long to wait before trying an HTTP request again (SPEC §5): a sans-I/O decision
// table, unit-tested without sockets or clocks.
//
// * Retried: HTTP 408, 409, 429 and 5xx; transport failures that are usually transient (connection
//   refused or reset, timeouts, a body cut short, a malformed response).
// * Not retried: other statuses (400, 401, 403, 404, 422, ...), DNS "host not found", TLS
//   certificate failures, cancellation, or anything else unknown.
// * Delay: the server's wish when it states one — "retry-after-ms" (milliseconds, an OpenAI
//   extension) first, then "Retry-After" (seconds or an HTTP-date) — else exponential backoff with
//   full jitter: uniform in [0, min(max_delay, base_delay * 2^(attempt-1))], from a seedable RNG.
// * A server wish above max_retry_after gives up at once (a quota that resets in an hour is not
//   worth waiting for inside a search), naming the wait in the reason.
// * max_attempts counts every attempt, the first included.

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace warpsmith::http
{

/// What went wrong on the wire, as classified by the I/O layer.
enum class transport_failure
{
    none,                ///< A complete HTTP response arrived (see status).
    connection_refused,  ///< TCP connect refused or the network unreachable.
    connection_reset,    ///< Reset, broken pipe, or closed before any response byte.
    timeout,             ///< A connect, write or read phase exceeded its deadline.
    truncated,           ///< Closed mid-headers or mid-body (Content-Length or chunk not complete).
    malformed,           ///< The bytes were not a valid HTTP response.
    name_resolution,     ///< DNS said the host does not exist.
    tls,                 ///< TLS handshake or certificate verification failed.
    proxy,               ///< The proxy refused the CONNECT tunnel.
    cancelled,           ///< The caller cancelled the operation.
    other,               ///< Anything else (not retried).
};

const char* to_string(transport_failure f);

/// The outcome of one attempt.
struct attempt_outcome
{
    transport_failure failure = transport_failure::none;
    unsigned status = 0;                        ///< Valid when failure == none.
    std::optional<std::string> retry_after;     ///< Raw "Retry-After" header value.
    std::optional<std::string> retry_after_ms;  ///< Raw "retry-after-ms" header value.

    static attempt_outcome http(unsigned status,
                                std::optional<std::string> retry_after = {},
                                std::optional<std::string> retry_after_ms = {});
    static attempt_outcome transport(transport_failure f);
};

struct retry_options
{
    int max_attempts = 4;                               ///< Total attempts, >= 1.
    std::chrono::milliseconds base_delay{500};          ///< Backoff scale of the first retry.
    std::chrono::milliseconds max_delay{30'000};        ///< Cap of the computed backoff.
    std::chrono::milliseconds max_retry_after{60'000};  ///< Longest server-requested wait honoured.
};

struct retry_decision
{
    bool retry = false;
    std::chrono::milliseconds delay{0};  ///< Wait before the next attempt when retry is true.
    std::string reason;                  ///< One line: why (e.g. "HTTP 503; Retry-After 2 s").
};

class retry_policy
{
public:
    /// seed == 0 seeds from std::random_device (production); tests pass a fixed seed.
    explicit retry_policy(retry_options opts = {}, std::uint64_t seed = 0);

    /// Decides after `attempts_made` attempts (1 after the first) ended with `outcome`. `now` is the
    /// wall-clock time used to interpret an HTTP-date Retry-After.
    retry_decision decide(const attempt_outcome& outcome,
                          int attempts_made,
                          std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

    /// Exponential backoff with full jitter before attempt attempts_made + 1.
    std::chrono::milliseconds backoff(int attempts_made);

    const retry_options& options() const { return opts_; }

    static bool is_retryable_status(unsigned status);
    static bool is_retryable_failure(transport_failure f);

    /// Parses "Retry-After": delta seconds ("120", fractional accepted) or an HTTP-date (IMF-fixdate,
    /// RFC 850 or asctime). A date in the past yields 0. nullopt when malformed.
    static std::optional<std::chrono::milliseconds> parse_retry_after(
        std::string_view value, std::chrono::system_clock::time_point now);
    /// Parses "retry-after-ms" (a non-negative number of milliseconds). nullopt when malformed.
    static std::optional<std::chrono::milliseconds> parse_retry_after_ms(std::string_view value);
    /// Parses an HTTP-date (RFC 9110 §5.6.7). nullopt when malformed.
    static std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view value);

private:
    retry_options opts_;
    std::mt19937_64 rng_;
};

}  // namespace warpsmith::http
