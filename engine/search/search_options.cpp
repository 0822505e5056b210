#include "engine/search/search_options.hpp"

#include "harness/core/error.hpp"

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

search_options search_options::from_json(const json::value& v, std::string_view origin)
{
    search_options o;
    const auto* obj = v.if_object();
    if (!obj)
        throw user_error(std::string(origin) + ": the search settings must be an object");
    auto bad = [&](std::string_view key) -> user_error
    { return user_error(std::string(origin) + ": '" + std::string(key) + "' has the wrong type"); };
    auto get_int = [&](const json::object& o, std::string_view key, int& out)
    {
        if (const auto* x = o.if_contains(key))
        {
            if (!x->is_int64())
                throw bad(key);
            out = static_cast<int>(x->get_int64());
        }
    };
    auto get_double = [&](const json::object& o, std::string_view key, double& out)
    {
        if (const auto* x = o.if_contains(key))
        {
            if (!x->is_number())
                throw bad(key);
            out = x->to_number<double>();
        }
    };
    auto get_opt_int = [&](const json::object& o, std::string_view key, auto& out)
    {
        if (const auto* x = o.if_contains(key); x && !x->is_null())
        {
            if (!x->is_int64())
                throw bad(key);
            out = x->get_int64();
        }
    };
    auto get_opt_double = [&](const json::object& o, std::string_view key, std::optional<double>& out)
    {
        if (const auto* x = o.if_contains(key); x && !x->is_null())
        {
            if (!x->is_number())
                throw bad(key);
            out = x->to_number<double>();
        }
    };
    get_int(*obj, "branches", o.branches);
    if (const auto* x = obj->if_contains("async"); x && x->is_bool())
        o.async = x->get_bool();
    get_double(*obj, "grace_seconds", o.grace_seconds);
    get_int(*obj, "confirm_top", o.confirm_top);
    get_int(*obj, "confirm_rounds", o.confirm_rounds);
    get_int(*obj, "max_repairs", o.max_repairs);
    get_int(*obj, "max_strategy_failures", o.max_strategy_failures);
    if (const auto* n = obj->if_contains("nsight"); n && n->is_object())
    {
        const json::object& no = n->get_object();
        if (const auto* x = no.if_contains("enabled"); x && x->is_bool())
            o.nsight.enabled = x->get_bool();
        if (const auto* x = no.if_contains("each_round"); x && x->is_bool())
            o.nsight.each_round = x->get_bool();
        if (const auto* x = no.if_contains("profile_winner"); x && x->is_bool())
            o.nsight.profile_winner = x->get_bool();
        get_int(no, "budget", o.nsight.budget);
        if (const auto* x = no.if_contains("ncu"); x && x->is_string())
            o.nsight.profiler.ncu = std::string(x->get_string());
        if (const auto* x = no.if_contains("sections"); x && x->is_array())
            for (const json::value& s : x->get_array())
            {
                if (!s.is_string())
                    throw bad("nsight.sections");
                o.nsight.profiler.sections.emplace_back(s.get_string());
            }
        if (const auto* x = no.if_contains("timeout_ms"); x && x->is_int64())
            o.nsight.profiler.timeout = std::chrono::milliseconds(x->get_int64());
    }
    if (const auto* x = obj->if_contains("hidden_seed"))
    {
        if (!x->is_uint64() && !x->is_int64())
            throw bad("hidden_seed");
        o.hidden_seed = x->to_number<std::uint64_t>();
    }
    if (const auto* t = obj->if_contains("timing"); t && t->is_object())
    {
        const auto& to = t->get_object();
        get_int(to, "warmup", o.timing.warmup);
        get_int(to, "iterations", o.timing.iterations);
        if (const auto* m = to.if_contains("mode"); m && m->is_string())
            if (auto mode = protocol::timing_mode_from(m->get_string()))
                o.timing.mode = *mode;
        get_double(to, "target_rel_noise", o.timing.target_rel_noise);
    }
    if (const auto* b = obj->if_contains("budgets"); b && b->is_object())
    {
        const auto& bo = b->get_object();
        get_opt_int(bo, "max_iterations", o.budgets.iterations);
        get_opt_int(bo, "max_candidates", o.budgets.candidates);
        get_opt_double(bo, "max_wall_seconds", o.budgets.wall_seconds);
        get_opt_int(bo, "max_tokens", o.budgets.tokens);
        get_opt_double(bo, "max_cost_usd", o.budgets.cost_usd);
    }
    return o;
}

}  // namespace warpsmith
