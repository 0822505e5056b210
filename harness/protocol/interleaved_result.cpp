#include "harness/protocol/interleaved_result.hpp"

#include "harness/json/json_reader.hpp"

namespace warpsmith::protocol
{

namespace json = boost::json;

json::object interleaved_result::to_json() const
{
    json::object t;
    for (const auto& [key, cases] : timings)
    {
        json::object per_case;
        for (const auto& [name, timing] : cases)
            per_case[name] = timing.to_json();
        t[key] = std::move(per_case);
    }
    json::object inv;
    for (const auto& [key, failure] : invalid)
        inv[key] = failure.to_json();
    return json::object{{"timings", std::move(t)}, {"invalid", std::move(inv)}};
}

interleaved_result interleaved_result::from_json(const json::value& v, const std::string& path)
try
{
    const json_reader o(v, json_location({}, path, json_style::record));
    interleaved_result r;
    if (const auto entries = o.optional_nested("timings"))
    {
        for (const auto& kv : entries->object())
        {
            const std::string key(kv.key());
            const json_reader cases(kv.value(), entries->at(key));
            auto& out = r.timings[key];
            for (const auto& c : cases.object())
                out.emplace(std::string(c.key()),
                            timing_report::from_json(c.value(), cases.at(c.key()).path()));
        }
    }
    if (const auto entries = o.optional_nested("invalid"))
    {
        for (const auto& kv : entries->object())
            r.invalid.emplace(std::string(kv.key()),
                              failure_report::from_json(kv.value(), entries->at(kv.key()).path()));
    }
    return r;
}
catch (const json_error& e)
{
    throw format_error(e);
}

}  // namespace warpsmith::protocol
