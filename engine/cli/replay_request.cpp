#include "engine/cli/replay_request.hpp"

#include "engine/run/run_directory.hpp"
#include "harness/core/error.hpp"
#include "harness/protocol/format_error.hpp"

namespace warpsmith
{

namespace json = boost::json;

namespace
{

constexpr std::string_view format_name = "warpsmith-replay-request";

const json::value& require(const json::object& o, std::string_view key, std::string_view origin)
{
    const json::value* v = o.if_contains(key);
    if (!v)
        throw user_error(std::string(origin) + ": '" + std::string(key) + "' is missing");
    return *v;
}

std::string require_string(const json::object& o, std::string_view key, std::string_view origin)
{
    const json::value& v = require(o, key, origin);
    if (!v.is_string())
        throw user_error(std::string(origin) + ": '" + std::string(key) + "' must be a string");
    return std::string(v.get_string());
}

}  // namespace

timing_options timing_options_from_json(const json::value& v, std::string_view origin)
{
    try
    {
        return timing_options::from_json(v);
    }
    catch (const protocol::format_error& e)
    {
        throw user_error(std::string(origin) + ": " + e.what());
    }
}

json::object replay_request::to_json() const
{
    json::object o = replay_request_json(w, case_name, cand, name, timing.to_json(), hidden_seed);
    o["validate_only"] = validate_only;
    o["tool_version"] = WARPSMITH_VERSION;
    return o;
}

replay_request replay_request::from_json(const json::value& v,
                                         std::string_view origin,
                                         const std::filesystem::path& dir)
{
    if (!v.is_object())
        throw user_error(std::string(origin) + ": expected a JSON object (a replay request)");
    const auto& o = v.get_object();
    if (const json::value* f = o.if_contains("format");
        !f || !f->is_string() || f->get_string() != format_name)
        throw user_error(std::string(origin) + ": not a replay request ('format' must be \"" +
                         std::string(format_name) + "\")");
    if (const json::value* ver = o.if_contains("version"); !ver || !ver->is_int64() || ver->get_int64() != 1)
        throw user_error(std::string(origin) +
                         ": unsupported replay request version (this warpsmith reads version 1)");

    replay_request r;
    r.name = require_string(o, "name", origin);
    r.case_name = require_string(o, "case", origin);
    if (const json::value* t = o.if_contains("tool_version"); t && t->is_string())
        r.tool_version = std::string(t->get_string());
    if (const json::value* vo = o.if_contains("validate_only"))
    {
        if (!vo->is_bool())
            throw user_error(std::string(origin) + ": 'validate_only' must be true or false");
        r.validate_only = vo->get_bool();
    }
    const json::value& seed = require(o, "hidden_seed", origin);
    if (seed.is_uint64())
        r.hidden_seed = seed.get_uint64();
    else if (seed.is_int64() && seed.get_int64() >= 0)
        r.hidden_seed = static_cast<std::uint64_t>(seed.get_int64());
    else
        throw user_error(std::string(origin) + ": 'hidden_seed' must be a non-negative integer");
    if (const json::value* t = o.if_contains("timing"))
        r.timing = timing_options_from_json(*t, origin);

    r.w = workload::from_json(require(o, "workload", origin), dir, std::string(origin) + ": workload");
    r.cand = candidate::from_json(require(o, "candidate", origin), std::string(origin) + ": candidate");
    if (r.cand.source.empty())
        throw user_error(std::string(origin) +
                         ": candidate.source is missing (a replay request carries the source)");
    if (!r.w.find_case(r.case_name))
        throw user_error(std::string(origin) + ": case '" + r.case_name + "' is not in the workload");
    if (std::string problem = r.cand.validate(r.w); !problem.empty())
        throw user_error(std::string(origin) + ": candidate: " + problem);
    return r;
}

}  // namespace warpsmith
