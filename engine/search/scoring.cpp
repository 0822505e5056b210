#include "engine/search/scoring.hpp"

#include "harness/timing/timing_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

bool positive_finite(double x)
{
    return std::isfinite(x) && x > 0;
}

}  // namespace

std::optional<double> score_of(const case_medians& medians)
{
    std::vector<double> values;
    for (const auto& [k, m] : medians)
        if (positive_finite(m))
            values.push_back(m);
    if (values.empty())
        return std::nullopt;
    return geometric_mean(values);
}

std::optional<double> geomean_speedup(const case_medians& base, const case_medians& cand)
{
    std::vector<double> ratios;
    for (const auto& [k, c] : cand)
    {
        auto it = base.find(k);
        if (it != base.end() && positive_finite(it->second) && positive_finite(c))
            ratios.push_back(it->second / c);
    }
    if (ratios.empty())
        return std::nullopt;
    return geometric_mean(ratios);
}

bool better_candidate(const evaluated_candidate& a, const evaluated_candidate& b)
{
    if (a.valid != b.valid)
        return a.valid;
    if (a.speedup_vs_reference != b.speedup_vs_reference)
        return a.speedup_vs_reference > b.speedup_vs_reference;
    if (a.score_us != b.score_us)
        return a.score_us < b.score_us;
    return a.id < b.id;
}

std::vector<std::string> top_candidates(const std::vector<evaluated_candidate>& history, int k)
{
    std::vector<const evaluated_candidate*> valid;
    for (const auto& c : history)
        if (c.valid && c.score_us > 0)
            valid.push_back(&c);
    std::sort(valid.begin(), valid.end(), [](auto* a, auto* b) { return better_candidate(*a, *b); });
    std::vector<std::string> out;
    for (const auto* c : valid)
    {
        if (static_cast<int>(out.size()) >= k)
            break;
        out.push_back(c->id);
    }
    return out;
}

json::object confirmation_failure::to_json() const
{
    return json::object{{"kind", kind},
                        {"case", case_name.empty() ? json::value(nullptr) : json::value(case_name)},
                        {"message", message}};
}

std::string confirmation_failure::text() const
{
    return case_name.empty() ? message : "case " + case_name + ": " + message;
}

namespace
{

/// The entries time_interleaved found invalid, by key, with a message in every one.
std::map<std::string, confirmation_failure> invalid_entries(const protocol::interleaved_result& response)
{
    std::map<std::string, confirmation_failure> out;
    for (const auto& [key, report] : response.invalid)
    {
        confirmation_failure f;
        f.key = key;
        f.kind = report.kind.empty() ? "invalid" : report.kind;
        f.case_name = report.case_name;
        f.message = report.message;
        if (f.message.empty())
            f.message = "the interleaved confirmation found " + f.key + " invalid (" + f.kind + ")";
        out.emplace(f.key, std::move(f));
    }
    return out;
}

}  // namespace

confirmation_decision decide_confirmation(const protocol::interleaved_result& response,
                                          const std::vector<confirmation_input>& inputs)
{
    confirmation_decision d;
    const auto invalid = invalid_entries(response);
    for (const auto& in : inputs)
        if (auto it = invalid.find(in.key); it != invalid.end())
            d.invalid.push_back(it->second);
    auto medians_of = [&](const std::string& key)
    {
        case_medians m;
        if (invalid.count(key))
            return m;
        const auto e = response.timings.find(key);
        if (e == response.timings.end())
            return m;
        for (const auto& [name, timing] : e->second)
            if (auto x = timing.median_us(); x && positive_finite(*x))
                m[name] = *x;
        return m;
    };
    const auto reference = medians_of("reference");
    const auto initial = medians_of("initial");
    double sum_abs = 0;
    int diffs = 0;
    for (const auto& in : inputs)
    {
        confirmed_entry e;
        e.key = in.key;
        e.eligible = in.eligible;
        if (invalid.count(in.key))
            continue;
        e.medians = medians_of(in.key);
        auto score = score_of(e.medians);
        if (!score)
            continue;
        e.score_us = *score;
        e.speedup_vs_reference = geomean_speedup(reference, e.medians).value_or(0);
        e.speedup_vs_initial = geomean_speedup(initial, e.medians).value_or(0);
        e.search_score_us = in.search_score_us;
        if (in.search_score_us && *in.search_score_us > 0)
        {
            e.rel_diff = e.score_us / *in.search_score_us - 1;
            d.max_abs_rel_diff = std::max(d.max_abs_rel_diff, std::abs(*e.rel_diff));
            sum_abs += std::abs(*e.rel_diff);
            ++diffs;
        }
        d.entries.push_back(std::move(e));
    }
    if (diffs > 0)
        d.mean_abs_rel_diff = sum_abs / diffs;
    std::stable_sort(d.entries.begin(),
                     d.entries.end(),
                     [](const auto& a, const auto& b) { return a.score_us < b.score_us; });
    for (const auto& e : d.entries)
        if (e.eligible)
        {
            d.winner = e.key;
            break;
        }
    return d;
}

json::object confirmation_decision::to_json() const
{
    json::array arr;
    for (const auto& e : entries)
    {
        json::object m;
        for (const auto& [k, v] : e.medians)
            m[k] = v;
        arr.push_back(json::object{
            {"key", e.key},
            {"eligible", e.eligible},
            {"score_us", e.score_us},
            {"speedup_vs_reference", e.speedup_vs_reference},
            {"speedup_vs_initial", e.speedup_vs_initial},
            {"search_score_us", e.search_score_us ? json::value(*e.search_score_us) : json::value(nullptr)},
            {"rel_diff_vs_search", e.rel_diff ? json::value(*e.rel_diff) : json::value(nullptr)},
            {"case_median_us", std::move(m)}});
    }
    json::object inv;
    for (const auto& f : invalid)
        inv[f.key] = f.to_json();
    return json::object{{"entries", std::move(arr)},
                        {"invalid", std::move(inv)},
                        {"winner", winner ? json::value(*winner) : json::value(nullptr)},
                        {"max_abs_rel_diff_vs_search", max_abs_rel_diff},
                        {"mean_abs_rel_diff_vs_search", mean_abs_rel_diff}};
}

}  // namespace warpsmith
