// workload.json's signature: parameters, their kinds, types, directions, counts and tolerances;
// also the names and expressions every part checks the same way (workload_parse.hpp).

#include "harness/workload/identifier.hpp"
#include "harness/workload/workload_parse.hpp"

#include <algorithm>
#include <set>

namespace warpsmith::detail
{

namespace
{

std::string dtype_list()
{
    return "float16, bfloat16, float32, float64, int8, uint8, int16, int32, uint32, int64, uint64";
}

// A "tolerance" object as written: a field left out takes its value from a default tolerance.
struct tolerance_fields
{
    std::optional<double> rtol;
    std::optional<double> atol;

    tolerance over(const tolerance& base) const
    {
        return {rtol.value_or(base.rtol), atol.value_or(base.atol)};
    }
};

tolerance_fields parse_tolerance(const boost::json::value& v, const json_location& loc)
{
    json_reader r(v, loc, {"rtol", "atol"});
    tolerance_fields tol;
    for (const char* key : {"rtol", "atol"})
    {
        if (auto x = r.optional_number(key))
        {
            if (!(*x >= 0))
                r.at(key).fail("must be >= 0, got " + number_text(*x));
            if (std::isinf(*x))
                r.at(key).fail("must be finite");
            (std::string_view(key) == "rtol" ? tol.rtol : tol.atol) = *x;
        }
    }
    return tol;
}

param parse_param(const boost::json::value& v, const json_location& loc)
{
    json_reader r(v, loc, {"name", "kind", "type", "dir", "count", "tolerance"});
    param p;
    p.name = r.require_string("name");
    check_identifier(p.name, r.at("name"), "parameter name");

    const std::string kind = r.require_string("kind");
    if (kind == "scalar")
        p.kind = param_kind::scalar;
    else if (kind == "buffer")
        p.kind = param_kind::buffer;
    else
        r.at("kind").fail("unknown kind " + quote(kind) + " (expected scalar or buffer)");

    const std::string type = r.require_string("type");
    const auto t = parse_dtype(type);
    if (!t)
        r.at("type").fail("unknown type " + quote(type) + " (expected one of " + dtype_list() + ")");
    p.type = *t;

    if (p.kind == param_kind::scalar)
    {
        for (const char* key : {"dir", "count", "tolerance"})
        {
            if (r.find(key))
                r.at(key).fail("applies to buffers only; " + quote(p.name) + " is a scalar");
        }
        p.count = expression::constant(1);
        return p;
    }
    const std::string dir = r.require_string("dir");
    if (dir == "in")
        p.dir = buffer_dir::in;
    else if (dir == "out")
        p.dir = buffer_dir::out;
    else if (dir == "inout")
        p.dir = buffer_dir::inout;
    else
        r.at("dir").fail("unknown dir " + quote(dir) + " (expected in, out or inout)");
    p.count = parse_expression(r.require("count"), r.at("count"));
    if (const auto* t = r.find("tolerance"))
    {
        if (!p.is_output())
            r.at("tolerance")
                .fail("applies to out and inout buffers only; " + quote(p.name) + " is an input");
        p.tol = parse_tolerance(*t, r.at("tolerance")).over(default_tolerance(p.type));
    }
    return p;
}

}  // namespace

std::string quote(std::string_view s)
{
    // Appended rather than concatenated: g++ 12 warns falsely (-Wrestrict) about "'" + string.
    std::string out = "'";
    out += s;
    out += '\'';
    return out;
}

void check_identifier(const std::string& name, const json_location& loc, std::string_view what)
{
    if (!is_c_identifier(name))
        loc.fail(quote(name) + " is not a valid " + std::string(what) + " (a C identifier)");
    if (is_reserved_word(name))
        loc.fail(quote(name) + " is a C++ keyword and cannot be a " + std::string(what));
}

expression parse_expression(const boost::json::value& v, const json_location& loc)
{
    if (v.is_int64() || v.is_uint64())
        return expression::constant(as_int64(v, loc));
    if (!v.is_string())
        loc.fail("must be an integer or an expression string, got " + json_excerpt(v));
    try
    {
        return expression::parse(v.get_string());
    }
    catch (const expression_error& ex)
    {
        loc.fail(ex.what());
    }
}

boost::json::object tolerance_json(const tolerance& tol)
{
    return boost::json::object{{"rtol", tol.rtol}, {"atol", tol.atol}};
}

signature parse_signature(const boost::json::value& v, const json_location& loc)
{
    json_reader r(v, loc, {"entry", "params"});
    signature sig;
    sig.entry = r.require_string("entry");
    check_identifier(sig.entry, r.at("entry"), "entry point name");
    const auto& params = as_array(r.require("params"), r.at("params"));
    if (params.empty())
        r.at("params").fail("must list at least one parameter");
    std::set<std::string> names;
    bool has_output = false;
    for (std::size_t i = 0; i < params.size(); ++i)
    {
        const auto ploc = r.at("params").index(i);
        param p = parse_param(params[i], ploc);
        if (!names.insert(p.name).second)
            ploc.key("name").fail("parameter " + quote(p.name) + " is listed twice");
        has_output = has_output || p.is_output();
        sig.params.push_back(std::move(p));
    }
    if (!has_output)
        r.at("params").fail("no out or inout buffer, so there is nothing to validate");
    // A count may refer to scalar parameters and other case values, but never to a buffer.
    for (std::size_t i = 0; i < sig.params.size(); ++i)
    {
        const param& p = sig.params[i];
        if (p.kind != param_kind::buffer)
            continue;
        for (const auto& id : p.count.identifiers())
        {
            const param* other = sig.find(id);
            if (other && (other->kind == param_kind::buffer || is_floating(other->type)))
            {
                r.at("params").index(i).key("count").fail(
                    quote(id) + " is a " +
                    std::string(other->kind == param_kind::buffer ? "buffer" : "float scalar") +
                    " parameter; counts use integer values only");
            }
        }
    }
    return sig;
}

// Float outputs without their own tolerance use the workload's. When the workload gives none, it
// becomes the default of the first float output's dtype, and float outputs of other dtypes get their
// own defaults here, at load time, so that the self-contained form (which writes both) compares the
// same on a worker. A field the workload's tolerance leaves out comes from that same default.
void resolve_tolerances(workload& w, const boost::json::value* given, const json_location& loc)
{
    const auto first_float =
        std::find_if(w.sig.params.begin(),
                     w.sig.params.end(),
                     [](const param& p) { return p.is_output() && is_floating(p.type); });
    const dtype base = first_float != w.sig.params.end() ? first_float->type : dtype::float32;
    if (given)
    {
        w.tol = parse_tolerance(*given, loc).over(default_tolerance(base));
        return;
    }
    w.tol = default_tolerance(base);
    for (param& p : w.sig.params)
    {
        if (p.is_output() && is_floating(p.type) && p.type != base && !p.tol)
            p.tol = default_tolerance(p.type);
    }
}

}  // namespace warpsmith::detail

namespace warpsmith
{

const param* signature::find(std::string_view name) const
{
    for (const auto& p : params)
    {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

}  // namespace warpsmith
