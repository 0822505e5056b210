#include "engine/report/run_metrics.hpp"

#include "engine/search/scoring.hpp"
#include "harness/json/lenient.hpp"

#include <cmath>

namespace warpsmith::report
{

using lenient::array_at;
using lenient::number_at;
using lenient::object_at;
using lenient::string_at;

run_metrics metrics_of(const run_view& v)
{
    run_metrics m;
    m.status = v.status;
    m.stop_reason = v.stop_reason;
    if (const auto* devices = array_at(&v.run_json, "devices"); devices && !devices->empty())
        m.device = string_at(object_at(&devices->front()), "name").value_or("");
    m.best_id = v.best_id;

    const auto* best = v.summary ? object_at(&*v.summary, "best") : nullptr;
    const auto* confirmed = object_at(best, "confirmation");
    m.best_speedup = number_at(confirmed, "speedup_vs_reference");
    m.best_score_us = number_at(confirmed, "score_us");
    if (!m.best_speedup)
        m.best_speedup = number_at(best, "speedup_vs_reference");
    if (!m.best_score_us)
        m.best_score_us = number_at(best, "score_us");
    if (v.best_id && (!m.best_speedup || !m.best_score_us))
    {
        if (*v.best_id == "initial")
        {
            const auto init = v.initial_medians();
            if (!m.best_speedup)
                m.best_speedup = geomean_speedup(v.reference_medians(), init);
            if (!m.best_score_us)
                m.best_score_us = score_of(init);
        }
        else if (const auto* c = v.find(*v.best_id))
        {
            if (!m.best_speedup && c->rec.ec.speedup_vs_reference > 0)
                m.best_speedup = c->rec.ec.speedup_vs_reference;
            if (!m.best_score_us && c->rec.ec.score_us > 0)
                m.best_score_us = c->rec.ec.score_us;
        }
    }
    if (m.best_speedup && !(*m.best_speedup > 0))
        m.best_speedup.reset();

    if (v.roofline)
        if (const auto* cases = object_at(&*v.roofline, "cases"))
        {
            double log_sum = 0;
            int n = 0;
            for (const auto& kv : *cases)
                if (const auto f = number_at(object_at(&kv.value()), "fraction"); f && *f > 0)
                {
                    log_sum += std::log(*f);
                    ++n;
                }
            if (n > 0)
                m.roofline_fraction = std::exp(log_sum / n);
        }

    if (v.best_id)
    {
        if (*v.best_id == "initial")
        {
            m.time_to_best_s = 0;
            m.time_to_best_evals = 0;
        }
        else if (const auto* c = v.find(*v.best_id); c && !c->pending())
        {
            m.time_to_best_s = c->evaluated_at_s;
            m.time_to_best_evals = c->evaluation_index;
        }
    }

    for (const auto& c : v.candidates)
    {
        ++m.proposed;
        if (c.pending())
            continue;
        ++m.evaluated;
        if (c.valid())
            ++m.valid;
    }
    if (m.evaluated > 0)
        m.valid_fraction = static_cast<double>(m.valid) / m.evaluated;
    m.tokens_input = v.usage.input;
    m.tokens_output = v.usage.output;
    m.cost_usd = v.usage.cost_usd;
    m.wall_seconds = v.wall_seconds ? v.wall_seconds : std::optional<double>(v.elapsed_seconds);
    m.gpu_busy_fraction = v.gpu_busy_fraction;
    return m;
}

}  // namespace warpsmith::report
