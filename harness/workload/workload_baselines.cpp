// workload.json's vendor baselines (cublas_sgemm: m, n, k and the A, B, C buffers) and roofline
// work (bytes and flops), integer expressions over the values every case has.

#include "harness/core/error.hpp"
#include "harness/workload/workload_parse.hpp"

#include <limits>

namespace warpsmith::detail
{

namespace
{

// An integer expression over case values that every case has: m, n and k of a baseline, bytes
// and flops of the roofline. Tunables are not allowed: these describe the problem, not a kernel.
expression parse_case_expression(const boost::json::value& v, const json_location& loc, const workload& w)
{
    expression e = parse_expression(v, loc);
    for (const auto& id : e.identifiers())
    {
        if (w.tunables.count(id))
            loc.fail(quote(id) +
                     " is a tunable; this expression describes the problem, so it may use case values only");
        for (std::size_t ci = 0; ci < w.cases.size(); ++ci)
        {
            if (!w.cases[ci].values.count(id))
                loc.fail(quote(id) + " is not a value of case " + quote(w.cases[ci].name));
        }
    }
    return e;
}

std::int64_t evaluate_for_case(const expression& e, const workload_case& c, const json_location& loc)
{
    try
    {
        return e.evaluate(c.values);
    }
    catch (const expression_error& ex)
    {
        loc.fail("case " + quote(c.name) + ": " + ex.what());
    }
}

// The buffer named by field `key` of a baseline: a float32 buffer parameter of the signature.
const param& baseline_buffer(const json_reader& r, std::string_view key, const workload& w)
{
    const std::string name = r.require_string(key);
    const param* p = w.sig.find(name);
    if (!p || p->kind != param_kind::buffer)
        r.at(key).fail(quote(name) + " is not a buffer parameter");
    if (p->type != dtype::float32)
        r.at(key).fail(quote(name) + " is " + std::string(to_string(p->type)) +
                       "; cublas_sgemm needs float32");
    return *p;
}

}  // namespace

std::vector<baseline_spec> parse_baselines(const boost::json::value& v,
                                           const json_location& loc,
                                           const workload& w)
{
    std::vector<baseline_spec> out;
    const auto& arr = as_array(v, loc);
    for (std::size_t i = 0; i < arr.size(); ++i)
    {
        const auto bloc = loc.index(i);
        json_reader r(arr[i], bloc, {"name", "kind", "m", "n", "k", "a", "b", "c"});
        baseline_spec b;
        b.name = r.require_string("name");
        if (!is_valid_case_name(b.name))
            r.at("name").fail(quote(b.name) +
                              " is not a valid baseline name (letters, digits, '_', '-' and '.', at most " +
                              std::to_string(max_case_name_length) + " characters)");
        for (const auto& other : out)
        {
            if (other.name == b.name)
                r.at("name").fail("baseline " + quote(b.name) + " is listed twice");
        }
        b.kind = r.require_string("kind");
        if (b.kind != baseline_kind_cublas_sgemm)
            r.at("kind").fail("unknown baseline kind " + quote(b.kind) + " (known: cublas_sgemm)");
        b.m = parse_case_expression(r.require("m"), r.at("m"), w);
        b.n = parse_case_expression(r.require("n"), r.at("n"), w);
        b.k = parse_case_expression(r.require("k"), r.at("k"), w);
        const param& a = baseline_buffer(r, "a", w);
        const param& bb = baseline_buffer(r, "b", w);
        const param& c = baseline_buffer(r, "c", w);
        b.a = a.name;
        b.b = bb.name;
        b.c = c.name;
        if (!a.is_input())
            r.at("a").fail(quote(a.name) + " is an out buffer; A must be an input");
        if (!bb.is_input())
            r.at("b").fail(quote(bb.name) + " is an out buffer; B must be an input");
        if (!c.is_output())
            r.at("c").fail(quote(c.name) + " is an in buffer; C must be an output");
        if (a.name == c.name || bb.name == c.name)
            r.at("c").fail(quote(c.name) + " is also named as A or B; C must be a buffer of its own");
        // The baseline writes only C, and every output of a case is validated against the reference.
        for (const auto& p : w.sig.params)
        {
            if (p.is_output() && p.name != c.name)
                r.at("c").fail("the workload has another output, " + quote(p.name) +
                               ", which the baseline would not write");
        }
        for (const auto& wc : w.cases)
        {
            gemm_shape g{evaluate_for_case(b.m, wc, r.at("m")),
                         evaluate_for_case(b.n, wc, r.at("n")),
                         evaluate_for_case(b.k, wc, r.at("k"))};
            const std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
            for (const auto& [key, x] : {std::pair{"m", g.m}, std::pair{"n", g.n}, std::pair{"k", g.k}})
            {
                if (x <= 0 || x > int_max)
                    r.at(key).fail("case " + quote(wc.name) + ": evaluates to " + std::to_string(x) +
                                   ", must be from 1 to 2147483647");
            }
            const auto need = [&](const param& p, std::int64_t rows, std::int64_t cols, const char* key)
            {
                const std::int64_t have = p.count.evaluate(wc.values);
                if (have / rows < cols)
                {
                    r.at(key).fail("case " + quote(wc.name) + ": " + p.name + " holds " +
                                   std::to_string(have) + " elements, fewer than " + std::to_string(rows) +
                                   " x " + std::to_string(cols));
                }
            };
            need(a, g.m, g.k, "a");
            need(bb, g.k, g.n, "b");
            need(c, g.m, g.n, "c");
        }
        out.push_back(std::move(b));
    }
    return out;
}

roofline_work parse_roofline(const boost::json::value& v, const json_location& loc, const workload& w)
{
    json_reader r(v, loc, {"bytes", "flops", "note"});
    if (!r.find("bytes") && !r.find("flops"))
        loc.fail("needs 'bytes' or 'flops' (or both)");
    roofline_work out;
    for (const char* key : {"bytes", "flops"})
    {
        const auto* x = r.find(key);
        if (!x)
            continue;
        expression e = parse_case_expression(*x, r.at(key), w);
        for (const auto& wc : w.cases)
        {
            if (const std::int64_t n = evaluate_for_case(e, wc, r.at(key)); n < 0)
                r.at(key).fail("case " + quote(wc.name) + ": evaluates to " + std::to_string(n) +
                               ", must be >= 0");
        }
        (std::string_view(key) == "bytes" ? out.bytes : out.flops) = std::move(e);
    }
    out.note = r.optional_string("note").value_or("");
    return out;
}

}  // namespace warpsmith::detail

namespace warpsmith
{

const baseline_spec* workload::find_baseline(std::string_view baseline_name) const
{
    for (const auto& b : baselines)
    {
        if (b.name == baseline_name)
            return &b;
    }
    return nullptr;
}

gemm_shape workload::baseline_shape(const baseline_spec& b, const workload_case& c) const
{
    try
    {
        return gemm_shape{b.m.evaluate(c.values), b.n.evaluate(c.values), b.k.evaluate(c.values)};
    }
    catch (const expression_error& ex)
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': baseline " + b.name + ": " +
                         ex.what());
    }
}

}  // namespace warpsmith
