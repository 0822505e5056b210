#pragma once

// --provider replay --replay-from RUN (SPEC §5 "replay"): re-serves the model answers recorded in
// RUN/llm/ instead of calling a model: deterministic re-runs, and strategy comparisons at zero cost.
//
// Matching: answers are queued per branch (inference exchanges form their own queue) in the
// order of their record numbers, and the k-th request of branch b gets the k-th recorded answer
// of branch b, whatever its content. Branches run concurrently, so global order differs between
// runs; per-branch order does not, since a branch's exchanges are sequential. Failed exchanges
// (no response recorded) are skipped.
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

#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace warpsmith::llm {

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
    explicit replay_client(const std::filesystem::path& run);

    std::string provider() const override { return "replay"; }
    std::string model() const override { return model_; }
    bool structured_output() const override { return structured_; }
    boost::asio::awaitable<model_response> complete(model_request req) override;

    /// Answers not yet served, per branch (-1: inference).
    std::map<int, std::size_t> remaining() const;
    const std::string& recorded_provider() const { return recorded_provider_; }

private:
    std::map<int, std::deque<recorded_exchange>> queues_;
    std::map<int, int> served_;
    std::set<int> warned_;
    std::string model_;
    std::string recorded_provider_;
    std::string source_;
    bool structured_ = true;
};

}  // namespace warpsmith::llm
