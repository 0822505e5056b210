// workload.json as a whole (docs/workload-format.md): loading a workload directory or file, the
// order in which from_json reads its parts (each in its own file, workload_parse.hpp), the
// self-contained form to_json writes, and the questions a loaded workload answers.

#include "harness/workload/workload.hpp"

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload_parse.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>

namespace warpsmith
{

namespace fs = std::filesystem;

const workload_case* workload::find_case(std::string_view case_name) const
{
    for (const auto& c : cases)
    {
        if (c.name == case_name)
            return &c;
    }
    return nullptr;
}

std::size_t workload::performance_case_count() const
{
    return static_cast<std::size_t>(std::count_if(
        cases.begin(), cases.end(), [](const workload_case& c) { return c.role == case_role::performance; }));
}

tolerance workload::tolerance_for(const param& p) const
{
    if (p.tol)
        return *p.tol;
    return is_floating(p.type) ? tol : tolerance{};
}

std::int64_t workload::buffer_count(const param& p, const workload_case& c) const
{
    std::int64_t n = 0;
    try
    {
        n = p.count.evaluate(c.values);
    }
    catch (const expression_error& ex)
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': " + p.name +
                         ".count: " + ex.what());
    }
    if (n <= 0)
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': " + p.name + ".count '" +
                         p.count.text() + "' evaluates to " + std::to_string(n) + ", must be positive");
    }
    return n;
}

std::int64_t workload::buffer_bytes(const param& p, const workload_case& c) const
{
    const std::int64_t n = buffer_count(p, c);
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(n, static_cast<std::int64_t>(size_of(p.type)), &bytes))
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': " + p.name + " has " +
                         std::to_string(n) + " elements, too many bytes to address");
    }
    return bytes;
}

workload workload::load(const fs::path& path, file_scope scope)
{
    std::error_code ec;
    fs::path file = path;
    fs::path dir;
    if (fs::is_directory(path, ec))
    {
        file = path / "workload.json";
        dir = path;
        if (!fs::exists(file, ec))
            throw user_error(path.string() + ": not a workload directory (it has no workload.json)");
    }
    else
    {
        if (!fs::exists(path, ec))
            throw user_error(
                path.string() +
                ": no such workload (expected a directory holding workload.json or a .json file)");
        dir = path.parent_path();
    }
    const boost::json::value v = read_json_file(file);
    dir = fs::absolute(dir.empty() ? fs::path(".") : dir, ec).lexically_normal();
    if (!dir.empty() && !dir.has_filename())
        dir = dir.parent_path();  // "a/b/" -> "a/b"
    return from_json(v, dir, file.string(), scope);
}

// A json_error is the user's to fix, like every other problem of a workload: one line naming the
// file and the field.
workload workload::from_json(const boost::json::value& v,
                             const fs::path& dir,
                             std::string_view origin,
                             file_scope scope)
try
{
    const json_location root(std::string(origin), {});
    json_reader top(v,
                    root,
                    {"name",
                     "description",
                     "seed",
                     "signature",
                     "tolerance",
                     "cases",
                     "reference",
                     "reference_source",
                     "reference_entry",
                     "reference_launch",
                     "initial",
                     "initial_source",
                     "initial_entry",
                     "initial_launch",
                     "tunable",
                     "tunable_source",
                     "tunable_entry",
                     "tunable_launch",
                     "launch",
                     "tunables",
                     "restrictions",
                     "baselines",
                     "roofline"});
    workload w;
    w.dir = dir;
    const detail::file_root files{dir, scope};
    w.name = top.require_string("name");
    if (w.name.empty())
        top.at("name").fail("must not be empty");
    w.description = top.optional_string("description").value_or("");
    if (const auto* s = top.find("seed"))
        w.seed = as_uint64(*s, top.at("seed"));
    w.sig = detail::parse_signature(top.require("signature"), top.at("signature"));
    detail::resolve_tolerances(w, top.find("tolerance"), top.at("tolerance"));
    // Tunables come before the cases so that a case value may be checked against them.
    if (const auto* t = top.find("tunables"))
        w.tunables = detail::parse_tunables(*t, top.at("tunables"), w.sig);

    const auto& cases = as_array(top.require("cases"), top.at("cases"));
    if (cases.empty())
        top.at("cases").fail("must list at least one case");
    for (std::size_t i = 0; i < cases.size(); ++i)
        w.cases.push_back(detail::parse_case(cases[i], top.at("cases").index(i), w, files));

    // The default launch plan, then the kernels, each of which may override it.
    w.launch = launch_plan::from_json(top.require("launch"), top.at("launch").text());
    auto reference = detail::parse_kernel(top, "reference", true, w.sig.entry, w.launch, files);
    auto initial = detail::parse_kernel(top, "initial", false, w.sig.entry, w.launch, files);
    auto tunable = detail::parse_kernel(top, "tunable", false, w.sig.entry, w.launch, files);
    w.reference = std::move(*reference.kernel);
    w.initial = std::move(initial.kernel);
    w.tunable = std::move(tunable.kernel);

    const auto cases_loc = top.at("cases");
    detail::check_launch_plan(w, w.launch, top.at("launch"), cases_loc, "", true);
    detail::check_launch_plan(w, w.reference.launch, reference.launch_loc, cases_loc, "reference", false);
    if (w.initial)
        detail::check_launch_plan(w, w.initial->launch, initial.launch_loc, cases_loc, "initial", false);
    if (w.tunable)
        detail::check_launch_plan(w, w.tunable->launch, tunable.launch_loc, cases_loc, "tunable", true);

    if (const auto* rs = top.find("restrictions"))
        w.restrictions = detail::parse_restrictions(*rs, top.at("restrictions"), w);
    if (const auto* bs = top.find("baselines"))
        w.baselines = detail::parse_baselines(*bs, top.at("baselines"), w);
    if (const auto* rf = top.find("roofline"))
        w.roofline = detail::parse_roofline(*rf, top.at("roofline"), w);
    return w;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

boost::json::value workload::to_json() const
{
    boost::json::object o;
    o["name"] = name;
    o["description"] = description;
    o["seed"] = seed;

    boost::json::array params;
    for (const auto& p : sig.params)
    {
        boost::json::object po{{"name", p.name},
                               {"kind", p.kind == param_kind::scalar ? "scalar" : "buffer"},
                               {"type", to_string(p.type)}};
        if (p.kind == param_kind::buffer)
        {
            po["dir"] = to_string(p.dir);
            po["count"] = p.count.text();
            // Only when set, so that the self-contained form of a workload without per-output
            // tolerances (and the evaluation cache keyed on it) is what it was before they existed.
            if (p.tol)
                po["tolerance"] = detail::tolerance_json(*p.tol);
        }
        params.push_back(std::move(po));
    }
    o["signature"] = boost::json::object{{"entry", sig.entry}, {"params", std::move(params)}};
    o["tolerance"] = detail::tolerance_json(tol);

    boost::json::array cs;
    for (const auto& c : cases)
    {
        boost::json::object co{{"name", c.name}, {"role", to_string(c.role)}};
        boost::json::object values, fvalues, inputs;
        for (const auto& [k, x] : c.values)
            values[k] = x;
        for (const auto& [k, x] : c.float_values)
            fvalues[k] = detail::compact_number(x);
        for (const auto& [k, s] : c.inputs)
            inputs[k] = s.to_json();
        co["values"] = std::move(values);
        co["float_values"] = std::move(fvalues);
        co["inputs"] = std::move(inputs);
        co["seed"] = c.seed;
        cs.push_back(std::move(co));
    }
    o["cases"] = std::move(cs);

    o["launch"] = launch.to_json();
    auto put_kernel = [&](const std::string& key, const kernel_source& k)
    {
        o[key + "_source"] = k.source;
        o[key + "_entry"] = k.entry;
        o[key + "_launch"] = k.launch.to_json();
    };
    put_kernel("reference", reference);
    if (initial)
        put_kernel("initial", *initial);
    if (tunable)
        put_kernel("tunable", *tunable);

    boost::json::object tun;
    for (const auto& [k, values] : tunables)
    {
        boost::json::array arr;
        for (auto x : values)
            arr.emplace_back(x);
        tun[k] = std::move(arr);
    }
    o["tunables"] = std::move(tun);
    boost::json::array rs;
    for (const auto& r : restrictions)
        rs.emplace_back(r.text());
    o["restrictions"] = std::move(rs);
    // Written only when present, so the self-contained form (and everything keyed on it, such as
    // the evaluation cache) stays the same for workloads that declare neither.
    if (!baselines.empty())
    {
        boost::json::array bs;
        for (const auto& b : baselines)
        {
            bs.push_back(boost::json::object{{"name", b.name},
                                             {"kind", b.kind},
                                             {"m", b.m.text()},
                                             {"n", b.n.text()},
                                             {"k", b.k.text()},
                                             {"a", b.a},
                                             {"b", b.b},
                                             {"c", b.c}});
        }
        o["baselines"] = std::move(bs);
    }
    if (roofline)
    {
        o["roofline"] = boost::json::object{
            {"bytes", roofline->bytes.text()}, {"flops", roofline->flops.text()}, {"note", roofline->note}};
    }
    return o;
}

std::string_view to_string(case_role r)
{
    return r == case_role::performance ? "performance" : "correctness";
}

std::string_view to_string(buffer_dir d)
{
    switch (d)
    {
        case buffer_dir::in:
            return "in";
        case buffer_dir::out:
            return "out";
        case buffer_dir::inout:
            return "inout";
    }
    return "in";
}

std::string_view to_string(input_kind k)
{
    switch (k)
    {
        case input_kind::uniform:
            return "uniform";
        case input_kind::normal:
            return "normal";
        case input_kind::randint:
            return "randint";
        case input_kind::iota:
            return "iota";
        case input_kind::constant:
            return "const";
        case input_kind::file:
            return "file";
    }
    return "uniform";
}

}  // namespace warpsmith
