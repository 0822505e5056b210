#pragma once

// The run's llm/ folder (SPEC §4, §5 "Records"): one JSON file per exchange, named
// NNNN-b<branch>-i<iteration>-<purpose>.json (NNNN counts exchanges of the run in the order they
// ended; inference exchanges are NNNN-inference-<purpose>.json), plus usage.json with the totals
// per branch. A record holds the branch, iteration, purpose, provider, model, URL, redacted
// request headers, the timestamps of send / first byte / complete, the request body, the response
// body or the streamed events, the parsed response (text, tool calls, usage with cost), the
// results of the tools the model called, and the error of a failed exchange. Every string passes
// through the redactor before it is written. Format: docs/agents.md ("llm/ records").
//
// Threading: one io_context thread (the engine's); files are written atomically.

#include "agents/llm/credentials.hpp"
#include "agents/llm/model_types.hpp"
#include "agents/llm/price_table.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::llm
{

inline constexpr const char* record_format = "warpsmith-llm-record/1";

/// The record of one exchange as JSON (not yet redacted).
boost::json::object make_record(int seq,
                                const model_request& req,
                                const model_response* resp,
                                const exchange_trace& trace);

/// The file name of a record: "0007-b2-i3-propose.json", "0001-inference-infer.json".
std::string record_file_name(int seq, int branch, int iteration, const std::string& purpose);

class record_writer
{
public:
    /// Numbering continues after the highest NNNN- file already in dir (a resumed run appends).
    /// dir is created when missing; user_error when it cannot be.
    record_writer(std::filesystem::path dir, std::shared_ptr<const redactor> redact);

    /// Writes the record of one exchange; returns its file name. Also adds the usage of a
    /// successful exchange to the ledger and rewrites usage.json.
    std::string write(const model_request& req, const model_response* resp, const exchange_trace& trace);
    /// Adds the results of the tools called in a recorded exchange ({"id", "name", "output"} each)
    /// and rewrites its file.
    void attach_tool_results(const std::string& file, boost::json::array results);

    /// An observer for model_client::set_observer.
    std::function<std::string(const model_request&, const model_response*, const exchange_trace&)> observer();

    const usage_ledger& ledger() const { return ledger_; }
    const std::filesystem::path& dir() const { return dir_; }

private:
    void store(const std::string& file, const boost::json::object& rec);

    std::filesystem::path dir_;
    std::shared_ptr<const redactor> redact_;
    int next_seq_ = 1;
    usage_ledger ledger_;
    std::map<std::string, boost::json::object> recent_;  ///< Records that may get tool results.
    std::vector<std::string> recent_order_;
};

/// One record read back (replay): the parsed response and the keys that order it.
struct recorded_exchange
{
    int seq = 0;
    int branch = -1;
    int iteration = 0;
    std::string purpose;
    std::string file;
    std::string provider;
    std::string model;
    std::string request_digest;  ///< SHA-256 of the request's messages, for mismatch warnings.
    bool ok = false;             ///< A response was recorded (failed exchanges are skipped).
    model_response response;
};

/// Reads every record of an llm/ folder, ordered by seq. Throws user_error naming the file for a
/// record that is not valid JSON or not a warpsmith record.
std::vector<recorded_exchange> read_records(const std::filesystem::path& dir);

/// Every number in `text` (integer, decimal or exponent form) replaced by '#'.
std::string mask_numbers(std::string_view text);

/// The digest of a request's conversation (messages and tools), stable across runs: numbers are
/// masked first, since prompts quote measured times, candidate ids and run numbers that differ
/// between a run and its replay; the words and the code around them must match.
std::string request_digest(const model_request& req);

}  // namespace warpsmith::llm
