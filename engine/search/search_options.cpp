#include "engine/search/search_options.hpp"

#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json/array.hpp>

namespace warpsmith
{

namespace json = boost::json;

json::object search_options::to_json() const
{
    return json::object{{"branches", branches},
                        {"async", async},
                        {"budgets", budgets.to_json()},
                        {"grace_seconds", grace_seconds},
                        {"confirm_top", confirm_top},
                        {"confirm_rounds", confirm_rounds},
                        {"timing", timing.to_json()},
                        {"max_repairs", max_repairs},
                        {"max_strategy_failures", max_strategy_failures},
                        {"hidden_seed", hidden_seed},
                        {"nsight", nsight.to_json()}};
}

json::object nsight_options::to_json() const
{
    json::array sections;
    for (const std::string& s : profiler.sections)
        sections.emplace_back(s);
    return json::object{{"enabled", enabled},
                        {"each_round", each_round},
                        {"profile_winner", profile_winner},
                        {"budget", budget},
                        {"ncu", profiler.ncu ? json::value(*profiler.ncu) : json::value(nullptr)},
                        {"sections", std::move(sections)},
                        {"timeout_ms", profiler.timeout.count()}};
}

namespace
{

void read_int(const json_reader& r, std::string_view key, int& out)
{
    if (auto x = r.optional_int64(key))
        out = static_cast<int>(*x);
}

void read_number(const json_reader& r, std::string_view key, double& out)
{
    out = r.optional_number(key).value_or(out);
}

}  // namespace

// run.json is warpsmith's record (null is absent): "run-001/run.json: config.search.branches: must
// be an integer, got \"two\"".
search_options search_options::from_json(const json::value& v, std::string_view origin)
try
{
    const json_reader r(v, json_location(std::string(origin), "config.search", json_style::record));
    search_options o;
    read_int(r, "branches", o.branches);
    o.async = r.optional_bool("async").value_or(o.async);
    read_number(r, "grace_seconds", o.grace_seconds);
    read_int(r, "confirm_top", o.confirm_top);
    read_int(r, "confirm_rounds", o.confirm_rounds);
    read_int(r, "max_repairs", o.max_repairs);
    read_int(r, "max_strategy_failures", o.max_strategy_failures);
    if (const auto n = r.optional_nested("nsight"))
    {
        o.nsight.enabled = n->optional_bool("enabled").value_or(o.nsight.enabled);
        o.nsight.each_round = n->optional_bool("each_round").value_or(o.nsight.each_round);
        o.nsight.profile_winner = n->optional_bool("profile_winner").value_or(o.nsight.profile_winner);
        read_int(*n, "budget", o.nsight.budget);
        if (auto ncu = n->optional_string("ncu"))
            o.nsight.profiler.ncu = std::move(*ncu);
        for (std::string& section : n->optional_strings("sections"))
            o.nsight.profiler.sections.push_back(std::move(section));
        if (auto ms = n->optional_int64("timeout_ms", {0}))
            o.nsight.profiler.timeout = std::chrono::milliseconds(*ms);
    }
    if (auto seed = r.optional_uint64("hidden_seed"))
        o.hidden_seed = *seed;
    if (const auto t = r.optional_nested("timing"))
    {
        read_int(*t, "warmup", o.timing.warmup);
        read_int(*t, "iterations", o.timing.iterations);
        if (auto m = t->optional_string("mode"))
        {
            const auto mode = protocol::timing_mode_from(*m);
            if (!mode)
                t->fail("mode", "must be \"cold\" or \"hot\", got \"" + *m + "\"");
            o.timing.mode = *mode;
        }
        read_number(*t, "target_rel_noise", o.timing.target_rel_noise);
    }
    if (const auto b = r.optional_nested("budgets"))
    {
        if (auto x = b->optional_int64("max_iterations"))
            o.budgets.iterations = static_cast<int>(*x);
        if (auto x = b->optional_int64("max_candidates"))
            o.budgets.candidates = static_cast<int>(*x);
        o.budgets.wall_seconds = b->optional_number("max_wall_seconds");
        o.budgets.tokens = b->optional_int64("max_tokens");
        o.budgets.cost_usd = b->optional_number("max_cost_usd");
    }
    return o;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

}  // namespace warpsmith
