#pragma once

// What a model answers when it proposes a kernel (SPEC §5; docs/prompts.md "The answer"):
//
//   {"rationale": "...", "kernel_source": "extern \"C\" __global__ void sgemm(...) {...}",
//    "entry": "sgemm",
//    "launch": {"grid": ["ceil_div(N,128)", "ceil_div(M,128)", "1"], "block": ["256", "1", "1"],
//               "shared_bytes": "0"},
//    "per_case_overrides": [{"case": "37x61x19", "launch": {...}}],
//    "compile_options": ["--use_fast_math"], "defines": [{"name": "BM", "value": 128}]}
//
// The JSON schema (proposal_json_schema) is OpenAI strict-mode compatible: every property is
// required and objects are closed, so maps are arrays of pairs. When a server cannot enforce a
// schema, the model answers in fenced blocks instead:
//
//   ```cuda
//   extern "C" __global__ void sgemm(...) { ... }
//   ```
//   ```json
//   {"entry": "sgemm", "launch": {...}, "rationale": "...", "defines": [...], ...}
//   ```
//
// The parser takes either form (a bare JSON object, a JSON object in a ```json block, or a
// ```cuda block plus a ```json block), and validation is lenient about representation (integers
// for expressions, objects for maps, absent optional fields) but precise about substance: every
// problem is reported as one sentence naming the field, and the list goes back to the model as a
// repair request.

#include "agents/strategy.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::llm
{

/// The JSON schema of a proposal ("kernel_proposal").
boost::json::object proposal_json_schema();
/// A launch plan object schema (reused by the inference schema).
boost::json::object launch_json_schema();

struct parsed_answer
{
    std::optional<boost::json::value> document;  ///< The proposal object (source merged in).
    std::string form;                            ///< "json", "fenced" or "" when nothing parsed.
    std::string problem;                         ///< Why nothing could be parsed.
};

/// Finds the proposal in an answer's text (see above). Prose around the blocks becomes the
/// rationale when the JSON has none.
parsed_answer parse_answer_text(std::string_view text);

/// The fenced blocks of a text: (language tag, body) in order. Unterminated blocks are ignored.
std::vector<std::pair<std::string, std::string>> fenced_blocks(std::string_view text);

struct proposal_check
{
    std::optional<proposal> prop;       ///< Set when there are no problems.
    std::vector<std::string> problems;  ///< One sentence each, naming the field.
};

/// Validates a proposal document against the schema's substance, the kernel contract
/// (kernel_contract.hpp), the compile option allow-list and the workload (candidate::validate:
/// overrides name cases, launch expressions evaluate for every case, defines do not clash).
proposal_check validate_proposal(const boost::json::value& doc, const workload& w);

/// parse_answer_text + validate_proposal.
proposal_check read_proposal(std::string_view text, const workload& w);

/// The candidate as a proposal document (what the schema describes); used in prompts to show a
/// starting point in the answer's own format, and by the fake server.
boost::json::object proposal_document(const candidate& c, const std::string& rationale);

}  // namespace warpsmith::llm
