#pragma once

// The LLM strategies (SPEC §5 "LLM strategies") on the engine's strategy interface:
//   refine  each branch improves its own line: the parent is the branch's best valid candidate
//           (its first round starts from the initial kernel);
//   beam    each iteration the branches start from the best distinct candidates: branch b takes
//           the b-th best (distinct by source, launch plan and defines), wrapping around;
//   evolve  islands (branch b lives on island b % islands); parents by tournament with a
//           diversity bonus over kernel features; crossover prompts combining two parents (the
//           second from another island every migration_interval iterations); an advice line
//           pointing at an unexplored feature (kernel_features.hpp).
// All three share the round: feedback (feedback.hpp), an exchange with tools (exchange.hpp), the
// proposal schema (proposal_format.hpp), repairs of the branch's invalid candidates when the
// engine asks (proposal_context::repair_of), usage reported through strategy_services, and llm/
// records. Random choices come from a generator seeded by (seed, branch, iteration), so they do
// not depend on the order in which branches run.
//
// Reproducible prompts: everything a round is built from (parents, best so far, failures, what the
// other branches tried, the history tool) comes from the candidates visible to the round, in
// canonical order: by (iteration, branch, id), never in the order results arrived. In barrier mode
// (search_view::barrier) a round of iteration k sees the candidates of iterations < k only, which
// the engine has all recorded before the iteration starts; a round retried after a failure, or one
// whose branch answered first, therefore sees the same set as any other run with the same answers.
// With --async a round sees whatever had been evaluated when it started (that is the point of the
// mode), so its prompts depend on timing.
//
// Errors: a fatal provider error (rejected key, unknown model, unreachable URL, bad certificate)
// is remembered and rethrown at once by every later propose(), so the engine stops the branches
// quickly; fatal_error() lets the optimize command report it as one line. A replay that has no
// more answers for a branch ends that branch (nullopt).

#include "agents/llm/exchange.hpp"
#include "agents/llm/feedback.hpp"
#include "agents/llm/llm_records.hpp"
#include "agents/llm/model_client.hpp"
#include "agents/strategies/kernel_features.hpp"
#include "agents/strategy.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace warpsmith
{

struct llm_strategy_options
{
    std::string kind = "refine";  ///< refine, beam, evolve
    std::uint64_t seed = 0;
    bool stream = true;
    std::string reasoning_effort;  ///< "" = not sent.
    std::optional<int> max_output_tokens;
    llm::exchange_settings exchange;  ///< Tool rounds, answer repairs.
    bool tools = true;
    bool nvidia_docs = false;
    /// Hosted web search limited to these domains (--nvidia-research with --provider openai);
    /// cited pages are appended to the candidate's rationale.
    std::vector<std::string> web_search_domains;
    std::filesystem::path guidance_dir;
    int recent_failures = 4;  ///< Failures shown per round.
    // evolve
    int islands = 0;  ///< 0: max(1, min(4, branches / 2)).
    double crossover_rate = 0.3;
    int migration_interval = 3;
};

/// The parents and framing of one round.
struct round_plan
{
    llm::proposal_mode mode = llm::proposal_mode::start;
    std::optional<evaluated_candidate> parent;
    std::optional<evaluated_candidate> second_parent;
    std::string hint;
};

class llm_strategy : public strategy
{
public:
    /// redact: the secrets to keep out of records (the API key); may be null.
    llm_strategy(std::shared_ptr<llm::model_client> client,
                 llm_strategy_options opts,
                 const workload& w,
                 std::shared_ptr<const llm::redactor> redact);
    ~llm_strategy() override;

    std::string name() const override { return opts_.kind; }
    boost::asio::awaitable<std::optional<proposal>> propose(proposal_context ctx) override;
    void observe(const evaluated_candidate& c) override;

    /// The first fatal provider error, if any (one line).
    const std::optional<std::string>& fatal_error() const { return fatal_; }
    llm::model_client& client() { return *client_; }
    /// Every candidate observed, in canonical order (iteration, branch, id).
    const std::vector<evaluated_candidate>& history() const { return history_; }
    /// The candidates a round may be built from, in canonical order (see the header comment).
    std::vector<const evaluated_candidate*> visible(const proposal_context& ctx) const;
    /// The best of the visible candidates (highest speedup, then lowest score, then the earliest in
    /// canonical order), or the engine's best when this strategy has observed nothing.
    std::optional<evaluated_candidate> best_visible(const proposal_context& ctx) const;
    /// The feedback of a round (public for tests: prompts must not depend on arrival order).
    llm::feedback_input feedback_for(const proposal_context& ctx, const round_plan& p) const;
    /// Records are written to `dir` (default: strategy_services::llm_record_dir() at first use).
    void set_record_dir(const std::filesystem::path& dir);

    /// Chooses the round's parents (the sans-I/O heart of each strategy; public for tests).
    virtual round_plan plan(const proposal_context& ctx, std::mt19937_64& rng) const = 0;

protected:
    const workload& work() const { return work_; }
    const llm_strategy_options& options() const { return opts_; }
    /// Visible valid candidates, best (lowest score) first; ties in canonical order.
    std::vector<const evaluated_candidate*> valid_by_score(const proposal_context& ctx) const;
    /// The best visible valid candidate of a branch's own line.
    const evaluated_candidate* best_of_branch(const proposal_context& ctx, int branch) const;

private:
    std::shared_ptr<llm::model_client> client_;
    llm_strategy_options opts_;
    workload work_;
    std::shared_ptr<const llm::redactor> redact_;
    std::unique_ptr<llm::record_writer> records_;
    std::vector<evaluated_candidate> history_;
    std::optional<std::string> fatal_;
};

class refine_strategy final : public llm_strategy
{
public:
    using llm_strategy::llm_strategy;
    round_plan plan(const proposal_context& ctx, std::mt19937_64& rng) const override;
};

class beam_strategy final : public llm_strategy
{
public:
    using llm_strategy::llm_strategy;
    round_plan plan(const proposal_context& ctx, std::mt19937_64& rng) const override;
};

class evolve_strategy final : public llm_strategy
{
public:
    using llm_strategy::llm_strategy;
    round_plan plan(const proposal_context& ctx, std::mt19937_64& rng) const override;
    int islands(int branches) const;
    int island_of(int branch, int branches) const { return branch % islands(branches); }
};

/// refine, beam or evolve; user_error for another name.
std::unique_ptr<llm_strategy> make_llm_strategy_of_kind(std::shared_ptr<llm::model_client> client,
                                                        llm_strategy_options opts,
                                                        const workload& w,
                                                        std::shared_ptr<const llm::redactor> redact);

/// The seed of a round's generator: a mix of (seed, branch, iteration).
std::uint64_t round_seed(std::uint64_t seed, int branch, int iteration);

}  // namespace warpsmith
