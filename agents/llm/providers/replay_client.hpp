#pragma once

// --provider replay --replay-from RUN (SPEC §5 "replay"): re-serves the model answers recorded in
// RUN/llm/ instead of calling a model: deterministic re-runs, and strategy comparisons at zero cost.
//
// Matching: answers are queued per branch (inference exchanges form their own queue) in the
// order of their record numbers, and the k-th request of branch b gets the k-th recorded answer
// of branch b, whatever its content. Branches run concurrently, so global order differs between
// runs; per-branch order does not, since a branch's exchanges are sequential. Failed exchanges
// (no response recorded) are skipped.
// Order across branches: an answer is held back until every recorded answer with a smaller record
// number has been served, so answers reach the search in the recorded order and the journal reads
// like the recorded run's. Candidate ids and prompts do not depend on it in barrier mode (the
// engine numbers candidates by iteration and branch, and strategies order what they see by
// candidate); with --async, where a slot's next round starts when its answer has been evaluated,
// the recorded order keeps the replay's rounds close to the recorded ones. A run that diverges (a
// branch never asks for an earlier answer) waits `order_grace` once for those answers, is then
// served out of order with one warning, and no later answer waits for them again. Inference
// answers are outside this order: they come before the search, and a replay given --workload asks
// for none.
// Mismatches:
//  * a request whose conversation digest or purpose differs from the recorded one (a changed
//    prompt, a different history) is still served the recorded answer, with one warning per branch;
//  * a branch that asks for more answers than were recorded (or a branch the recorded run did not
//    have) gets replay_exhausted, which the LLM strategies treat as "nothing more to propose" for
//    that branch.
// Usage: recorded token counts are reported again (so token budgets behave as in the original
// run) with cost 0.

#include "agents/llm/llm_records.hpp"
#include "agents/llm/model_client.hpp"

#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace warpsmith::llm
{

class replay_exhausted : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class replay_client final : public model_client
{
public:
    /// run: a run directory (its llm/ is read) or an llm/ folder itself. Throws user_error when it
    /// holds no records with responses.
    explicit replay_client(const std::filesystem::path& run,
                           std::chrono::milliseconds order_grace = std::chrono::seconds(5));

    std::string provider() const override { return "replay"; }
    std::string model() const override { return model_; }
    bool structured_output() const override { return structured_; }
    boost::asio::awaitable<model_response> complete(model_request req) override;

    /// Answers not yet served, per branch (-1: inference).
    std::map<int, std::size_t> remaining() const;

private:
    std::map<int, std::deque<recorded_exchange>> queues_;
    std::set<int> unserved_;  ///< Record numbers not served yet (the recorded order).
    std::chrono::milliseconds order_grace_;
    bool warned_order_ = false;
    std::map<int, int> served_;
    std::set<int> warned_;
    std::string model_;
    std::string source_;
    bool structured_ = true;
};

}  // namespace warpsmith::llm
