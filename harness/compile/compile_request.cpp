#include "harness/compile/compile_request.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json.hpp>

#include <limits>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

// Compile requests and outputs are written by people (warpsmith compile), the engine and the compile
// workers; they read like requests ("compile request: 'options' must be an array of strings") and
// every problem is a user_error.
json_location request_at(std::string_view what)
{
    return json_location(std::string(what), {}, json_style::request);
}

template <class F>
auto read_as_user_error(F&& read)
{
    try
    {
        return read();
    }
    catch (const json_error& e)
    {
        throw user_error(e.what());
    }
}

resource_usage resources_from(const json_reader& r)
{
    auto count = [&](std::string_view key)
    { return static_cast<int>(r.optional_int64(key, {0}).value_or(0)); };
    resource_usage u;
    u.registers = count("registers");
    u.spill_stores_bytes = count("spill_stores_bytes");
    u.spill_loads_bytes = count("spill_loads_bytes");
    u.static_shared_bytes = count("static_shared_bytes");
    u.stack_frame_bytes = count("stack_frame_bytes");
    u.barriers = count("barriers");
    u.constant_bytes = count("constant_bytes");
    return u;
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
    return read_as_user_error(
        [&]
        {
            // Requests are written by people and by the engine; a misspelt key ("option") would
            // otherwise silently compile something other than what was meant.
            const json_reader o(
                v, request_at("compile request"), {"source", "entry", "options", "arch", "name"});
            compile_request r;
            r.source = o.require_string("source");
            r.entry = o.require_string("entry");
            r.options = o.optional_strings("options");
            r.arch = o.optional_string("arch").value_or(r.arch);
            r.name = o.optional_string("name").value_or(r.name);
            return r;
        });
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
    return read_as_user_error([&] { return resources_from(json_reader(v, request_at("resource usage"))); });
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
    return read_as_user_error(
        [&]
        {
            const json_reader o(v, request_at("compile output"));
            compile_output out;
            out.compiled = o.require_bool("compiled");
            out.error = o.optional_string("error").value_or("");
            out.log = o.optional_string("log").value_or("");
            out.cubin = base64_decode(o.optional_string("cubin_b64").value_or(""));
            out.entries = o.optional_strings("entries");
            if (const auto r = o.optional_nested("resources"))
                out.resources = resources_from(*r);
            out.arch = o.optional_string("arch").value_or("");
            out.key = o.optional_string("key").value_or("");
            out.cache_hit = o.optional_bool("cache_hit").value_or(false);
            out.compile_ms = o.optional_number("compile_ms").value_or(0);
            // Absent (an older cache entry or peer): unknown, so the harness wipes.
            out.local_memory = o.optional_bool("local_memory").value_or(true);
            if (out.compiled && out.cubin.empty())
                throw user_error("compile output: 'compiled' is true but 'cubin_b64' is empty");
            return out;
        });
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
