#include "engine/run/run_replay.hpp"

#include "harness/core/error.hpp"
#include "harness/json/lenient.hpp"

namespace warpsmith
{

namespace json = boost::json;

std::vector<std::string> replayed_run::pending_ids() const
{
    std::vector<std::string> out;
    for (const auto& c : candidates)
        if (!c.evaluated)
            out.push_back(c.id());
    return out;
}

int replayed_run::next_candidate_number() const
{
    int n = 0;
    for (const auto& c : candidates)
        n = std::max(n, candidate_number(c.id()));
    return n + 1;
}

const candidate_record* replayed_run::find(std::string_view id) const
{
    auto it = by_id.find(id);
    return it == by_id.end() ? nullptr : &candidates[it->second];
}

void run_replay::apply(const json::object& ev)
{
    if (const auto seq = lenient::int_at(ev, "seq"))
        state_.next_seq = std::max(state_.next_seq, *seq + 1);
    const auto type = lenient::string_or(ev, "event");
    if (type != "run_finished")
        state_.finished = false;

    if (type == "run_started")
    {
        ++state_.starts;
    }
    else if (type == "proposed")
    {
        auto rec = record_from_proposed(ev);
        if (state_.by_id.count(rec.id()))
            throw user_error("journal: candidate " + rec.id() + " is proposed twice");
        state_.by_id.emplace(rec.id(), state_.candidates.size());
        state_.candidates.push_back(std::move(rec));
    }
    else if (type == "invalidated")
    {
        const auto id = lenient::string_or(ev, "id");
        auto it = state_.by_id.find(id);
        if (it == state_.by_id.end())
            throw user_error("journal: 'invalidated' event for unknown candidate '" + id + "'");
        apply_invalidated(state_.candidates[it->second], ev);
    }
    else if (type == "compiled" || type == "evaluated")
    {
        const auto id = lenient::string_or(ev, "id");
        auto it = state_.by_id.find(id);
        if (it == state_.by_id.end())
            throw user_error("journal: '" + type + "' event for unknown candidate '" + id + "'");
        auto& rec = state_.candidates[it->second];
        if (type == "compiled")
            apply_compiled(rec, ev);
        else
        {
            if (rec.evaluated)
                throw user_error("journal: candidate " + id + " is evaluated twice");
            apply_evaluated(rec, ev);
            state_.evaluation_order.push_back(it->second);
        }
    }
    else if (type == "iteration_finished")
    {
        if (const auto it = lenient::int_at(ev, "iteration"))
            state_.last_finished_iteration = std::max(state_.last_finished_iteration, static_cast<int>(*it));
    }
    else if (type == "usage")
    {
        token_usage u;
        u.input = static_cast<std::int64_t>(lenient::number_or(ev, "input"));
        u.cached_input = static_cast<std::int64_t>(lenient::number_or(ev, "cached_input"));
        u.output = static_cast<std::int64_t>(lenient::number_or(ev, "output"));
        u.reasoning = static_cast<std::int64_t>(lenient::number_or(ev, "reasoning"));
        u.cost_usd = lenient::number_or(ev, "cost_usd");
        state_.usage += u;
    }
    else if (type == "vendor_baseline")
    {
        const auto key = lenient::string_at(ev, "key");
        if (key && lenient::bool_at(ev, "available").value_or(false))
            state_.vendor_baselines[*key] = ev;
    }
    else if (type == "stop_requested")
    {
        state_.stop_reasons.push_back(lenient::string_or(ev, "reason"));
    }
    else if (type == "run_finished")
    {
        state_.finished = true;
    }
}

replayed_run replay_events(const std::vector<json::object>& events)
{
    run_replay r;
    for (const auto& e : events)
        r.apply(e);
    return r.take();
}

}  // namespace warpsmith
