#include "engine/executors/worker_error_text.hpp"

namespace warpsmith
{

worker_refusal worker_refusal_of(const boost::json::object& resp)
{
    worker_refusal r;
    if (const auto* e = resp.if_contains("error"); e && e->is_object())
    {
        if (const auto* k = e->as_object().if_contains("kind"); k && k->is_string())
            r.kind = std::string(k->get_string());
        if (const auto* m = e->as_object().if_contains("message"); m && m->is_string())
            r.message = std::string(m->get_string());
    }
    return r;
}

std::string worker_error_text(const boost::json::object& resp)
{
    return worker_refusal_of(resp).text();
}

}  // namespace warpsmith
