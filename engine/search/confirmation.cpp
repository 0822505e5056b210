#include "engine/search/confirmation.hpp"

#include <algorithm>

namespace warpsmith
{

confirmation_planner::confirmation_planner(int top, int max_attempts)
    : top_(std::max(1, top)), max_attempts_(std::max(1, max_attempts))
{
}

std::vector<std::string> confirmation_planner::next(const std::vector<evaluated_candidate>& history) const
{
    if (attempts_ >= max_attempts_)
        return {};
    // After an attempt, go on only when it left no candidate standing because the worker found
    // them invalid: then the winner would otherwise be chosen among unconfirmed kernels.
    if (attempts_ > 0 && (survived_ || !last_invalidated_))
        return {};
    std::vector<evaluated_candidate> rest;
    for (const auto& c : history)
        if (!tried_.count(c.id))
            rest.push_back(c);
    return top_candidates(rest, top_);
}

void confirmation_planner::record(const std::vector<std::string>& batch, const confirmation_decision& d)
{
    ++attempts_;
    survived_ = false;
    last_invalidated_ = false;
    for (const auto& id : batch)
    {
        tried_.insert(id);
        const bool invalid =
            std::any_of(d.invalid.begin(), d.invalid.end(), [&](const auto& f) { return f.key == id; });
        if (invalid)
            last_invalidated_ = true;
        else if (std::any_of(d.entries.begin(), d.entries.end(), [&](const auto& e) { return e.key == id; }))
            survived_ = true;
    }
    for (const auto& f : d.invalid)
        if (std::find(batch.begin(), batch.end(), f.key) != batch.end())
            invalidated_.push_back(f);
}

namespace
{

std::string invalidated_list(const std::vector<confirmation_failure>& inv)
{
    std::string out;
    for (std::size_t i = 0; i < inv.size(); ++i)
    {
        if (i == 4 && inv.size() > 5)
        {
            out += ", and " + std::to_string(inv.size() - i) + " more";
            break;
        }
        out += (i ? ", " : "") + inv[i].key + " (" + inv[i].kind + ")";
    }
    return out;
}

}  // namespace

winner_choice choose_winner(const winner_inputs& in)
{
    winner_choice w;
    const std::string invalid_text = in.invalidated.empty()
                                         ? std::string()
                                         : "the confirmation invalidated " + invalidated_list(in.invalidated);
    if (in.decision && in.decision->winner)
    {
        w.winner = in.decision->winner;
        w.decided_by = "confirmation";
        w.confirmed = true;
        if (*w.winner == "initial" && in.no_candidate_survived)
            w.note = "no candidate survived confirmation (" + invalid_text + "); the initial kernel wins";
        else if (!invalid_text.empty())
            w.note = invalid_text + "; the winner is the fastest candidate that survived it";
        return w;
    }
    if (in.no_candidate_survived)
    {
        w.note = "no candidate survived confirmation (" + invalid_text + "); best.cu is not written";
        return w;
    }
    const std::string why = in.skipped.empty() ? std::string("the confirmation timed no eligible entry")
                                               : "the confirmation did not decide (" + in.skipped + ")";
    if (in.search_best)
    {
        w.winner = in.search_best;
        w.decided_by = "search";
        w.note = "not confirmed: " + why + "; the winner is the best valid candidate on search timings" +
                 (invalid_text.empty() ? std::string() : "; " + invalid_text);
        return w;
    }
    if (in.initial_valid)
    {
        w.winner = "initial";
        w.decided_by = "search";
        w.note = "not confirmed: " + why + "; no valid candidate, the initial kernel is the winner" +
                 (invalid_text.empty() ? std::string() : "; " + invalid_text);
        return w;
    }
    if (!invalid_text.empty())
        w.note = "no valid kernel: " + invalid_text;
    return w;
}

}  // namespace warpsmith
