#include "engine/executors/worker_error_text.hpp"

#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"

namespace warpsmith
{

worker_envelope worker_envelope_of(const boost::json::object& resp, std::string_view op)
{
    const json_reader r(resp, json_location("response to '" + std::string(op) + "'", {}, json_style::record));
    worker_envelope e;
    e.id = r.optional_int64("id");
    e.ok = r.require_bool("ok");
    e.worker_restart = r.optional_bool("worker_restart").value_or(false);
    return e;
}

bool worker_ok(const boost::json::object& resp)
{
    return worker_envelope_of(resp, "?").ok;
}

bool worker_restarting(const boost::json::object& resp)
{
    return worker_envelope_of(resp, "?").worker_restart;
}

worker_refusal worker_refusal_of(const boost::json::object& resp)
{
    worker_refusal r;
    const boost::json::object* e = lenient::object_at(resp, "error");
    r.kind = lenient::string_or(e, "kind", r.kind);
    r.message = lenient::string_or(e, "message");
    return r;
}

std::string worker_error_text(const boost::json::object& resp)
{
    return worker_refusal_of(resp).text();
}

}  // namespace warpsmith
