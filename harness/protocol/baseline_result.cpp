#include "harness/protocol/baseline_result.hpp"

#include "harness/json/json_number.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json/array.hpp>

namespace warpsmith::protocol
{

namespace json = boost::json;

namespace
{

json::value optional_json(const std::optional<double>& v)
{
    return v ? json_number(*v) : json::value(nullptr);
}

json::object case_json(const baseline_case& c)
{
    json::object validation = c.validation.to_json();
    validation["message"] = c.validation_message ? json::value(*c.validation_message) : json::value(nullptr);
    json::object o{{"name", c.name}, {"role", c.role}};
    if (c.gemm)
        o["gemm"] = json::object{{"m", c.gemm->m}, {"n", c.gemm->n}, {"k", c.gemm->k}};
    o["validation"] = std::move(validation);
    o["timing"] = c.timing ? json::value(c.timing->to_json()) : json::value(nullptr);
    o["timing_failure"] = c.timing_failure ? json::value(c.timing_failure->to_json()) : json::value(nullptr);
    return o;
}

baseline_case case_from(const json_reader& o)
{
    baseline_case c;
    c.name = o.require_string("name");
    c.role = o.optional_string("role").value_or(c.role);
    if (const auto g = o.optional_nested("gemm"))
        c.gemm =
            gemm_dims{g->require_int64("m", {0}), g->require_int64("n", {0}), g->require_int64("k", {0})};
    if (const json::value* v = o.find("validation"))
    {
        c.validation = validation_run::from_json(*v, o.at("validation").path());
        c.validation_message = o.nested("validation").optional_string("message");
    }
    if (const json::value* t = o.find("timing"))
        c.timing = timing_report::from_json(*t, o.at("timing").path());
    if (const json::value* f = o.find("timing_failure"))
        c.timing_failure = failure_report::from_json(*f, o.at("timing_failure").path());
    return c;
}

std::map<std::string, double> numbers_from(const json_reader& o)
{
    std::map<std::string, double> out;
    for (const auto& kv : o.object())
        out[std::string(kv.key())] = o.require_number(kv.key());
    return out;
}

}  // namespace

json::object baseline_result::to_json() const
{
    json::array case_list;
    for (const baseline_case& c : cases)
        case_list.push_back(case_json(c));
    json::object medians;
    for (const auto& [case_name, us] : case_median_us)
        medians[case_name] = json_number(us);
    json::object o{{"name", name}, {"kind", kind}, {"math", math}};
    if (library)
        o["library"] = json::object{{"name", library->name}, {"version", library->version}};
    o["cases"] = std::move(case_list);
    o["case_median_us"] = std::move(medians);
    o["score_us"] = optional_json(score_us);
    o["within_tolerance"] = within_tolerance;
    o["max_abs_error"] = json_number(max_abs_error);
    o["max_rel_error"] = json_number(max_rel_error);
    if (environment)
        o["environment"] = environment->to_json();
    if (!phases_ms.empty())
    {
        json::object p;
        for (const auto& [phase, ms] : phases_ms)
            p[phase] = json_number(ms);
        o["phases_ms"] = std::move(p);
    }
    if (eval_ms)
        o["eval_ms"] = json_number(*eval_ms);
    return o;
}

baseline_result baseline_result::from_json(const json::value& v, const std::string& path)
try
{
    const json_reader o(v, json_location({}, path, json_style::record));
    baseline_result r;
    r.name = o.require_string("name");
    r.kind = o.require_string("kind");
    r.math = o.require_string("math");
    if (const auto lib = o.optional_nested("library"))
        r.library = library_info{lib->optional_string("name").value_or(""),
                                 lib->optional_string("version").value_or("")};
    for (const json_reader& c : o.optional_elements("cases"))
        r.cases.push_back(case_from(c));
    if (const auto medians = o.optional_nested("case_median_us"))
        r.case_median_us = numbers_from(*medians);
    r.score_us = o.optional_number("score_us");
    r.within_tolerance = o.optional_bool("within_tolerance").value_or(false);
    r.max_abs_error = o.optional_number("max_abs_error").value_or(0);
    r.max_rel_error = o.optional_number("max_rel_error").value_or(0);
    if (const json::value* env = o.find("environment"))
        r.environment = environment_info::from_json(*env, o.at("environment").path());
    if (const auto phases = o.optional_nested("phases_ms"))
        r.phases_ms = numbers_from(*phases);
    r.eval_ms = o.optional_number("eval_ms");
    return r;
}
catch (const json_error& e)
{
    throw format_error(e);
}

}  // namespace warpsmith::protocol
