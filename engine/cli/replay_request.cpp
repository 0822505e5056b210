#include "engine/cli/replay_request.hpp"

#include "engine/run/run_directory.hpp"
#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"
#include "harness/protocol/format_error.hpp"

namespace warpsmith
{

namespace json = boost::json;

namespace
{

constexpr std::string_view format_name = "warpsmith-replay-request";

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

// A replay request is a file people keep, edit and pass around (document style): "c0007-big.json:
// hidden_seed: must be a non-negative integer, got -1".
replay_request replay_request::from_json(const json::value& v,
                                         std::string_view origin,
                                         const std::filesystem::path& dir)
{
    replay_request r;
    try
    {
        const json_reader o(v, json_location(std::string(origin)));
        if (lenient::string_at(o.object(), "format") != format_name)
            throw user_error(std::string(origin) + ": not a replay request ('format' must be \"" +
                             std::string(format_name) + "\")");
        if (lenient::int_at(o.object(), "version") != 1)
            throw user_error(std::string(origin) +
                             ": unsupported replay request version (this warpsmith reads version 1)");
        r.name = o.require_string("name");
        r.case_name = o.require_string("case");
        r.tool_version = o.optional_string("tool_version").value_or(r.tool_version);
        r.validate_only = o.optional_bool("validate_only").value_or(r.validate_only);
        r.hidden_seed = o.require_uint64("hidden_seed");
        if (const json::value* t = o.find("timing"))
            r.timing = timing_options_from_json(*t, origin);
        r.w = workload::from_json(o.require("workload"), dir, std::string(origin) + ": workload");
        r.cand = candidate::from_json(o.require("candidate"), std::string(origin) + ": candidate");
    }
    catch (const json_error& e)
    {
        throw user_error(e.what());
    }
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
