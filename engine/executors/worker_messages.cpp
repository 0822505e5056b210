// The request messages the engine sends to a worker (gpu_executor.hpp: candidate_json,
// evaluate_message, load_workload_message; docs/worker-protocol.md), shared by the GPU executor and the
// profiler.

#include "engine/executors/gpu_executor.hpp"
#include "harness/core/digest.hpp"

#include <boost/json/array.hpp>

namespace warpsmith
{

namespace json = boost::json;

/// The protocol's candidate object: a cubin when the compile pool made one, else the source and
/// options for the worker to compile itself (as `warpsmith run` does).
json::object candidate_json(const evaluate_request& req)
{
    json::value v = req.cand.to_json();
    json::object o = v.is_object() ? std::move(v.get_object()) : json::object{};
    if (!req.cubin.empty())
    {
        o.erase("source");
        o.erase("options");
        o["cubin_b64"] = base64_encode(req.cubin);
        o["local_memory"] = req.local_memory;
    }
    return o;
}

json::object evaluate_message(const evaluate_request& req)
{
    json::object msg;
    msg["op"] = "evaluate";
    msg["name"] = req.name;
    msg["candidate"] = candidate_json(req);
    msg["timing"] = req.timing.to_json();
    msg["validate_only"] = req.validate_only;
    if (!req.cases.empty())
    {
        json::array cases;
        for (const auto& c : req.cases)
            cases.emplace_back(c);
        msg["cases"] = std::move(cases);
    }
    if (req.profile_case)
        msg["profile_case"] = *req.profile_case;
    return msg;
}

json::object load_workload_message(const json::value& workload,
                                   std::uint64_t hidden_seed,
                                   std::chrono::milliseconds launch_timeout)
{
    json::object req;
    req["op"] = "load_workload";
    req["workload"] = workload;
    req["hidden_seed"] = hidden_seed;
    req["launch_timeout_ms"] = launch_timeout.count();
    return req;
}

}  // namespace warpsmith
