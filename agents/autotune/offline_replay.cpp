#include "agents/autotune/offline_replay.hpp"

#include <algorithm>

namespace warpsmith::autotune
{

offline_result replay_offline(optimizer& opt,
                              const std::function<std::optional<double>(const point&)>& score,
                              std::size_t budget,
                              std::size_t batch,
                              const std::function<bool(const point&)>& pruned)
{
    struct asked_point
    {
        point p;
        std::optional<double> score;  ///< nullopt: unknown.
        bool pruned = false;
    };
    offline_result r;
    batch = std::max<std::size_t>(batch, 1);
    while (r.asked < budget && !r.exhausted)
    {
        std::vector<asked_point> round;
        const std::size_t want = std::min(batch, budget - r.asked);
        std::size_t counted = 0;
        while (counted < want)
        {
            auto s = opt.ask();
            if (!s)
            {
                r.exhausted = true;
                break;
            }
            asked_point a{s->p, score(s->p)};
            if (!a.score && pruned && pruned(a.p))
            {
                a.pruned = true;
                ++r.pruned;
                round.push_back(std::move(a));
                continue;
            }
            ++counted;
            round.push_back(std::move(a));
        }
        for (const auto& a : round)
        {
            if (a.pruned)
            {
                opt.tell(a.p, infeasible_score);
                continue;
            }
            ++r.asked;
            if (!a.score)
            {
                ++r.unknown;
                if (!r.first_unknown_at)
                    r.first_unknown_at = r.asked;
                opt.tell(a.p, infeasible_score);
                r.curve.add(opt.space().describe(a.p) + " (not measured)", infeasible_score);
                continue;
            }
            ++r.evaluated;
            opt.tell(a.p, *a.score);
            r.curve.add(opt.space().describe(a.p), *a.score);
        }
    }
    r.best = opt.best();
    return r;
}

}  // namespace warpsmith::autotune
