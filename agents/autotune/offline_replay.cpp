#include "agents/autotune/offline_replay.hpp"

#include <algorithm>

namespace warpsmith::autotune
{

offline_result replay_offline(optimizer& opt,
                              const std::function<std::optional<double>(const point&)>& score,
                              std::size_t budget,
                              std::size_t batch,
                              std::size_t max_unknown)
{
    offline_result r;
    batch = std::max<std::size_t>(batch, 1);
    while (r.evaluated < budget && r.unknown <= max_unknown)
    {
        auto asked = opt.ask_batch(std::min(batch, budget - r.evaluated));
        if (asked.empty())
        {
            r.exhausted = true;
            break;
        }
        for (const auto& s : asked)
        {
            const auto v = score(s.p);
            if (!v)
            {
                ++r.unknown;
                opt.tell(s.p, infeasible_score);
                continue;
            }
            ++r.evaluated;
            opt.tell(s.p, *v);
            r.curve.add(opt.space().describe(s.p), *v);
        }
    }
    r.best = opt.best();
    return r;
}

}  // namespace warpsmith::autotune
