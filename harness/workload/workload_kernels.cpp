// workload.json's kernels (reference, initial, tunable: a file or inline source, an entry point, a
// launch plan), tunables and restrictions, and the check of every launch plan against every case.

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload_parse.hpp"

#include <algorithm>

namespace warpsmith::detail
{

namespace fs = std::filesystem;

kernel_parse parse_kernel(const json_reader& top,
                          const std::string& key,
                          bool required,
                          const std::string& default_entry,
                          const launch_plan& default_launch,
                          const file_root& files)
{
    const std::string source_key = key + "_source";
    const std::string entry_key = key + "_entry";
    const std::string launch_key = key + "_launch";
    const auto* file_value = top.find(key);
    const auto* inline_value = top.find(source_key);

    kernel_parse out;
    out.launch_loc = top.at("launch");
    if (file_value && inline_value)
        top.at(source_key).fail("give either '" + key + "' or '" + source_key + "', not both");
    if (!file_value && !inline_value)
    {
        if (required)
        {
            top.location().fail("'" + key + "' is missing (a file name, or '" + source_key +
                                "' with the code inline)");
        }
        for (const auto& k : {entry_key, launch_key})
        {
            if (top.find(k))
                top.at(k).fail("there is no '" + key + "' kernel to apply it to");
        }
        return out;
    }

    kernel_source ks;
    std::optional<std::string> entry;
    const boost::json::value* launch_value = nullptr;
    std::string file_name;
    json_location file_loc = top.at(key);
    if (inline_value)
    {
        ks.source = as_string(*inline_value, top.at(source_key));
        if (ks.source.empty())
            top.at(source_key).fail("must not be empty");
    }
    else if (key == "tunable" && file_value->is_object())
    {
        // {"source": "file.cu", "launch": {...}, "entry": "..."}
        json_reader r(*file_value, top.at(key), {"source", "launch", "entry"});
        file_name = r.require_string("source");
        file_loc = r.at("source");
        entry = r.optional_string("entry");
        if (entry && top.find(entry_key))
            top.at(entry_key).fail("the entry is already given in '" + key + ".entry'");
        launch_value = r.find("launch");
        if (launch_value)
        {
            out.launch_loc = r.at("launch");
            if (top.find(launch_key))
                top.at(launch_key).fail("the launch plan is already given in '" + key + ".launch'");
        }
    }
    else
    {
        if (!file_value->is_string())
        {
            top.at(key).fail(std::string("must be a file name") +
                             (key == "tunable" ? " or an object {\"source\", \"launch\", \"entry\"}" : "") +
                             ", got " + json_excerpt(*file_value));
        }
        file_name = std::string(file_value->get_string());
    }

    if (!inline_value)
    {
        if (file_name.empty())
            file_loc.fail("must not be empty");
        if (files.scope == file_scope::self_contained)
            refuse_kernel_file_name(file_loc);
        const fs::path p = resolve_file(file_name, files, file_loc);
        std::error_code ec;
        if (!fs::exists(p, ec))
            file_loc.fail("file '" + p.string() + "' does not exist");
        try
        {
            ks.source = read_text_file(p);
        }
        catch (const user_error& ex)
        {
            file_loc.fail(ex.what());
        }
        if (ks.source.empty())
            file_loc.fail("file '" + p.string() + "' is empty");
        ks.path = p;
    }

    if (!entry)
        entry = top.optional_string(entry_key);
    ks.entry = entry.value_or(default_entry);
    check_identifier(ks.entry, top.find(entry_key) ? top.at(entry_key) : top.at(key), "entry point name");

    if (!launch_value && top.find(launch_key))
    {
        launch_value = top.find(launch_key);
        out.launch_loc = top.at(launch_key);
    }
    ks.launch = launch_value ? launch_plan::from_json(*launch_value, out.launch_loc.text()) : default_launch;
    out.kernel = std::move(ks);
    return out;
}

std::map<std::string, std::vector<std::int64_t>> parse_tunables(const boost::json::value& v,
                                                                const json_location& loc,
                                                                const signature& sig)
{
    std::map<std::string, std::vector<std::int64_t>> tunables;
    for (const auto& kv : as_object(v, loc))
    {
        const std::string name(kv.key());
        const auto tloc = loc.key(name);
        check_identifier(name, tloc, "tunable name");
        if (sig.find(name))
            tloc.fail("clashes with the parameter " + quote(name) + " (tunables become -D defines)");
        const auto& arr = as_array(kv.value(), tloc);
        if (arr.empty())
            tloc.fail("must list at least one value");
        std::vector<std::int64_t> values;
        for (std::size_t i = 0; i < arr.size(); ++i)
        {
            const std::int64_t x = as_int64(arr[i], tloc.index(i));
            if (std::find(values.begin(), values.end(), x) != values.end())
                tloc.fail("value " + std::to_string(x) + " is listed twice");
            values.push_back(x);
        }
        tunables.emplace(name, std::move(values));
    }
    return tunables;
}

// Checks one kernel's launch plan against every case. The reference and initial kernels are
// launched with case values only; the default plan and the tunable kernel's may also use
// tunables, and are then evaluated per tunable point by the autotuner instead.
void check_launch_plan(const workload& w,
                       const launch_plan& plan,
                       const json_location& plan_loc,
                       const json_location& cases_loc,
                       const std::string& kernel,
                       bool tunables_allowed)
{
    std::vector<std::pair<std::string, const expression*>> fields;
    for (std::size_t i = 0; i < 3; ++i)
        fields.emplace_back("grid[" + std::to_string(i) + "]", &plan.grid[i]);
    for (std::size_t i = 0; i < 3; ++i)
        fields.emplace_back("block[" + std::to_string(i) + "]", &plan.block[i]);
    fields.emplace_back("shared_bytes", &plan.shared_bytes);
    bool uses_tunables = false;
    for (const auto& [field, e] : fields)
    {
        for (const auto& id : e->identifiers())
        {
            if (w.tunables.count(id))
            {
                if (!tunables_allowed)
                {
                    plan_loc.key(field).fail(quote(id) + " is a tunable, but the " + kernel +
                                             " kernel is launched with case values only (give '" + kernel +
                                             "_launch')");
                }
                uses_tunables = true;
                continue;
            }
            for (std::size_t ci = 0; ci < w.cases.size(); ++ci)
            {
                if (!w.cases[ci].values.count(id))
                {
                    cases_loc.index(ci).key("values").fail(quote(id) + " is missing (needed by " +
                                                           plan_loc.path() + "." + field + ")");
                }
            }
        }
    }
    if (uses_tunables)
        return;
    for (const auto& c : w.cases)
    {
        try
        {
            (void)plan.evaluate(c.values);
        }
        catch (const expression_error& ex)
        {
            plan_loc.fail("case " + quote(c.name) + ": " + ex.what());
        }
    }
}

std::vector<expression> parse_restrictions(const boost::json::value& v,
                                           const json_location& loc,
                                           const workload& w)
{
    std::vector<expression> out;
    const auto& arr = as_array(v, loc);
    for (std::size_t i = 0; i < arr.size(); ++i)
    {
        const auto rloc = loc.index(i);
        if (!arr[i].is_string())
            rloc.fail("must be an expression string, got " + json_excerpt(arr[i]));
        expression e = parse_expression(arr[i], rloc);
        for (const auto& id : e.identifiers())
        {
            const bool in_every_case =
                std::all_of(w.cases.begin(),
                            w.cases.end(),
                            [&](const workload_case& c) { return c.values.count(id) != 0; });
            if (!w.tunables.count(id) && !in_every_case)
                rloc.fail(quote(id) + " is neither a tunable nor a value of every case");
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace warpsmith::detail
