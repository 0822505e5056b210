#include "harness/workload/candidate.hpp"

#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/workload/identifier.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace warpsmith
{

const launch_plan& candidate::plan_for(std::string_view case_name) const
{
    if (auto it = overrides.find(std::string(case_name)); it != overrides.end())
        return it->second;
    return launch;
}

variables candidate::launch_variables(const workload_case& c) const
{
    variables vars = c.values;
    for (const auto& [name, value] : defines)
        vars.insert_or_assign(name, value);
    return vars;
}

std::string candidate::validate(const workload& w) const
{
    if (entry.empty())
        return "entry: must not be empty";
    for (const auto& [case_name, plan] : overrides)
    {
        if (!w.find_case(case_name))
            return "overrides: '" + case_name + "' is not a case of workload '" + w.name + "'";
    }
    for (const auto& [name, value] : defines)
    {
        // The rule from_json reads candidates back with: what is accepted here must stay readable.
        if (!is_c_identifier(name) || is_reserved_word(name))
            return "defines: '" + name + "' is not a valid macro name";
        // A -D define named like a kernel parameter would rewrite the kernel's own signature, and
        // one named like a case value would make launch expressions ambiguous.
        if (w.sig.find(name))
            return "defines." + name + ": clashes with the parameter '" + name + "' of the signature";
        for (const auto& c : w.cases)
        {
            if (c.values.count(name))
                return "defines." + name + ": clashes with the value '" + name + "' of case '" + c.name + "'";
        }
    }
    for (const auto& c : w.cases)
    {
        const bool overridden = overrides.count(c.name) != 0;
        try
        {
            (void)plan_for(c.name).evaluate(launch_variables(c));
        }
        catch (const expression_error& ex)
        {
            return "case '" + c.name + "'" + (overridden ? " (override)" : "") + ": " + ex.what();
        }
    }
    return {};
}

// The strict reader's json_error becomes the user_error callers expect (candidate.hpp).
candidate candidate::from_json(const boost::json::value& v, std::string_view origin)
try
{
    const json_location root{std::string(origin)};
    const json_reader obj(v, root);
    candidate c;
    // Other layers add their own keys (cubin_b64 in the worker protocol, rationale and parent in
    // the run directory), so keys other than these are left alone rather than refused.
    c.source = obj.optional_string("source").value_or("");
    c.entry = obj.require_string("entry");
    if (!is_c_identifier(c.entry))
        root.key("entry").fail("'" + c.entry + "' is not a C identifier");

    if (const boost::json::object* d = obj.optional_object("defines"))
    {
        const auto dloc = root.key("defines");
        for (const auto& kv : *d)
        {
            const std::string name(kv.key());
            if (!is_c_identifier(name) || is_reserved_word(name))
                dloc.fail("'" + name + "' is not a valid macro name");
            c.defines.emplace(name, as_int64(kv.value(), dloc.key(name)));
        }
    }
    c.options = obj.optional_strings("options");
    c.launch = launch_plan::from_json(obj.require("launch"), root.key("launch").text());
    if (const boost::json::object* ov = obj.optional_object("overrides"))
    {
        const auto ovloc = root.key("overrides");
        for (const auto& kv : *ov)
            c.overrides.emplace(std::string(kv.key()),
                                launch_plan::from_json(kv.value(), ovloc.key(kv.key()).text()));
    }
    return c;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

boost::json::value candidate::to_json() const
{
    boost::json::object defs;
    for (const auto& [name, value] : defines)
        defs[name] = value;
    boost::json::array opts;
    for (const auto& o : options)
        opts.emplace_back(o);
    boost::json::object ovs;
    for (const auto& [name, plan] : overrides)
        ovs[name] = plan.to_json();
    return boost::json::object{{"source", source},
                               {"entry", entry},
                               {"defines", std::move(defs)},
                               {"options", std::move(opts)},
                               {"launch", launch.to_json()},
                               {"overrides", std::move(ovs)}};
}

candidate candidate::from_kernel(const kernel_source& k)
{
    candidate c;
    c.source = k.source;
    c.entry = k.entry;
    c.launch = k.launch;
    return c;
}

}  // namespace warpsmith
