#include "agents/llm/proposal_format.hpp"

#include "agents/llm/kernel_contract.hpp"
#include "harness/compile/compile_options.hpp"
#include "harness/core/error.hpp"
#include "harness/core/utf8_text.hpp"
#include "harness/json/lenient.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/identifier.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace warpsmith::llm
{

namespace json = boost::json;

namespace
{

json::object string_array_schema()
{
    return json::object{{"type", "array"}, {"items", json::object{{"type", "string"}}}};
}

std::string kind_name(const json::value& v)
{
    switch (v.kind())
    {
        case json::kind::null:
            return "null";
        case json::kind::bool_:
            return "a boolean";
        case json::kind::int64:
        case json::kind::uint64:
        case json::kind::double_:
            return "a number";
        case json::kind::string:
            return "a string";
        case json::kind::array:
            return "an array";
        case json::kind::object:
            return "an object";
    }
    return "a value";
}

std::string trim(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(b, e - b + 1));
}

std::optional<std::int64_t> read_int(const json::value& v)
{
    if (v.is_int64())
        return v.get_int64();
    if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v.get_uint64());
    // Only doubles inside int64's range are cast (casting 1e300 is undefined behaviour).
    if (v.is_double() && std::isfinite(v.get_double()) && v.get_double() >= -9.2e18 &&
        v.get_double() <= 9.2e18 &&
        v.get_double() == static_cast<double>(static_cast<std::int64_t>(v.get_double())))
        return static_cast<std::int64_t>(v.get_double());
    if (v.is_string())
    {
        try
        {
            std::size_t used = 0;
            const std::string s(v.get_string());
            const auto x = std::stoll(s, &used, 0);
            if (used == s.size())
                return x;
        }
        catch (const std::exception&)
        {
        }
    }
    return std::nullopt;
}

/// Normalizes a launch object (strings or integers; absent shared_bytes) and checks it.
std::optional<launch_plan> read_launch(const json::value& v,
                                       const std::string& where,
                                       std::vector<std::string>& problems)
{
    if (!v.is_object())
    {
        problems.push_back(where + ": must be an object {\"grid\", \"block\", \"shared_bytes\"}, got " +
                           kind_name(v));
        return std::nullopt;
    }
    json::object norm;
    bool ok = true;
    for (const char* dim : {"grid", "block"})
    {
        const auto* a = lenient::value_at(v, dim);
        if (!a)
        {
            problems.push_back(where + "." + dim + ": missing (1 to 3 integer expressions)");
            ok = false;
            continue;
        }
        if (!a->is_array())
        {
            problems.push_back(where + "." + dim + ": must be an array of 1 to 3 expressions, got " +
                               kind_name(*a));
            ok = false;
            continue;
        }
        const auto& arr = a->get_array();
        if (arr.empty() || arr.size() > 3)
        {
            problems.push_back(where + "." + dim + ": expected 1 to 3 expressions, got " +
                               std::to_string(arr.size()));
            ok = false;
            continue;
        }
        json::array out;
        for (std::size_t i = 0; i < arr.size(); ++i)
        {
            if (arr[i].is_string() || arr[i].is_int64() || arr[i].is_uint64())
                out.push_back(arr[i]);
            else if (const auto x = arr[i].is_double() ? read_int(arr[i]) : std::nullopt)
                out.push_back(*x);
            else
            {
                problems.push_back(
                    where + "." + dim + "[" + std::to_string(i) +
                    "]: must be an integer expression (a string like \"ceil_div(N,16)\"), got " +
                    kind_name(arr[i]));
                ok = false;
            }
        }
        norm[dim] = std::move(out);
    }
    if (const auto* s = lenient::value_at(v, "shared_bytes"); s && !s->is_null())
    {
        if (s->is_string() && trim(s->get_string()).empty())
            norm["shared_bytes"] = "0";
        else if (s->is_string() || s->is_int64() || s->is_uint64())
            norm["shared_bytes"] = *s;
        else
        {
            problems.push_back(where + ".shared_bytes: must be an integer expression, got " + kind_name(*s));
            ok = false;
        }
    }
    if (!ok)
        return std::nullopt;
    try
    {
        return launch_plan::from_json(norm, where);
    }
    catch (const std::exception& e)
    {
        problems.push_back(e.what());
        return std::nullopt;
    }
}

}  // namespace

json::object launch_json_schema()
{
    return json::object{{"type", "object"},
                        {"additionalProperties", false},
                        {"required", json::array{"grid", "block", "shared_bytes"}},
                        {"properties",
                         json::object{{"grid", string_array_schema()},
                                      {"block", string_array_schema()},
                                      {"shared_bytes", json::object{{"type", "string"}}}}}};
}

json::object proposal_json_schema()
{
    json::object override_item{
        {"type", "object"},
        {"additionalProperties", false},
        {"required", json::array{"case", "launch"}},
        {"properties",
         json::object{{"case", json::object{{"type", "string"}}}, {"launch", launch_json_schema()}}}};
    json::object define_item{{"type", "object"},
                             {"additionalProperties", false},
                             {"required", json::array{"name", "value"}},
                             {"properties",
                              json::object{{"name", json::object{{"type", "string"}}},
                                           {"value", json::object{{"type", "integer"}}}}}};
    return json::object{
        {"type", "object"},
        {"additionalProperties", false},
        {"required",
         json::array{"rationale",
                     "kernel_source",
                     "entry",
                     "launch",
                     "per_case_overrides",
                     "compile_options",
                     "defines"}},
        {"properties",
         json::object{
             {"rationale", json::object{{"type", "string"}}},
             {"kernel_source", json::object{{"type", "string"}}},
             {"entry", json::object{{"type", "string"}}},
             {"launch", launch_json_schema()},
             {"per_case_overrides", json::object{{"type", "array"}, {"items", std::move(override_item)}}},
             {"compile_options", string_array_schema()},
             {"defines", json::object{{"type", "array"}, {"items", std::move(define_item)}}}}}};
}

std::vector<std::pair<std::string, std::string>> fenced_blocks(std::string_view text)
{
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t pos = 0;
    while (true)
    {
        const auto open = text.find("```", pos);
        if (open == std::string_view::npos)
            break;
        // A fence opens at the start of a line (or the text).
        if (open > 0 && text[open - 1] != '\n')
        {
            pos = open + 3;
            continue;
        }
        const auto eol = text.find('\n', open);
        if (eol == std::string_view::npos)
            break;
        std::string lang = trim(text.substr(open + 3, eol - open - 3));
        for (auto& c : lang)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        // The closing fence: ``` at the start of a line.
        std::size_t close = eol;
        bool found = false;
        while ((close = text.find("```", close)) != std::string_view::npos)
        {
            if (text[close - 1] == '\n')
            {
                found = true;
                break;
            }
            close += 3;
        }
        if (!found)
            break;
        out.emplace_back(lang, std::string(text.substr(eol + 1, close - eol - 1)));
        pos = close + 3;
    }
    return out;
}

parsed_answer parse_answer_text(std::string_view text)
{
    parsed_answer out;
    const std::string t = trim(text);
    if (t.empty())
    {
        out.problem = "the answer is empty";
        return out;
    }
    boost::system::error_code ec;
    if (t.front() == '{')
    {
        auto v = json::parse(t, ec);
        if (!ec)
        {
            out.document = std::move(v);
            out.form = "json";
            return out;
        }
    }
    const auto blocks = fenced_blocks(text);
    std::optional<std::string> source;
    std::optional<json::value> doc;
    std::string json_problem;
    for (const auto& [lang, body] : blocks)
    {
        if (!source && (lang == "cuda" || lang == "cu" || lang == "cuh" || lang == "c++" || lang == "cpp" ||
                        lang == "c" || lang == "cxx"))
            source = body;
        else if (!doc && (lang == "json" || lang == "jsonc"))
        {
            auto v = json::parse(body, ec);
            if (ec)
                json_problem = "the ```json block is not valid JSON (" + ec.message() + ")";
            else
                doc = std::move(v);
        }
    }
    if (!doc && !source)
    {
        if (t.front() == '{')
        {
            json::parse(t, ec);
            out.problem = "the answer is not valid JSON (" + ec.message() + ")";
        }
        else
            out.problem =
                json_problem.empty()
                    ? "the answer holds neither a JSON object nor a ```cuda block with a ```json block"
                    : json_problem;
        return out;
    }
    if (!doc)
    {
        out.problem = json_problem.empty()
                          ? "the answer has a ```cuda block but no ```json block with entry and launch"
                          : json_problem;
        return out;
    }
    if (!doc->is_object())
    {
        out.problem = "the ```json block must hold an object";
        return out;
    }
    auto& o = doc->get_object();
    if (source && (!o.contains("kernel_source") || !o["kernel_source"].is_string() ||
                   trim(o["kernel_source"].get_string()).empty()))
        o["kernel_source"] = *source;
    if (!o.contains("rationale"))
    {
        // Prose outside the blocks explains the change.
        std::string prose;
        std::size_t pos = 0;
        std::string s(text);
        while (pos < s.size())
        {
            const auto open = s.find("```", pos);
            prose += s.substr(pos, open == std::string::npos ? std::string::npos : open - pos);
            if (open == std::string::npos)
                break;
            const auto close = s.find("\n```", open + 3);
            if (close == std::string::npos)
                break;
            pos = close + 4;
        }
        prose = trim(prose);
        if (prose.size() > 1500)
            prose = std::string(utf8_prefix(prose, 1500)) + "...";
        o["rationale"] = prose;
    }
    out.document = std::move(*doc);
    out.form = source ? "fenced" : "json";
    return out;
}

proposal_check validate_proposal(const json::value& doc, const workload& w)
{
    proposal_check out;
    auto& problems = out.problems;
    if (!doc.is_object())
    {
        problems.push_back("the answer must be a JSON object, got " + kind_name(doc));
        return out;
    }
    const auto& o = doc.get_object();
    proposal p;
    candidate& c = p.cand;

    if (const auto* r = lenient::value_at(o, "rationale"); r && !r->is_null())
    {
        if (r->is_string())
        {
            // Kept in the journal, history.json and report.html: a 30 MB rationale made each 31 MB.
            constexpr std::size_t most = 8 * 1024;
            const std::string_view text = r->get_string();
            p.rationale = std::string(utf8_prefix(text, most)) + (text.size() > most ? "..." : "");
        }
        else
            problems.push_back("rationale: must be a string, got " + kind_name(*r));
    }
    const auto* src = lenient::value_at(o, "kernel_source");
    if (!src)
        problems.push_back("kernel_source: missing (the complete CUDA source of the kernel)");
    else if (!src->is_string())
        problems.push_back("kernel_source: must be a string, got " + kind_name(*src));
    else
        c.source = std::string(src->get_string());

    const auto* entry = lenient::value_at(o, "entry");
    if (!entry)
        problems.push_back("entry: missing (the name of the extern \"C\" __global__ function)");
    else if (!entry->is_string())
        problems.push_back("entry: must be a string, got " + kind_name(*entry));
    else if (!is_c_identifier(entry->get_string()))
        problems.push_back("entry: '" + std::string(entry->get_string()) + "' is not a C identifier");
    else
        c.entry = std::string(entry->get_string());

    const auto* launch = lenient::value_at(o, "launch");
    if (!launch)
        problems.push_back(
            "launch: missing ({\"grid\": [...], \"block\": [...], \"shared_bytes\": \"...\"})");
    else if (auto plan = read_launch(*launch, "launch", problems))
        c.launch = *plan;

    // Lists a model fills in are bounded before they are read: each entry can cost a problem line,
    // a compile option or a -D, in every request and record that follows.
    auto too_many = [&](const json::value* v, std::string_view field, std::size_t most)
    {
        const std::size_t n = v && v->is_array()    ? v->get_array().size()
                              : v && v->is_object() ? v->get_object().size()
                                                    : 0;
        if (n <= most)
            return false;
        problems.push_back(std::string(field) + ": " + std::to_string(n) + " entries; at most " +
                           std::to_string(most) + " are accepted");
        return true;
    };
    const auto* overrides_value = lenient::value_at(o, "per_case_overrides");
    if (too_many(overrides_value, "per_case_overrides", std::max<std::size_t>(w.cases.size(), 1)))
        overrides_value = nullptr;
    if (const auto* ov = overrides_value; ov && !ov->is_null())
    {
        auto add_override = [&](const std::string& case_name, const json::value& lv, const std::string& where)
        {
            if (!w.find_case(case_name))
            {
                // The workload's names, at most 12 of them (a list per bad key grew with keys x cases).
                std::string names;
                for (std::size_t i = 0; i < w.cases.size() && i < 12; ++i)
                    names += (names.empty() ? "" : ", ") + w.cases[i].name;
                if (w.cases.size() > 12)
                    names += ", and " + std::to_string(w.cases.size() - 12) + " more";
                problems.push_back(where + ": there is no case named '" +
                                   std::string(utf8_prefix(case_name, 100)) + "' (cases: " + names + ")");
                return;
            }
            if (auto plan = read_launch(lv, where + ".launch", problems))
                c.overrides.insert_or_assign(case_name, *plan);
        };
        if (ov->is_array())
        {
            const auto& arr = ov->get_array();
            for (std::size_t i = 0; i < arr.size(); ++i)
            {
                const std::string where = "per_case_overrides[" + std::to_string(i) + "]";
                const auto* cn = lenient::value_at(arr[i], "case");
                const auto* lv = lenient::value_at(arr[i], "launch");
                if (!cn || !cn->is_string() || !lv)
                    problems.push_back(where + ": must be {\"case\": NAME, \"launch\": {...}}");
                else
                    add_override(std::string(cn->get_string()), *lv, where);
            }
        }
        else if (ov->is_object())
        {
            for (const auto& kv : ov->get_object())
                add_override(
                    std::string(kv.key()), kv.value(), "per_case_overrides." + std::string(kv.key()));
        }
        else
            problems.push_back("per_case_overrides: must be an array of {\"case\", \"launch\"}, got " +
                               kind_name(*ov));
    }

    const auto* options_value = lenient::value_at(o, "compile_options");
    if (too_many(options_value, "compile_options", max_listed_options))
        options_value = nullptr;
    if (const auto* opts = options_value; opts && !opts->is_null())
    {
        if (!opts->is_array())
            problems.push_back("compile_options: must be an array of strings, got " + kind_name(*opts));
        else
        {
            bool strings = true;
            for (std::size_t i = 0; i < opts->get_array().size(); ++i)
            {
                const auto& x = opts->get_array()[i];
                if (!x.is_string())
                {
                    problems.push_back("compile_options[" + std::to_string(i) + "]: must be a string, got " +
                                       kind_name(x));
                    strings = false;
                }
                else if (!trim(x.get_string()).empty())
                    c.options.push_back(trim(x.get_string()));
            }
            if (strings)
                if (auto bad = check_compile_options(c.options))
                    problems.push_back("compile_options: " + *bad);
        }
    }

    const auto* defines_value = lenient::value_at(o, "defines");
    if (too_many(defines_value, "defines", max_listed_options))
        defines_value = nullptr;
    if (const auto* defs = defines_value; defs && !defs->is_null())
    {
        auto add_define = [&](const std::string& name, const json::value& value, const std::string& where)
        {
            // The rule candidate::from_json reads the journal with: a define named "virtual" was
            // accepted here and then made the run's journal unreadable.
            if (!is_c_identifier(name) || is_reserved_word(name) || name.size() > max_macro_name_bytes)
            {
                problems.push_back(where + ": '" + name + "' is not a valid macro name");
                return;
            }
            const auto x = read_int(value);
            if (!x)
            {
                problems.push_back(where + ": the value of " + name + " must be an integer, got " +
                                   kind_name(value));
                return;
            }
            c.defines.insert_or_assign(name, *x);
        };
        if (defs->is_array())
        {
            const auto& arr = defs->get_array();
            for (std::size_t i = 0; i < arr.size(); ++i)
            {
                const std::string where = "defines[" + std::to_string(i) + "]";
                const auto* n = lenient::value_at(arr[i], "name");
                const auto* v = lenient::value_at(arr[i], "value");
                if (!n || !n->is_string() || !v)
                    problems.push_back(where + ": must be {\"name\": NAME, \"value\": INTEGER}");
                else
                    add_define(std::string(n->get_string()), *v, where);
            }
        }
        else if (defs->is_object())
        {
            for (const auto& kv : defs->get_object())
                add_define(std::string(kv.key()), kv.value(), "defines." + std::string(kv.key()));
        }
        else
            problems.push_back("defines: must be an array of {\"name\", \"value\"}, got " + kind_name(*defs));
    }

    if (!c.source.empty() && !c.entry.empty())
        for (auto& prob : check_kernel_contract(c.source, c.entry))
            problems.push_back(std::move(prob));
    if (problems.empty())
    {
        if (auto bad = c.validate(w); !bad.empty())
            problems.push_back(bad);
    }
    if (problems.empty())
        out.prop = std::move(p);
    return out;
}

proposal_check read_proposal(std::string_view text, const workload& w)
{
    const auto parsed = parse_answer_text(text);
    if (!parsed.document)
    {
        proposal_check out;
        out.problems.push_back(parsed.problem);
        return out;
    }
    return validate_proposal(*parsed.document, w);
}

json::object proposal_document(const candidate& c, const std::string& rationale)
{
    auto plan_json = [](const launch_plan& p)
    {
        json::object l = p.to_json().as_object();
        return l;
    };
    json::array overrides;
    for (const auto& [name, plan] : c.overrides)
        overrides.push_back(json::object{{"case", name}, {"launch", plan_json(plan)}});
    json::array options;
    for (const auto& o : c.options)
        options.push_back(json::value(o));
    json::array defines;
    for (const auto& [name, value] : c.defines)
        defines.push_back(json::object{{"name", name}, {"value", value}});
    return json::object{{"rationale", rationale},
                        {"kernel_source", c.source},
                        {"entry", c.entry},
                        {"launch", plan_json(c.launch)},
                        {"per_case_overrides", std::move(overrides)},
                        {"compile_options", std::move(options)},
                        {"defines", std::move(defines)}};
}

}  // namespace warpsmith::llm
