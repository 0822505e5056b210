// The final confirmation (SPEC §3 "Trust rules"): the best candidates re-timed interleaved with
// the reference under every protection, attempts, invalidation, and the decision.

#include "engine/search/search_engine_impl.hpp"

namespace warpsmith
{

using namespace search_detail;

/// The final confirmation (confirmation.hpp): attempts of time_interleaved until a candidate
/// survives, journaling every candidate the worker finds invalid. Never throws for a failed
/// request: confirmation_ then says "skipped" with the reason and write_best() falls back to
/// the search's numbers, marked unconfirmed.
asio::awaitable<void> search_engine::impl::confirm()
{
    if (opts_.confirm_top <= 0)
    {
        confirmation_ = json::object{{"skipped", "--confirm-top 0"}};
        co_return;
    }
    confirmation_planner plan(opts_.confirm_top, k_max_confirmation_attempts);
    auto batch = plan.next(history_);
    if (batch.empty())
    {
        confirmation_ = json::object{{"skipped", "no valid candidate"}};
        co_return;
    }
    std::string failed;
    try
    {
        while (!batch.empty())
        {
            auto d = co_await confirmation_attempt(batch, plan.attempts() + 1);
            if (!d)
                break;  // confirmation_ says why
            plan.record(batch, *d);
            decision_ = std::move(*d);
            batch = plan.next(history_);
        }
    }
    catch (const std::exception& e)
    {
        failed = e.what();
    }
    json::object invalid;
    for (const auto& f : plan.invalidated())
        invalid[f.key] = f.to_json();
    if (!failed.empty())
    {
        log_warn("confirmation failed: " + failed);
        decision_.reset();
        confirmation_ = json::object{{"skipped", "failed: " + failed}};
    }
    if (!decision_)
    {
        if (!confirmation_.contains("skipped"))
            confirmation_ = json::object{{"skipped", "no attempt completed"}};
        confirmation_["attempts"] = plan.attempts();
        confirmation_["invalidated"] = std::move(invalid);
        co_return;
    }
    no_candidate_survived_ = plan.no_candidate_survived();
    confirmation_ = decision_->to_json();
    confirmation_["gpu"] = 0;
    confirmation_["rounds"] = opts_.confirm_rounds;
    confirmation_["attempts"] = plan.attempts();
    confirmation_["invalidated"] = std::move(invalid);
    confirmation_["no_candidate_survived"] = no_candidate_survived_;
}

/// One attempt: the reference, the initial kernel and `batch` timed interleaved on GPU 0. Marks
/// the candidates the worker finds invalid (journal `invalidated`, result.json, history) and
/// journals the attempt (`confirmation`). nullopt when the reference does not compile again.
asio::awaitable<std::optional<confirmation_decision>> search_engine::impl::confirmation_attempt(
    std::vector<std::string> batch, int attempt)
{
    std::vector<std::pair<std::string, evaluate_request>> entries;
    std::vector<confirmation_input> inputs;
    const int gpu = 0;
    auto add = [&](const std::string& key,
                   const candidate& c,
                   const compile_output& compiled,
                   bool eligible,
                   std::optional<double> search_score)
    {
        evaluate_request er;
        er.name = key;
        er.cand = c;
        er.cubin = compiled.cubin;
        er.local_memory = compiled.local_memory;
        er.timing = opts_.timing;
        entries.emplace_back(key, std::move(er));
        inputs.push_back(confirmation_input{key, eligible, search_score});
    };
    // Compiles hit the compile cache: these exact sources were compiled during the search.
    auto ref_cand = candidate::from_kernel(work_.reference);
    auto ref_out = co_await backend_.compile(compile_request_for(ref_cand, arch_));
    if (!ref_out.compiled)
    {
        confirmation_ = json::object{{"skipped", "the reference did not compile again"}};
        co_return std::nullopt;
    }
    add("reference", ref_cand, ref_out, false, ref_[gpu].score);
    if (work_.initial && init_[gpu].valid && !initial_invalidated_)
    {
        auto init_cand = candidate::from_kernel(*work_.initial);
        auto init_out = co_await backend_.compile(compile_request_for(init_cand, arch_));
        if (init_out.compiled)
            add("initial", init_cand, init_out, true, init_[gpu].score);
    }
    for (const auto& id : batch)
    {
        const auto& rec = records_[by_id_.at(id)];
        auto out = co_await backend_.compile(compile_request_for(rec.ec.cand, arch_));
        if (out.compiled)
        {
            // The search score to compare with is the one on the confirmation GPU's terms.
            add(id, rec.ec.cand, out, true, rec.ec.score_us);
        }
    }
    auto response = co_await backend_.time_interleaved(gpu, std::move(entries), opts_.confirm_rounds);
    auto d = decide_confirmation(response, inputs);
    for (const auto& f : d.invalid)
    {
        if (f.key == "initial")
            initial_invalidated_ = true;
        if (auto it = by_id_.find(f.key); it != by_id_.end())
            invalidate(it->second, f, attempt);
        else
            log_warn("confirmation: " + f.key + " is invalid: " + f.kind + ": " + f.text());
    }
    json::object ev = d.to_json();
    ev["event"] = "confirmation";
    ev["attempt"] = attempt;
    ev["gpu"] = gpu;
    ev["rounds"] = opts_.confirm_rounds;
    journal(ev);
    co_return d;
}

/// A candidate the confirmation found invalid: journaled, its files rewritten, out of the
/// running for the winner (best_ is recomputed).
void search_engine::impl::invalidate(std::size_t idx, const confirmation_failure& f, int attempt)
{
    auto& rec = records_[idx];
    invalidate_record(rec, "confirmation", attempt, f.kind, f.case_name, f.message);
    journal(invalidated_event(rec));
    for (auto& h : history_)
        if (h.id == rec.id())
            h = rec.ec;
    in_background([this, rec, timing = opts_.timing.to_json()]
                  { run_.write_evaluated(rec, work_, timing, opts_.hidden_seed); },
                  rec.id());
    recompute_best();
}

/// With adaptive timing, per performance case: dominated_factor x the best candidate's median
/// (the worker stops timing a case after a segment above it, timer.hpp). Empty otherwise.
std::map<std::string, double> search_engine::impl::dominated_thresholds() const
{
    std::map<std::string, double> out;
    if (opts_.timing.target_rel_noise <= 0 || !best_)
        return out;
    for (const auto& [name, us] : records_[*best_].ec.case_median_us)
        if (us > 0)
            out[name] = dominated_factor * us;
    return out;
}

}  // namespace warpsmith
