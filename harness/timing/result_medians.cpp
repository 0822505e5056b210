#include "harness/timing/result_medians.hpp"

#include "harness/core/json_number.hpp"

#include <cmath>

namespace warpsmith
{

namespace json = boost::json;

std::map<std::string, double> performance_medians(const json::value& result)
{
    std::map<std::string, double> out;
    const auto* obj = result.if_object();
    const auto* cases = obj ? obj->if_contains("cases") : nullptr;
    if (!cases || !cases->is_array())
        return out;
    for (const auto& c : cases->get_array())
    {
        const auto* co = c.if_object();
        if (!co)
            continue;
        const auto* role = co->if_contains("role");
        const auto* name = co->if_contains("name");
        const auto* timing = co->if_contains("timing");
        if (!name || !name->is_string() || !timing || !timing->is_object())
            continue;
        if (role && role->is_string() && role->get_string() != "performance")
            continue;
        if (auto m = json_number(timing->get_object(), "median_us"); m && std::isfinite(*m) && *m > 0)
            out[std::string(name->get_string())] = *m;
    }
    return out;
}

}  // namespace warpsmith
