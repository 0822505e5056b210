#include "harness/protocol/timing_options.hpp"

#include "harness/protocol/json_read.hpp"

#include <cmath>

namespace warpsmith::protocol
{

namespace json = boost::json;

std::string_view to_string(timing_mode m)
{
    return m == timing_mode::hot ? "hot" : "cold";
}

std::optional<timing_mode> timing_mode_from(std::string_view s)
{
    if (s == "cold")
        return timing_mode::cold;
    if (s == "hot")
        return timing_mode::hot;
    return std::nullopt;
}

std::string_view to_string(timing_stop s)
{
    switch (s)
    {
        case timing_stop::fixed:
            return "fixed";
        case timing_stop::quiet:
            return "quiet";
        case timing_stop::ceiling:
            return "ceiling";
        case timing_stop::dominated:
            return "dominated";
    }
    return "fixed";
}

std::optional<timing_stop> timing_stop_from(std::string_view s)
{
    for (timing_stop t :
         {timing_stop::fixed, timing_stop::quiet, timing_stop::ceiling, timing_stop::dominated})
        if (to_string(t) == s)
            return t;
    return std::nullopt;
}

json::object timing_options::to_json() const
{
    json::object o;
    o["warmup"] = warmup;
    o["iterations"] = iterations;
    o["mode"] = to_string(mode);
    o["target_rel_noise"] = target_rel_noise;
    if (!dominated_above_us.empty())
    {
        json::object d;
        for (const auto& [name, us] : dominated_above_us)
            d[name] = us;
        o["dominated_above_us"] = std::move(d);
    }
    return o;
}

namespace
{

[[noreturn]] void bad(std::string_view field, std::string_view problem)
{
    throw format_error("'timing." + std::string(field) + "' " + std::string(problem));
}

int launches(const json::object& o, std::string_view key, int lo, int fallback)
{
    const json::value* v = o.if_contains(key);
    if (!v || v->is_null())
        return fallback;
    const bool integral =
        v->is_int64() || v->is_uint64() || (v->is_double() && std::trunc(v->get_double()) == v->get_double());
    const double x = v->is_number() ? v->to_number<double>() : -1;
    if (!integral || x < lo || x > max_timing_launches)
        bad(key,
            "must be an integer from " + std::to_string(lo) + " to " + std::to_string(max_timing_launches));
    return static_cast<int>(x);
}

}  // namespace

timing_options timing_options::from_json(const json::value& v)
{
    if (!v.is_object())
        throw format_error("'timing' must be an object");
    const json::object& o = v.get_object();
    timing_options t;
    t.warmup = launches(o, "warmup", 0, t.warmup);
    t.iterations = launches(o, "iterations", 1, t.iterations);
    if (const json::value* m = o.if_contains("mode"); m && !m->is_null())
    {
        const auto mode = m->is_string() ? timing_mode_from(m->get_string()) : std::nullopt;
        if (!mode)
            bad("mode", "must be \"cold\" or \"hot\"");
        t.mode = *mode;
    }
    if (const json::value* n = o.if_contains("target_rel_noise"); n && !n->is_null())
    {
        if (!n->is_number() || !(n->to_number<double>() >= 0) || !std::isfinite(n->to_number<double>()))
            bad("target_rel_noise", "must be a number >= 0");
        t.target_rel_noise = n->to_number<double>();
    }
    if (const json::value* d = o.if_contains("dominated_above_us"); d && !d->is_null())
    {
        if (!d->is_object())
            bad("dominated_above_us", "must be an object");
        for (const auto& [name, value] : d->get_object())
        {
            if (!value.is_number() || !(value.to_number<double>() > 0))
                bad("dominated_above_us." + std::string(name), "must be a number > 0");
            t.dominated_above_us[std::string(name)] = value.to_number<double>();
        }
    }
    return t;
}

}  // namespace warpsmith::protocol
