#include "harness/protocol/interleaved_result.hpp"

#include "harness/protocol/json_read.hpp"

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
{
    const object_in o(v, path);
    interleaved_result r;
    if (const json::value* t = o.find("timings"))
    {
        const object_in entries(*t, o.path_of("timings"));
        for (const auto& kv : t->get_object())
        {
            const std::string key(kv.key());
            const object_in cases(kv.value(), entries.path_of(key));
            auto& out = r.timings[key];
            for (const auto& c : kv.value().get_object())
                out.emplace(std::string(c.key()),
                            timing_report::from_json(c.value(), cases.path_of(c.key())));
        }
    }
    if (const json::value* inv = o.find("invalid"))
    {
        const object_in entries(*inv, o.path_of("invalid"));
        for (const auto& kv : inv->get_object())
            r.invalid.emplace(std::string(kv.key()),
                              failure_report::from_json(kv.value(), entries.path_of(kv.key())));
    }
    return r;
}

}  // namespace warpsmith::protocol
