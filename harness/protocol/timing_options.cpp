#include "harness/protocol/timing_options.hpp"

#include "harness/json/json_reader.hpp"

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

// The fields are named as in a request ("'timing.iterations' must be ..."): callers prefix the op
// or the file.
timing_options timing_options::from_json(const json::value& v)
try
{
    const json_reader o(v, json_location({}, "timing", json_style::request));
    timing_options t;
    t.warmup = static_cast<int>(o.optional_int64("warmup", {0, max_timing_launches}).value_or(t.warmup));
    t.iterations =
        static_cast<int>(o.optional_int64("iterations", {1, max_timing_launches}).value_or(t.iterations));
    if (const json::value* m = o.find("mode"))
    {
        const auto mode = m->is_string() ? timing_mode_from(m->get_string()) : std::nullopt;
        if (!mode)
            o.at("mode").expected("\"cold\" or \"hot\"", *m);
        t.mode = *mode;
    }
    if (const json::value* n = o.find("target_rel_noise"))
    {
        if (!n->is_number() || !(n->to_number<double>() >= 0) || !std::isfinite(n->to_number<double>()))
            o.at("target_rel_noise").expected("a number >= 0", *n);
        t.target_rel_noise = n->to_number<double>();
    }
    if (const auto d = o.optional_nested("dominated_above_us"))
    {
        for (const auto& [name, value] : d->object())
        {
            if (!value.is_number() || !(value.to_number<double>() > 0))
                d->at(name).expected("a number > 0", value);
            t.dominated_above_us[std::string(name)] = value.to_number<double>();
        }
    }
    return t;
}
catch (const json_error& e)
{
    throw format_error(e);
}

}  // namespace warpsmith::protocol
