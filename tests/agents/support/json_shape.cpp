#include "tests/agents/support/json_shape.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace warpsmith::test
{

namespace json = boost::json;

namespace
{

std::string kind_of(const json::value& v)
{
    switch (v.kind())
    {
        case json::kind::null:
            return "null";
        case json::kind::bool_:
            return "boolean";
        case json::kind::int64:
        case json::kind::uint64:
            return "integer";
        case json::kind::double_:
            return "number";
        case json::kind::string:
            return "string";
        case json::kind::array:
            return "array";
        case json::kind::object:
            return "object";
    }
    return "value";
}

bool has_type(const json::value& v, std::string_view type)
{
    const auto k = kind_of(v);
    if (type == k)
        return true;
    if (type == "number" && k == "integer")
        return true;
    // 3.0 is an integer to the API, as to JSON Schema.
    if (type == "integer" && v.is_double())
        return v.get_double() == static_cast<double>(static_cast<std::int64_t>(v.get_double()));
    return false;
}

std::string article(const std::string& type)
{
    return (type == "integer" || type == "object" || type == "array") ? "an " + type : "a " + type;
}

std::string literal(const json::value& v)
{
    return v.is_string() ? "'" + std::string(v.get_string()) + "'" : json::serialize(v);
}

std::string join_path(const std::string& path, std::string_view key)
{
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

/// Whether alternative `alt` of a oneOf claims value `v` by its discriminating property `key`;
/// nullopt when the alternative has no such property.
std::optional<bool> claims(const json::object& alt, const json::value& v, std::string_view key)
{
    const auto* props = alt.if_contains("properties");
    const json::value* p = props && props->is_object() ? props->get_object().if_contains(key) : nullptr;
    if (!p || !p->is_object())
        return std::nullopt;
    const json::value* got = v.is_object() ? v.get_object().if_contains(key) : nullptr;
    if (!got)
    {
        const auto* req = alt.if_contains("required");
        if (req && req->is_array())
            for (const auto& r : req->get_array())
                if (r.is_string() && r.get_string() == key)
                    return false;
        return true;
    }
    if (const auto* c = p->get_object().if_contains("const"))
        return *c == *got;
    if (const auto* e = p->get_object().if_contains("enum"); e && e->is_array())
        for (const auto& x : e->get_array())
            if (x == *got)
                return true;
    return false;
}

}  // namespace

json_shape::json_shape(json::value schema) : schema_(std::move(schema)) {}

json_shape json_shape::load(const std::filesystem::path& file)
{
    std::ifstream f(file, std::ios::binary);
    if (!f)
        throw std::runtime_error("json_shape: cannot read " + file.string());
    std::stringstream ss;
    ss << f.rdbuf();
    boost::system::error_code ec;
    auto v = json::parse(ss.str(), ec);
    if (ec)
        throw std::runtime_error("json_shape: " + file.string() + " is not JSON: " + ec.message());
    return json_shape(std::move(v));
}

std::optional<shape_violation> json_shape::check(const json::value& v) const
{
    return check(v, schema_, "");
}

const json::value& json_shape::resolve(const json::value& schema) const
{
    const json::value* s = &schema;
    for (int depth = 0; depth < 16 && s->is_object(); ++depth)
    {
        const auto* ref = s->get_object().if_contains("$ref");
        if (!ref || !ref->is_string())
            break;
        const std::string name(ref->get_string());
        const std::string prefix = "#/$defs/";
        if (name.rfind(prefix, 0) != 0)
            throw std::runtime_error("json_shape: unsupported $ref " + name);
        const auto* defs = schema_.get_object().if_contains("$defs");
        const json::value* target =
            defs && defs->is_object() ? defs->get_object().if_contains(name.substr(prefix.size())) : nullptr;
        if (!target)
            throw std::runtime_error("json_shape: unknown $ref " + name);
        s = target;
    }
    return *s;
}

std::optional<shape_violation> json_shape::check(const json::value& v,
                                                 const json::value& schema_in,
                                                 const std::string& path) const
{
    const json::value& schema = resolve(schema_in);
    if (!schema.is_object())
        return std::nullopt;
    const auto& s = schema.get_object();
    const std::string where = path.empty() ? "the request body" : "'" + path + "'";

    if (const auto* one = s.if_contains("oneOf"); one && one->is_array())
    {
        // Alternatives that claim the value by "type" (items, tools) or "role" (messages); all of
        // them when none has such a property.
        std::vector<const json::value*> candidates;
        for (const char* key : {"type", "role"})
        {
            bool any_has_key = false;
            for (const auto& alt_ref : one->get_array())
            {
                const auto& alt = resolve(alt_ref);
                if (!alt.is_object())
                    continue;
                if (auto c = claims(alt.get_object(), v, key))
                {
                    any_has_key = true;
                    if (*c)
                        candidates.push_back(&alt_ref);
                }
            }
            if (any_has_key)
                break;
        }
        bool discriminated = !candidates.empty();
        if (!discriminated)
        {
            // Else the alternatives whose JSON type fits (a string or an array of items).
            for (const auto& alt_ref : one->get_array())
            {
                const auto& alt = resolve(alt_ref);
                const auto* t = alt.is_object() ? alt.get_object().if_contains("type") : nullptr;
                bool fits = false;
                if (t && t->is_string())
                    fits = has_type(v, t->get_string());
                else if (t && t->is_array())
                    for (const auto& x : t->get_array())
                        fits = fits || (x.is_string() && has_type(v, x.get_string()));
                if (fits)
                    candidates.push_back(&alt_ref);
            }
            discriminated = !candidates.empty();
        }
        if (!discriminated)
            for (const auto& alt_ref : one->get_array())
                candidates.push_back(&alt_ref);
        std::optional<shape_violation> best;
        for (const auto* alt : candidates)
        {
            auto err = check(v, *alt, path);
            if (!err)
                return std::nullopt;
            if (!best || err->param.size() > best->param.size())
                best = std::move(err);
        }
        if (discriminated && best)
            return best;
        return shape_violation{"Invalid value for " + where + ": it matches none of the accepted shapes.",
                               path,
                               "invalid_value"};
    }

    if (const auto* t = s.if_contains("type"))
    {
        std::vector<std::string> types;
        if (t->is_string())
            types.emplace_back(t->get_string());
        else if (t->is_array())
            for (const auto& x : t->get_array())
                types.emplace_back(x.as_string());
        bool ok = false;
        for (const auto& type : types)
            ok = ok || has_type(v, type);
        if (!ok)
        {
            std::string expected;
            for (std::size_t i = 0; i < types.size(); ++i)
                expected += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + article(types[i]);
            return shape_violation{"Invalid type for " + where + ": expected " + expected + ", but got " +
                                       article(kind_of(v)) + " instead.",
                                   path,
                                   "invalid_type"};
        }
    }
    if (const auto* c = s.if_contains("const"); c && *c != v)
        return shape_violation{
            "Invalid value: " + literal(v) + ". " + where + " must be " + literal(*c) + ".",
            path,
            "invalid_value"};
    if (const auto* e = s.if_contains("enum"); e && e->is_array())
    {
        bool ok = false;
        std::string list;
        for (const auto& x : e->get_array())
        {
            ok = ok || x == v;
            if (!x.is_null())
                list += (list.empty() ? "" : ", ") + literal(x);
        }
        if (!ok)
            return shape_violation{
                "Invalid value: " + literal(v) + ". Supported values for " + where + " are: " + list + ".",
                path,
                "invalid_value"};
    }
    if (const auto* m = s.if_contains("minimum");
        m && v.is_number() && v.to_number<double>() < m->to_number<double>())
        return shape_violation{"Invalid " + where + ": integer below minimum value. Expected a value >= " +
                                   json::serialize(*m) + ", but got " + json::serialize(v) + " instead.",
                               path,
                               "integer_below_min_value"};
    if (v.is_array())
    {
        const auto& a = v.get_array();
        if (const auto* m = s.if_contains("minItems"); m && a.size() < m->to_number<std::size_t>())
            return shape_violation{"Invalid " + where +
                                       ": empty array. Expected an array with minimum length " +
                                       json::serialize(*m) + ", but got an array with length " +
                                       std::to_string(a.size()) + " instead.",
                                   path,
                                   "empty_array"};
        if (const auto* m = s.if_contains("maxItems"); m && a.size() > m->to_number<std::size_t>())
            return shape_violation{"Invalid " + where +
                                       ": array too long. Expected an array with maximum length " +
                                       json::serialize(*m) + ", but got an array with length " +
                                       std::to_string(a.size()) + " instead.",
                                   path,
                                   "array_above_max_length"};
        if (const auto* items = s.if_contains("items"))
            for (std::size_t i = 0; i < a.size(); ++i)
                if (auto err = check(a[i], *items, path + "[" + std::to_string(i) + "]"))
                    return err;
    }
    if (v.is_object())
    {
        const auto& o = v.get_object();
        const auto* props = s.if_contains("properties");
        const json::object* p = props && props->is_object() ? &props->get_object() : nullptr;
        if (const auto* req = s.if_contains("required"); req && req->is_array())
            for (const auto& r : req->get_array())
                if (!o.contains(r.as_string()))
                    return shape_violation{
                        "Missing required parameter: '" + join_path(path, r.as_string()) + "'.",
                        join_path(path, r.as_string()),
                        "missing_required_parameter"};
        const auto* extra = s.if_contains("additionalProperties");
        for (const auto& kv : o)
        {
            const auto child = join_path(path, kv.key());
            if (p && p->contains(kv.key()))
            {
                if (auto err = check(kv.value(), p->at(kv.key()), child))
                    return err;
            }
            else if (extra && extra->is_bool() && !extra->get_bool())
                return shape_violation{"Unknown parameter: '" + child + "'.", child, "unknown_parameter"};
            else if (extra && extra->is_object())
            {
                if (auto err = check(kv.value(), *extra, child))
                    return err;
            }
        }
    }
    return std::nullopt;
}

std::filesystem::path api_shapes_dir()
{
    return std::filesystem::path(WARPSMITH_SOURCE_DIR) / "tests" / "agents" / "support" / "api-shapes";
}

}  // namespace warpsmith::test
