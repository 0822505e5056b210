#include "harness/compile/compile_request.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"

#include <boost/json.hpp>

#include <limits>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

const json::object& as_object(const json::value& v, std::string_view what)
{
    if (!v.is_object())
        throw user_error(std::string(what) + ": expected a JSON object");
    return v.get_object();
}

std::string get_string(const json::object& o,
                       std::string_view what,
                       std::string_view key,
                       bool required,
                       std::string fallback = {})
{
    const json::value* v = o.if_contains(key);
    if (!v)
    {
        if (required)
            throw user_error(std::string(what) + ": '" + std::string(key) + "' is missing");
        return fallback;
    }
    if (!v->is_string())
        throw user_error(std::string(what) + ": '" + std::string(key) + "' must be a string");
    return std::string(v->get_string());
}

int get_int(const json::object& o, std::string_view what, std::string_view key)
{
    const json::value* v = o.if_contains(key);
    if (!v)
        return 0;
    if (v->is_int64() && v->get_int64() >= std::numeric_limits<int>::min() &&
        v->get_int64() <= std::numeric_limits<int>::max())
        return static_cast<int>(v->get_int64());
    if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        return static_cast<int>(v->get_uint64());
    throw user_error(std::string(what) + ": '" + std::string(key) + "' must be an integer");
}

double get_double(const json::object& o, std::string_view what, std::string_view key)
{
    const json::value* v = o.if_contains(key);
    if (!v)
        return 0;
    if (!v->is_number())
        throw user_error(std::string(what) + ": '" + std::string(key) + "' must be a number");
    return v->to_number<double>();
}

bool get_bool(const json::object& o, std::string_view what, std::string_view key, bool required)
{
    const json::value* v = o.if_contains(key);
    if (!v)
    {
        if (required)
            throw user_error(std::string(what) + ": '" + std::string(key) + "' is missing");
        return false;
    }
    if (!v->is_bool())
        throw user_error(std::string(what) + ": '" + std::string(key) + "' must be true or false");
    return v->get_bool();
}

std::vector<std::string> get_strings(const json::object& o, std::string_view what, std::string_view key)
{
    std::vector<std::string> out;
    const json::value* v = o.if_contains(key);
    if (!v)
        return out;
    if (!v->is_array())
        throw user_error(std::string(what) + ": '" + std::string(key) + "' must be an array of strings");
    for (const auto& e : v->get_array())
    {
        if (!e.is_string())
            throw user_error(std::string(what) + ": '" + std::string(key) + "' must be an array of strings");
        out.emplace_back(e.get_string());
    }
    return out;
}

json::array to_array(const std::vector<std::string>& strings)
{
    json::array a;
    for (const auto& s : strings)
        a.emplace_back(s);
    return a;
}

}  // namespace

json::value compile_request::to_json() const
{
    return json::object{
        {"source", source},
        {"entry", entry},
        {"options", to_array(options)},
        {"arch", arch},
        {"name", name},
    };
}

compile_request compile_request::from_json(const json::value& v)
{
    constexpr std::string_view what = "compile request";
    const auto& o = as_object(v, what);
    // Requests are written by people and by the engine; a misspelt key ("option") would otherwise
    // silently compile something other than what was meant.
    for (const auto& kv : o)
    {
        std::string_view k = kv.key();
        if (k != "source" && k != "entry" && k != "options" && k != "arch" && k != "name")
            throw user_error(std::string(what) + ": unknown key '" + std::string(k) + "'");
    }
    compile_request r;
    r.source = get_string(o, what, "source", true);
    r.entry = get_string(o, what, "entry", true);
    r.options = get_strings(o, what, "options");
    r.arch = get_string(o, what, "arch", false, r.arch);
    r.name = get_string(o, what, "name", false, r.name);
    return r;
}

json::value resource_usage::to_json() const
{
    return json::object{
        {"registers", registers},
        {"spill_stores_bytes", spill_stores_bytes},
        {"spill_loads_bytes", spill_loads_bytes},
        {"static_shared_bytes", static_shared_bytes},
        {"stack_frame_bytes", stack_frame_bytes},
        {"barriers", barriers},
        {"constant_bytes", constant_bytes},
    };
}

resource_usage resource_usage::from_json(const json::value& v)
{
    constexpr std::string_view what = "resource usage";
    const auto& o = as_object(v, what);
    resource_usage r;
    r.registers = get_int(o, what, "registers");
    r.spill_stores_bytes = get_int(o, what, "spill_stores_bytes");
    r.spill_loads_bytes = get_int(o, what, "spill_loads_bytes");
    r.static_shared_bytes = get_int(o, what, "static_shared_bytes");
    r.stack_frame_bytes = get_int(o, what, "stack_frame_bytes");
    r.barriers = get_int(o, what, "barriers");
    r.constant_bytes = get_int(o, what, "constant_bytes");
    return r;
}

json::value compile_output::to_json() const
{
    return json::object{
        {"compiled", compiled},
        {"error", error},
        {"log", log},
        {"cubin_b64", base64_encode(cubin)},
        {"entries", to_array(entries)},
        {"resources", resources.to_json()},
        {"arch", arch},
        {"key", key},
        {"cache_hit", cache_hit},
        {"compile_ms", compile_ms},
        {"local_memory", local_memory},
    };
}

compile_output compile_output::from_json(const json::value& v)
{
    constexpr std::string_view what = "compile output";
    const auto& o = as_object(v, what);
    compile_output out;
    out.compiled = get_bool(o, what, "compiled", true);
    out.error = get_string(o, what, "error", false);
    out.log = get_string(o, what, "log", false);
    out.cubin = base64_decode(get_string(o, what, "cubin_b64", false));
    out.entries = get_strings(o, what, "entries");
    if (const json::value* r = o.if_contains("resources"))
        out.resources = resource_usage::from_json(*r);
    out.arch = get_string(o, what, "arch", false);
    out.key = get_string(o, what, "key", false);
    out.cache_hit = get_bool(o, what, "cache_hit", false);
    out.compile_ms = get_double(o, what, "compile_ms");
    // Absent (an older cache entry or peer): unknown, so the harness wipes.
    out.local_memory = !o.contains("local_memory") || get_bool(o, what, "local_memory", false);
    if (out.compiled && out.cubin.empty())
        throw user_error(std::string(what) + ": 'compiled' is true but 'cubin_b64' is empty");
    return out;
}

compile_request compile_request_for(const candidate& c, const std::string& arch)
{
    compile_request r;
    r.source = c.source;
    r.entry = c.entry;
    r.options = c.options;
    for (auto& d : define_options(c.defines))
        r.options.push_back(std::move(d));
    r.arch = arch;
    r.name = "kernel.cu";
    return r;
}

}  // namespace warpsmith
