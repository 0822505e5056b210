#include "engine/report/suite_options.hpp"

#include "agents/http/url.hpp"
#include "harness/core/error.hpp"

#include <set>

namespace warpsmith::report
{

namespace
{

using flag_set = std::set<std::string, std::less<>>;

const flag_set suite_flags{"seed",
                           "budget",
                           "max-candidates",
                           "max-iterations",
                           "max-wall-time",
                           "max-tokens",
                           "max-cost",
                           "results",
                           "resume",
                           "json-progress",
                           "workload",
                           "provider",
                           "strategy",
                           "offline"};

// How the search runs and is timed (optimize and tune), and how it asks its model. Nothing here
// names a program, a file outside the suite's own inputs, a server or a credential; base-url is
// judged by its value (harmless_base_url).
const flag_set search_and_timing_flags{
    // Evaluation and search (search_session.cpp, optimize_command.cpp, tune_command.cpp).
    "gpus",
    "compile-workers",
    "in-process-compile",
    "launch-timeout-ms",
    "confirm-top",
    "no-measure",
    "branches",
    "async",
    "grace-seconds",
    "scripted-latency-ms",
    "max-repairs",
    "population",
    "option",  // An NVRTC option, itself checked against the compile option allow-list.
    "no-compile-prune",
    "no-eval-cache",
    // Timing (timing_args.cpp) and profiling with the installed Nsight Compute (nsight_args.cpp).
    "timing",
    "warmup",
    "iterations",
    "target-noise",
    "use-nsight",
    "profile-budget",
    "profile-timeout-ms",
    // The model (agents/strategies/llm_setup.cpp).
    "model",
    "reasoning-effort",
    "base-url",
    "no-stream",
    "structured-output",
    "llm-timeout",
    "stream-idle-timeout-s",
    "max-tool-rounds",
    "nvidia-research",
    // Inputs of the search that are the suite's own files (resolved against its directory).
    "candidates",
    "replay-from"};

const flag_set path_flags{"candidates", "replay-from"};

const flag_set program_flags{"worker", "worker-cmd", "worker-arg", "ncu"};
const flag_set file_flags{"config",
                          "eval-cache",
                          "roofline",
                          "price-table",
                          "signature",
                          "reference",
                          "initial-kernel",
                          "input-cases"};
const flag_set credential_flags{"api-key-env", "insecure-local"};

/// A base URL the key may go to when a suite names it: a loopback host (a local model server).
bool harmless_base_url(const std::optional<std::string>& value)
{
    if (!value)
        return false;
    try
    {
        return http::is_loopback_host(http::parse_http_url(*value, "base-url").host);
    }
    catch (const user_error&)
    {
        return false;
    }
}

}  // namespace

bool is_set_by_the_suite(std::string_view flag)
{
    return suite_flags.count(flag) != 0;
}

std::optional<std::string> why_a_suite_may_not_set(std::string_view flag,
                                                   const std::optional<std::string>& value)
{
    if (flag == "base-url")
    {
        if (harmless_base_url(value))
            return std::nullopt;
        return "sends the API key to a server the suite names (a suite may name only a loopback server, e.g. "
               "http://127.0.0.1:8000/v1)";
    }
    if (search_and_timing_flags.count(flag))
        return std::nullopt;
    if (program_flags.count(flag))
        return "runs a program, or chooses its arguments";
    if (file_flags.count(flag))
        return "reads or writes a file the suite names";
    if (credential_flags.count(flag))
        return "chooses the credential sent, or how its server is trusted";
    if (flag == "compile-memory-mib")
        return "sets the memory a kernel's compile may take (a suite could lift the limit)";
    return "is not a search, timing or model option";
}

bool is_path_option(std::string_view flag)
{
    return path_flags.count(flag) != 0;
}

}  // namespace warpsmith::report
