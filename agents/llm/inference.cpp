#include "agents/llm/inference.hpp"

#include "agents/llm/feedback.hpp"
#include "agents/llm/kernel_contract.hpp"
#include "agents/llm/prompts.hpp"
#include "agents/llm/proposal_format.hpp"
#include "agents/llm/tools.hpp"
#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"
#include "harness/workload/dtype.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <set>

namespace warpsmith::llm
{

namespace json = boost::json;

namespace
{

json::object str_schema()
{
    return json::object{{"type", "string"}};
}

json::object closed(json::object props, json::array required)
{
    return json::object{{"type", "object"},
                        {"additionalProperties", false},
                        {"required", std::move(required)},
                        {"properties", std::move(props)}};
}

bool has(const json::object& o, const char* k)
{
    const json::value* v = lenient::value_at(o, k);
    return v && !v->is_null() && lenient::string_at(o, k) != std::optional<std::string>("");
}

std::string joined(const std::vector<std::string>& v, const char* sep)
{
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : sep) + s;
    return out;
}

/// The answer's JSON document: the whole text, or its ```json block.
std::optional<json::value> answer_document(const std::string& text, std::string& problem)
{
    boost::system::error_code ec;
    auto b = text.find_first_not_of(" \t\r\n");
    if (b != std::string::npos && text[b] == '{')
    {
        auto v = json::parse(text, ec);
        if (!ec)
            return v;
        problem = "the answer is not valid JSON (" + ec.message() + ")";
    }
    for (const auto& [lang, body] : fenced_blocks(text))
        if (lang == "json")
        {
            auto v = json::parse(body, ec);
            if (!ec)
                return v;
            problem = "the ```json block is not valid JSON (" + ec.message() + ")";
            return std::nullopt;
        }
    if (problem.empty())
        problem = "the answer holds no JSON object";
    return std::nullopt;
}

/// A launch object with every entry as given (strings or integers); empty shared_bytes -> "0".
json::value normalized_launch(const json::value& v)
{
    if (!v.is_object())
        return v;
    json::object o = v.get_object();
    if (lenient::string_at(o, "shared_bytes") == std::optional<std::string>(""))
        o["shared_bytes"] = "0";
    return o;
}

}  // namespace

json::object inference_json_schema()
{
    json::array types;
    for (const char* t : {"float16",
                          "bfloat16",
                          "float32",
                          "float64",
                          "int8",
                          "uint8",
                          "int16",
                          "int32",
                          "uint32",
                          "int64",
                          "uint64"})
        types.push_back(json::value(t));
    json::object param = closed(
        json::object{
            {"name", str_schema()},
            {"kind", json::object{{"type", "string"}, {"enum", json::array{"scalar", "buffer"}}}},
            {"type", json::object{{"type", "string"}, {"enum", std::move(types)}}},
            {"dir", json::object{{"type", "string"}, {"enum", json::array{"in", "out", "inout", ""}}}},
            {"count", str_schema()}},
        json::array{"name", "kind", "type", "dir", "count"});
    json::object signature =
        closed(json::object{{"entry", str_schema()},
                            {"params", json::object{{"type", "array"}, {"items", std::move(param)}}}},
               json::array{"entry", "params"});
    json::object value =
        closed(json::object{{"name", str_schema()}, {"value", json::object{{"type", "number"}}}},
               json::array{"name", "value"});
    json::object one_case = closed(
        json::object{
            {"name", str_schema()},
            {"role", json::object{{"type", "string"}, {"enum", json::array{"correctness", "performance"}}}},
            {"values", json::object{{"type", "array"}, {"items", std::move(value)}}}},
        json::array{"name", "role", "values"});
    json::object tol = closed(
        json::object{{"rtol", json::object{{"type", "number"}}}, {"atol", json::object{{"type", "number"}}}},
        json::array{"rtol", "atol"});
    return closed(json::object{{"name", str_schema()},
                               {"signature", std::move(signature)},
                               {"tolerance", std::move(tol)},
                               {"cases", json::object{{"type", "array"}, {"items", std::move(one_case)}}},
                               {"reference_source", str_schema()},
                               {"launch", launch_json_schema()},
                               {"initial_source", str_schema()},
                               {"initial_launch", launch_json_schema()}},
                  json::array{"name",
                              "signature",
                              "tolerance",
                              "cases",
                              "reference_source",
                              "launch",
                              "initial_source",
                              "initial_launch"});
}

std::vector<std::string> missing_parts(const json::object& given)
{
    std::vector<std::string> out;
    if (!has(given, "signature"))
        out.push_back("signature");
    if (!has(given, "cases"))
        out.push_back("cases");
    if (!has(given, "reference") && !has(given, "reference_source"))
        out.push_back("reference");
    if (!has(given, "initial") && !has(given, "initial_source"))
        out.push_back("initial");
    return out;
}

merged_workload merge_inferred(const json::object& given,
                               const json::value& answer,
                               const std::string& description)
{
    merged_workload out;
    auto& problems = out.problems;
    if (!answer.is_object())
    {
        problems.push_back("the answer must be a JSON object");
        return out;
    }
    const auto& a = answer.get_object();
    json::object wj = given;
    auto need = [&](const char* key, const char* what) -> const json::value*
    {
        const json::value* v = lenient::value_at(a, key);
        if (!v || v->is_null())
            problems.push_back(std::string(key) + ": missing (" + what + ")");
        return v;
    };

    if (!has(given, "signature"))
    {
        if (const auto* sig = need("signature", "entry and params"))
        {
            if (!sig->is_object())
                problems.push_back("signature: must be an object {\"entry\", \"params\"}");
            else
            {
                json::object s = sig->get_object();
                if (lenient::array_at(s, "params"))
                    for (json::value& p : s["params"].get_array())
                        if (p.is_object())
                        {
                            json::object& po = p.get_object();
                            // Scalars carry no dir or count; the schema makes them "".
                            for (const char* k : {"dir", "count"})
                                if (lenient::string_at(po, k) == std::optional<std::string>(""))
                                    po.erase(k);
                        }
                wj["signature"] = std::move(s);
            }
        }
    }
    if (!has(given, "launch"))
        if (const auto* l = need("launch", "the reference's launch plan"))
            wj["launch"] = normalized_launch(*l);
    if (!has(given, "tolerance"))
        if (const json::object* t = lenient::object_at(a, "tolerance"))
            wj["tolerance"] = *t;
    if (!has(given, "name"))
    {
        std::string name = "inferred";
        if (const auto n = lenient::string_at(a, "name"); n && !n->empty())
        {
            name.clear();
            // At most 64 characters: the name titles the report's heatmap (a 100 KB name made an
            // image the PNG encoder refused) and goes into every later prompt.
            for (char c : n->substr(0, 64))
                name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
        }
        wj["name"] = name;
    }
    if (!description.empty())
        wj["description"] = description;

    if (!has(given, "cases"))
    {
        const auto* cases = need("cases", "correctness and performance cases");
        // Every case is a request file holding the whole workload in each candidate's folder: 5,000
        // inferred cases made 7.8 GB per candidate.
        constexpr std::size_t most_cases = 64;
        if (cases && !cases->is_array())
            problems.push_back("cases: must be an array");
        else if (cases && cases->get_array().size() > most_cases)
            problems.push_back("cases: " + std::to_string(cases->get_array().size()) + " cases; at most " +
                               std::to_string(most_cases) +
                               " are accepted (a few correctness cases and 1-4 "
                               "performance cases suffice)");
        else if (cases)
        {
            // Which scalars are floating point (their values go to float_values).
            std::set<std::string> floats;
            if (const json::array* params = lenient::array_at(lenient::object_at(wj, "signature"), "params"))
                for (const json::value& p : *params)
                {
                    const auto t = lenient::string_at(p, "type");
                    const auto n = lenient::string_at(p, "name");
                    if (t && n)
                        if (auto dt = parse_dtype(*t); dt && is_floating(*dt))
                            floats.insert(*n);
                }
            json::array out_cases;
            const auto& arr = cases->get_array();
            for (std::size_t i = 0; i < arr.size(); ++i)
            {
                const std::string where = "cases[" + std::to_string(i) + "]";
                if (!arr[i].is_object())
                {
                    problems.push_back(where + ": must be an object");
                    continue;
                }
                json::object c = arr[i].get_object();
                // Only the schema's keys: an "inputs" entry could name a host file ("gen": "file"),
                // which loading would read and the worker would upload for mismatch reports to show.
                for (const auto& kv : c)
                    if (kv.key() != "name" && kv.key() != "role" && kv.key() != "values")
                        problems.push_back(where + "." + std::string(kv.key()) +
                                           ": not part of an inferred case (name, role and values only; "
                                           "inputs are generated)");
                if (const json::array* vals = lenient::array_at(c, "values"))
                {
                    json::object ints, fl;
                    for (const json::value& v : *vals)
                    {
                        const auto n = lenient::string_at(v, "name");
                        const json::value* x = lenient::value_at(v, "value");
                        if (!n || !lenient::number_at(x))
                        {
                            problems.push_back(where + ".values: each entry must be {\"name\", \"value\"}");
                            continue;
                        }
                        const std::string& name = *n;
                        if (floats.count(name))
                            fl[name] = x->to_number<double>();
                        else if (x->is_double())
                        {
                            // Whole and inside int64's range before the cast (casting 1e300 is
                            // undefined behaviour).
                            const double d = x->get_double();
                            if (d != std::trunc(d) || std::abs(d) >= 0x1p63)
                                problems.push_back(where + ".values." + name + ": must be an integer");
                            else
                                ints[name] = static_cast<std::int64_t>(d);
                        }
                        else
                            ints[name] = *x;
                    }
                    c["values"] = std::move(ints);
                    if (!fl.empty())
                        c["float_values"] = std::move(fl);
                }
                out_cases.push_back(std::move(c));
            }
            wj["cases"] = std::move(out_cases);
        }
    }
    if (!has(given, "reference") && !has(given, "reference_source"))
    {
        const auto* r = need("reference_source", "the reference kernel");
        if (r && (!r->is_string() || r->get_string().empty()))
            problems.push_back("reference_source: must be the CUDA source of the reference kernel");
        else if (r)
            wj["reference_source"] = *r;
    }
    if (!has(given, "initial") && !has(given, "initial_source"))
    {
        if (const auto s = lenient::string_at(a, "initial_source"); s && !s->empty())
        {
            wj["initial_source"] = *s;
            if (const json::object* l = lenient::object_at(a, "initial_launch"))
                wj["initial_launch"] = normalized_launch(*l);
        }
    }
    if (problems.empty())
        out.json = std::move(wj);
    return out;
}

std::vector<std::string> check_inferred_cases(const workload& w)
{
    std::vector<std::string> problems;
    int odd = 0, perf = 0;
    for (const auto& c : w.cases)
    {
        if (c.role == case_role::performance)
            ++perf;
        else
        {
            bool is_odd = false;
            for (const auto& [k, v] : c.values)
                is_odd = is_odd || (v > 1 && v % 2 == 1);
            odd += is_odd ? 1 : 0;
        }
    }
    if (odd < 2)
        problems.push_back(
            "cases: need at least two correctness cases of odd size (some size value odd and > 1, e.g. "
            "37 or 129), found " +
            std::to_string(odd));
    if (perf < 1)
        problems.push_back("cases: need at least one performance case (role \"performance\")");
    return problems;
}

std::vector<std::string> check_reference_load(const json::object& load_response)
{
    std::vector<std::string> problems;
    if (!lenient::array_at(load_response, "cases"))
    {
        problems.push_back("the worker's load response has no cases");
        return problems;
    }
    // The worker's answer (docs/worker-protocol.md, load_workload), read strictly: a malformed one
    // is reported with the field at fault.
    try
    {
        const json_reader response(load_response, json_location("load_workload", {}, json_style::record));
        for (const json_reader& c : response.optional_elements("cases"))
        {
            const std::string name = c.optional_string("name").value_or("?");
            const auto r = c.optional_nested("reference");
            if (!r)
                continue;
            if (const auto az = r->optional_nested("all_zero"))
                for (const auto& kv : az->object())
                    if (az->require_bool(kv.key()))
                        problems.push_back("case '" + name + "': the reference wrote only zeros to '" +
                                           std::string(kv.key()) + "'");
            if (const auto nf = r->optional_nested("nonfinite"))
                for (const auto& kv : nf->object())
                    if (const std::uint64_t n = nf->require_uint64(kv.key()); n > 0)
                        problems.push_back("case '" + name + "': the reference produced " +
                                           std::to_string(n) + " NaN/Inf values in '" +
                                           std::string(kv.key()) + "'");
            if (!r->optional_bool("depends_on_inputs").value_or(true))
                problems.push_back("case '" + name +
                                   "': the reference output does not depend on the inputs (it is the same "
                                   "for two different input sets)");
        }
    }
    catch (const json_error& e)
    {
        problems.push_back(std::string("the worker's load response is malformed: ") + e.what());
    }
    return problems;
}

boost::asio::awaitable<inference_result> infer_workload(model_client& client,
                                                        inference_request request,
                                                        compile_function compile,
                                                        load_function load,
                                                        usage_reporter report_usage,
                                                        record_writer* records,
                                                        inference_settings settings)
{
    inference_result result;
    result.inferred = missing_parts(request.given);
    if (result.inferred.empty())
    {
        result.workload_json = request.given;
        co_return result;
    }
    const bool structured = client.structured_output();
    std::string given_text = request.given.empty() ? "nothing" : json::serialize(request.given);
    model_request req;
    req.model = client.model();
    req.branch = -1;
    req.purpose = "infer";
    req.stream = settings.stream;
    req.reasoning_effort = settings.reasoning_effort;
    req.max_output_tokens = settings.max_output_tokens;
    req.schema = output_schema{"workload_inference", inference_json_schema(), true};
    req.messages.push_back(
        message::system(std::string(prompts::inference_system()) +
                        (structured ? "\n\nAnswer with the JSON object only."
                                    : "\n\nAnswer with the JSON object in a ```json block.")));
    req.messages.push_back(message::user(
        "[warpsmith task=infer]\n\n" + prompts::fill_template(prompts::inference_task(),
                                                              {{"description", request.description},
                                                               {"given", given_text},
                                                               {"needed", joined(result.inferred, ", ")}})));

    std::optional<json::object> merged;
    std::optional<workload> loaded;
    answer_validator validate = [&](const model_response& resp)
    {
        std::vector<std::string> problems;
        merged.reset();
        loaded.reset();
        std::string problem;
        auto doc = answer_document(resp.text, problem);
        if (!doc)
            return std::vector<std::string>{problem};
        auto m = merge_inferred(request.given, *doc, request.description);
        if (!m.json)
            return m.problems;
        try
        {
            // The model adds inline sources only; the given part's file names are already resolved.
            loaded = workload::from_json(*m.json, request.dir, "the inferred workload", file_scope::resolved);
        }
        catch (const std::exception& e)
        {
            return std::vector<std::string>{e.what()};
        }
        problems = check_inferred_cases(*loaded);
        for (auto& p : check_kernel_contract(loaded->reference.source, loaded->reference.entry))
            problems.push_back("reference_source: " + p);
        if (loaded->initial)
            for (auto& p : check_kernel_contract(loaded->initial->source, loaded->initial->entry))
                problems.push_back("initial_source: " + p);
        if (problems.empty())
            merged = std::move(m.json);
        return problems;
    };
    repair_renderer repair = [](const std::vector<std::string>& problems)
    {
        std::string list;
        for (const auto& p : problems)
            list += "- " + p + "\n";
        return prompts::fill_template(prompts::inference_repair(), {{"problems", list}});
    };

    std::vector<std::string> problems;
    for (int attempt = 1; attempt <= settings.max_attempts; ++attempt)
    {
        result.attempts = attempt;
        auto outcome = co_await run_exchange(
            client, req, nullptr, validate, repair, report_usage, records, settings.exchange);
        result.usage += outcome.usage;
        result.records.insert(result.records.end(), outcome.records.begin(), outcome.records.end());
        if (!outcome.accepted)
        {
            if (outcome.stop_reason == "budget")
                throw user_error(
                    "the token or cost budget ran out while inferring the workload from --description");
            if (outcome.stop_reason == "refused")
                throw user_error("the model refused to infer the workload: " + outcome.refusal);
            throw user_error("no usable workload could be inferred from --description: " +
                             joined(outcome.problems, "; "));
        }
        problems.clear();
        json::object check{{"attempt", attempt}};
        auto compile_one = [&](const kernel_source& k, const std::string& name)
        {
            compile_request cr;
            cr.source = k.source;
            cr.entry = k.entry;
            cr.arch = settings.arch;
            cr.name = name + ".cu";
            return cr;
        };
        auto ref_out = co_await compile(compile_one(loaded->reference, "reference"));
        check["reference_compiled"] = ref_out.compiled;
        if (!ref_out.compiled)
            problems.push_back("the reference does not compile: " + ref_out.error + "\n" +
                               log_excerpt(ref_out.log, 1500));
        if (loaded->initial)
        {
            auto init_out = co_await compile(compile_one(*loaded->initial, "initial"));
            check["initial_compiled"] = init_out.compiled;
            if (!init_out.compiled)
                problems.push_back("the initial kernel does not compile: " + init_out.error + "\n" +
                                   log_excerpt(init_out.log, 1500));
        }
        if (problems.empty() && load)
        {
            std::string load_error;
            json::object response;
            try
            {
                response = co_await load(*loaded);
            }
            catch (const user_error& e)
            {
                load_error = e.what();
            }
            if (!load_error.empty())
                problems.push_back("the reference failed on the GPU: " + load_error);
            else
            {
                for (auto& p : check_reference_load(response))
                    problems.push_back(std::move(p));
                check["reference_run"] = true;
            }
        }
        check["problems"] = json::value_from(problems);
        result.checks.push_back(std::move(check));
        if (problems.empty())
        {
            result.workload_json = loaded->to_json().as_object();
            co_return result;
        }
        // Continue the conversation: the accepted answer, then what the checks found.
        req.messages = std::move(outcome.conversation);
        req.messages.push_back(message::user(repair(problems)));
        req.purpose = "infer-retry";
    }
    throw user_error("no usable workload could be inferred from --description in " +
                     std::to_string(settings.max_attempts) + " attempts: " + joined(problems, "; "));
}

}  // namespace warpsmith::llm
