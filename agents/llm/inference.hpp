#pragma once

// Workload inference from --description (SPEC §2, §5 "Inference"): whatever the user did not give
// (signature, cases, reference, initial kernel) is asked of the model in one structured request,
// then checked before the search starts:
//   1. it loads as a workload (workload::from_json: every field, every expression);
//   2. cases: at least two correctness cases of odd size (some size value odd and > 1, so tails
//      of tiled kernels run) and at least one performance case;
//   3. the reference and the initial kernel keep the kernel contract and compile (through the
//      engine's compile pool);
//   4. the reference runs on a GPU worker and, for every case, its outputs are not all zeros and
//      depend on the inputs (the worker's load_workload response: reference.all_zero,
//      depends_on_inputs, nonfinite; see check_reference_load).
// A failed check goes back to the model as a follow-up naming the problems (at most max_attempts
// rounds). Given parts are never replaced. The result is an ordinary workload JSON object, which
// the optimize command writes to the run's workload/ like any other, so --resume needs nothing
// else; the exchanges are in llm/ as NNNN-inference-*.json.

#include "agents/llm/exchange.hpp"
#include "agents/llm/model_client.hpp"
#include "harness/compile/compile_request.hpp"
#include "harness/workload/workload.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::llm
{

/// The JSON schema of the inference answer ("workload_inference").
boost::json::object inference_json_schema();

struct inference_request
{
    std::string description;
    /// The workload JSON assembled from what the user gave (may be empty): "signature",
    /// "launch", "tolerance", "cases", "reference_source", "initial_source", ...
    boost::json::object given;
    std::filesystem::path dir = ".";  ///< Relative paths in `given` resolve here.
};

/// The parts that must be inferred: "signature", "cases", "reference", "initial".
std::vector<std::string> missing_parts(const boost::json::object& given);

/// Merges an answer into the given parts (given parts win). Returns the workload JSON, or the
/// problems with the answer's shape.
struct merged_workload
{
    std::optional<boost::json::object> json;
    std::vector<std::string> problems;
};
merged_workload merge_inferred(const boost::json::object& given,
                               const boost::json::value& answer,
                               const std::string& description);

/// Problems of the cases (rule 2 above); empty when fine.
std::vector<std::string> check_inferred_cases(const workload& w);

/// Problems the worker's load_workload response reveals about the reference (rule 4), one
/// sentence per case and buffer: "case '37x61x19': the reference wrote only zeros to 'C'",
/// "case '37x61x19': the reference output does not depend on the inputs", "... 12 NaN/Inf values
/// in 'C'". Empty when fine. The engine may call it with any load response.
std::vector<std::string> check_reference_load(const boost::json::object& load_response);

using compile_function = std::function<boost::asio::awaitable<compile_output>(compile_request)>;
/// Loads a workload on a GPU worker and returns its load_workload response; throws user_error
/// when the reference fails there (fault, hang).
using load_function = std::function<boost::asio::awaitable<boost::json::object>(const workload&)>;

struct inference_settings
{
    int max_attempts = 3;  ///< Rounds of compile/run checks.
    exchange_settings exchange{0, 2};
    bool stream = false;
    std::string reasoning_effort;
    std::optional<int> max_output_tokens;
    std::string arch = "sm_90";  ///< For the compile checks.
};

struct inference_result
{
    boost::json::object workload_json;  ///< Self-contained (sources inline).
    std::vector<std::string> inferred;  ///< The parts that were inferred.
    std::vector<std::string> records;
    token_usage usage;
    int attempts = 0;
    boost::json::array checks;  ///< What was checked, per attempt (for workload/inference.json).
};

/// Runs the inference. load may be empty (no GPU check; the search's own start still runs the
/// reference). Throws user_error when no usable workload came out of max_attempts rounds, and
/// what the client throws (fatal_provider_error, ...). Awaitable on the io_context.
boost::asio::awaitable<inference_result> infer_workload(model_client& client,
                                                        inference_request request,
                                                        compile_function compile,
                                                        load_function load,
                                                        usage_reporter report_usage,
                                                        record_writer* records,
                                                        inference_settings settings);

}  // namespace warpsmith::llm
