#pragma once

// A fake OpenAI-compatible model server for provider, strategy and end-to-end tests (and, as the
// program fake_openai_server, for manual runs): it speaks POST /v1/responses and
// POST /v1/chat/completions, streamed (SSE) and not, on top of fake_http_server (loopback, HTTP or
// HTTPS with a throwaway certificate).
//
// What it answers, from the machine-readable tag on the first line of the first user message
// ([warpsmith task=... mode=...], see agents/llm/feedback.hpp):
//  * task=infer: the sgemm workload for "Single-precision GEMM with rectangular matrices."
//    (signature, two odd correctness cases and a performance case, bench/workloads/sgemm's
//    reference and initial kernels);
//  * task=propose: when tools are offered and the conversation has no tool results yet, a round
//    of tool calls (compile with the kernel it is about to propose; history of the first candidate
//    id the prompt mentions; profile of the current best when a profile tool is offered); then a
//    proposal: REAL CUDA kernels from bench/workloads/sgemm/candidates, in script order (a server-wide
//    counter), among them one that does not compile and an answer that breaks the proposal schema. A
//    follow-up after an unusable answer, and mode=repair, get the next valid kernel.
//  * With a JSON schema in the request the answer is the JSON object; without one (a server that
//    lacks json_schema, or --structured-output fenced) it is a ```cuda block plus a ```json block.
// Faults injected for the next N requests: 429 with Retry-After, 500, 503, slow past the client's
// timeout, a truncated body, malformed JSON, a stream cut before its end, an error event, 401, 404,
// a failed response, a rate-limit error event, 429 insufficient_quota, an incomplete answer that
// holds only reasoning, a long silence in a stream (with or without keep-alives).
// Strict by default: every request is checked the way the real API checks it (shape per endpoint
// from tests/agents/support/api-shapes, call/output pairing, reasoning items, strict schemas,
// parameters per model family; openai_request_rules.hpp) and a wrong one gets the API's 400 body.
// With a web_search tool in the request, a proposal comes with a web_search_call item and
// url_citation annotations (docs.nvidia.com pages).
// Also: an API key the requests must carry (a wrong one gets 401 with the key echoed in the
// message, as a leaky server might: redaction must catch it), a list of known models (others get
// 404 model_not_found), servers that refuse response_format json_schema (400), and a latency per
// answer so concurrent requests overlap. Counters: requests per task, the peak of concurrent
// requests (fake_http_server's).

#include "tests/agents/support/fake_http_server.hpp"
#include "tests/agents/support/openai_request_rules.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace warpsmith::test
{

enum class openai_fault
{
    rate_limit,          ///< 429 + Retry-After (retry_after_s)
    server_error,        ///< 500
    unavailable,         ///< 503
    slow,                ///< headers after slow_delay (past a short client timeout)
    truncated,           ///< Content-Length body cut in the middle (non-streamed) / chunk cut (streamed)
    malformed_json,      ///< 200 with a body that is not JSON
    stream_cut,          ///< SSE that ends cleanly but before its terminal event / [DONE]
    error_event,         ///< SSE "error" event
    unauthorized,        ///< 401
    not_found,           ///< 404 model_not_found
    response_failed,     ///< Responses: status "failed" (streamed: a response.failed event)
    rate_limit_event,    ///< SSE "error" event with code rate_limit_exceeded
    insufficient_quota,  ///< 429 insufficient_quota (waiting does not help)
    reasoning_only,      ///< Responses: incomplete (max_output_tokens) with only a reasoning item
    long_silence,        ///< Streamed: `silence` without a byte after the first event (keep-alive
                         ///< comments every keepalive_interval when that is set), then the answer
};

struct fake_openai_options
{
    /// bench/workloads/sgemm (reference.cu, initial.cu, candidates/). Default: the source tree's.
    std::filesystem::path sgemm_dir;
    /// Candidate stems in proposal order (cycled). Special: "schema-break" (an answer that breaks
    /// the schema). Default: a mix of valid kernels, the compile error and one schema break.
    std::vector<std::string> script;
    std::chrono::milliseconds latency{0};  ///< Before every answer's headers.
    /// Plus a random extra delay up to this, drawn per answer, so that concurrent requests are
    /// answered in a different order every run.
    std::chrono::milliseconds latency_jitter{0};
    /// Proposals chosen by the round's tag (branch, iteration, follow-up) instead of the
    /// server-wide counter: every run gives each branch the same answers, whatever order the
    /// branches' requests arrive in (a model that answers the same question the same way).
    bool answer_by_round = false;
    /// Plus an extra delay for the answers of a proposal round, by its tag (branch, iteration):
    /// lets a test choose which branch answers first. Called on the server thread.
    std::function<std::chrono::milliseconds(int branch, int iteration)> round_latency;
    bool tool_calls = true;        ///< Call compile/history before proposing.
    std::string api_key;           ///< Required "Bearer" key when non-empty.
    std::set<std::string> models;  ///< Known models; empty = any.
    bool chat_json_schema = true;  ///< false: 400 on response_format json_schema.
    std::chrono::milliseconds slow_delay{3000};
    int retry_after_s = 1;
    int stream_delta_bytes = 200;  ///< Text per streamed delta.
    /// Check every request as the real API does (openai_request_rules.hpp) and answer a wrong one
    /// with the API's 400 error body.
    bool strict = true;
    request_rules rules;
    std::chrono::milliseconds silence{3000};          ///< long_silence
    std::chrono::milliseconds keepalive_interval{0};  ///< long_silence: 0 = no keep-alives
};

class fake_openai_server
{
public:
    explicit fake_openai_server(fake_openai_options opts = {}, transport t = transport::http);
    ~fake_openai_server();
    fake_openai_server(const fake_openai_server&) = delete;
    fake_openai_server& operator=(const fake_openai_server&) = delete;

    std::uint16_t port() const;
    /// "http://127.0.0.1:PORT/v1" (or https).
    std::string base_url() const;
    std::filesystem::path ca_file() const;

    /// The next `count` requests get `f` (faults queue in order).
    void inject(openai_fault f, int count = 1);
    /// Faults still queued.
    std::size_t pending_faults() const;

    std::size_t request_count() const;
    std::size_t max_concurrent_requests() const;
    std::vector<recorded_request> requests() const;
    /// Requests per task: "infer", "propose", "tool_followup", "answer_followup", "other"; and
    /// "profile_call": profile tool calls the server asked for.
    std::map<std::string, int> task_counts() const;
    /// Proposals answered, by candidate stem.
    std::map<std::string, int> proposals() const;
    /// The error bodies of requests refused by the strict checks, in order.
    std::vector<std::string> rejected() const;

    bool stop();

private:
    struct impl;
    std::shared_ptr<impl> impl_;
    std::unique_ptr<fake_http_server> server_;
};

/// The stems the server proposes when fake_openai_options::script is empty, in order: valid sgemm
/// kernels, "09-invalid-compile-error" (does not compile) and "schema-break".
std::vector<std::string> default_script();

/// The text of a bench candidate as a proposal JSON object (for tests that build answers).
std::string sgemm_proposal_json(const std::filesystem::path& sgemm_dir, const std::string& stem);
std::filesystem::path default_sgemm_dir();

}  // namespace warpsmith::test
