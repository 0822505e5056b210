#include "engine/search/best_kernel.hpp"

#include "harness/core/log.hpp"
#include "harness/json/lenient.hpp"

#include <filesystem>
#include <system_error>

namespace warpsmith
{

namespace json = boost::json;

best_kernel write_best(const best_kernel_state& s)
{
    winner_inputs in;
    in.decision = s.decision;
    in.no_candidate_survived = s.no_candidate_survived;
    // Every candidate a confirmation invalidated, this session's and earlier ones'.
    for (const auto& r : s.records)
        if (r.invalidated)
            in.invalidated.push_back(
                confirmation_failure{r.id(), r.ec.failure_kind, "", r.ec.failure_message});
    if (s.best)
        in.search_best = s.records[*s.best].id();
    in.initial_valid = !s.initial.empty() && s.initial[0].valid && !s.initial_invalidated;
    if (auto skipped = lenient::string_at(s.confirmation, "skipped"))
        in.skipped = std::move(*skipped);
    const auto choice = choose_winner(in);
    best_kernel out;
    out.note = choice.note;
    out.winner = choice.winner;
    const auto& winner = choice.winner;
    const std::string decided_by = choice.decided_by;
    if (!winner)
    {
        // A resumed run that had a winner before must not keep its stale best.cu.
        std::error_code ec;
        std::filesystem::remove(s.run.path() / "best.cu", ec);
        std::filesystem::remove(s.run.path() / "best.json", ec);
        return out;
    }

    candidate cand;
    json::object w{{"id", *winner}, {"decided_by", decided_by}, {"source_file", "best.cu"}};
    if (*winner == "initial")
    {
        cand = candidate::from_kernel(*s.work.initial);
        w["score_us"] = opt_json(s.initial[0].score);
        w["speedup_vs_reference"] = opt_json(geomean_speedup(s.reference[0].medians, s.initial[0].medians));
        w["speedup_vs_initial"] = 1.0;
    }
    else
    {
        const auto& rec = s.records[s.by_id.at(*winner)];
        cand = rec.ec.cand;
        w = json::object{{"id", *winner}, {"decided_by", decided_by}, {"source_file", "best.cu"}};
        for (auto& kv : candidate_summary(rec))
            w[kv.key()] = kv.value();
        w["rationale"] = rec.ec.rationale;
        w["parent"] = opt_json(rec.ec.parent);
    }
    w["confirmed"] = choice.confirmed;
    if (s.decision)
        for (const auto& e : s.decision->entries)
            if (e.key == *winner)
                w["confirmation"] = json::object{{"score_us", e.score_us},
                                                 {"speedup_vs_reference", e.speedup_vs_reference},
                                                 {"speedup_vs_initial", e.speedup_vs_initial},
                                                 {"case_median_us", medians_json(e.medians)}};
    // best.json doubles as the sidecar of best.cu for --initial-kernel: entry and launch plan
    // at the top level.
    json::object best = w;
    const auto cand_json = cand.to_json();
    for (auto& kv : cand_json.as_object())
        if (kv.key() != "source")
            best[kv.key()] = kv.value();
    try
    {
        s.run.write_text("best.cu", cand.source);
        s.run.write_json("best.json", best);
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("cannot write best.cu: ") + e.what());
    }
    out.json = std::move(w);
    return out;
}

}  // namespace warpsmith
