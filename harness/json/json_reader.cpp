#include "harness/json/json_reader.hpp"

#include "harness/json/json_number.hpp"

#include <algorithm>
#include <cmath>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

// The largest magnitude up to which every integer is a double: integral doubles beyond it are
// refused rather than read as some nearby integer.
constexpr double max_exact_integer = 9007199254740992.0;  // 2^53

constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();

std::string range_text(const json_int_range& r)
{
    if (r.max == int64_max)
    {
        if (r.min == int64_min)
            return "an integer";
        if (r.min == 0)
            return "a non-negative integer";
        if (r.min == 1)
            return "a positive integer";
    }
    return "an integer from " + std::to_string(r.min) + " to " + std::to_string(r.max);
}

bool integral_double(const json::value& v, const json_location& loc)
{
    return loc.style() != json_style::document && v.is_double() &&
           std::trunc(v.get_double()) == v.get_double() && std::fabs(v.get_double()) <= max_exact_integer;
}

std::size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

// ---- values -------------------------------------------------------------------------------------

std::string as_string(const json::value& v, const json_location& loc)
{
    if (!v.is_string())
        loc.expected("a string", v);
    return std::string(v.get_string());
}

bool as_bool(const json::value& v, const json_location& loc)
{
    if (!v.is_bool())
        loc.expected("true or false", v);
    return v.get_bool();
}

double as_number(const json::value& v, const json_location& loc)
{
    if (v.is_number())
        return v.to_number<double>();
    if (loc.style() == json_style::record && v.is_string())
    {
        if (auto x = nonfinite_number(v.get_string()))
            return *x;
    }
    loc.expected("a number", v);
}

std::int64_t as_int64(const json::value& v, const json_location& loc, json_int_range range)
{
    std::int64_t x = 0;
    if (v.is_int64())
        x = v.get_int64();
    else if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(int64_max))
        x = static_cast<std::int64_t>(v.get_uint64());
    else if (integral_double(v, loc))
        x = static_cast<std::int64_t>(v.get_double());
    else if (v.is_uint64() && loc.style() == json_style::document && range.max == int64_max)
        loc.fail("integer " + json_excerpt(v) + " is out of the int64 range");
    else
        loc.expected(range_text(range), v);
    if (x < range.min || x > range.max)
        loc.expected(range_text(range), v);
    return x;
}

std::uint64_t as_uint64(const json::value& v, const json_location& loc)
{
    if (v.is_uint64())
        return v.get_uint64();
    if (v.is_int64() && v.get_int64() >= 0)
        return static_cast<std::uint64_t>(v.get_int64());
    if (integral_double(v, loc) && v.get_double() >= 0)
        return static_cast<std::uint64_t>(v.get_double());
    loc.expected("a non-negative integer", v);
}

const json::object& as_object(const json::value& v, const json_location& loc)
{
    if (!v.is_object())
        loc.expected(loc.style() == json_style::request ? "an object" : "a JSON object", v);
    return v.get_object();
}

const json::array& as_array(const json::value& v, const json_location& loc)
{
    if (!v.is_array())
        loc.expected(loc.style() == json_style::request ? "an array" : "a JSON array", v);
    return v.get_array();
}

std::vector<std::string> as_strings(const json::value& v, const json_location& loc)
{
    std::vector<std::string> out;
    const json::array& a = as_array(v, loc);
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        // A request names the field as a whole, as the worker always has; a file names the element.
        if (loc.style() == json_style::request && !a[i].is_string())
            loc.expected("an array of strings", a[i]);
        out.push_back(as_string(a[i], loc.index(i)));
    }
    return out;
}

std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates)
{
    // Two edits are allowed between longer words, one between short ones ("mean" is not a typo of
    // "gen"); a word that starts another ("shared" for "shared_bytes") is a match too.
    std::string best;
    std::size_t best_distance = 3;
    for (auto c : candidates)
    {
        const std::size_t longest = std::max(word.size(), c.size());
        std::size_t d = edit_distance(word, c);
        if (d > (longest <= 4 ? 1 : 2))
            d = 3;
        if (d == 3 && word.size() >= 3 && c.substr(0, word.size()) == word)
            d = 2;
        if (d < best_distance)
        {
            best_distance = d;
            best = std::string(c);
        }
    }
    return best;
}

// ---- json_reader --------------------------------------------------------------------------------

json_reader::json_reader(const json::value& v, json_location loc) : loc_(std::move(loc))
{
    obj_ = &as_object(v, loc_);
}

json_reader::json_reader(const json::value& v,
                         json_location loc,
                         std::initializer_list<std::string_view> allowed)
    : json_reader(v, std::move(loc))
{
    check_keys(allowed);
}

json_reader::json_reader(const json::object& o, json_location loc) : obj_(&o), loc_(std::move(loc)) {}

json_reader::json_reader(const json::object& o,
                         json_location loc,
                         std::initializer_list<std::string_view> allowed)
    : json_reader(o, std::move(loc))
{
    check_keys(allowed);
}

void json_reader::check_keys(std::initializer_list<std::string_view> allowed) const
{
    const std::vector<std::string_view> keys(allowed);
    for (const auto& kv : *obj_)
    {
        const std::string_view k = kv.key();
        if (std::find(keys.begin(), keys.end(), k) != keys.end())
            continue;
        std::string problem = "unknown key '" + std::string(k) + "'";
        const std::string hint = closest_match(k, keys);
        if (!hint.empty())
        {
            problem += " (did you mean '" + hint + "'?)";
        }
        else
        {
            problem += " (expected ";
            for (std::size_t i = 0; i < keys.size(); ++i)
                problem += (i ? ", " : "") + std::string(keys[i]);
            problem += ")";
        }
        loc_.fail(problem);
    }
}

const json::value* json_reader::find(std::string_view key) const
{
    const json::value* v = obj_->if_contains(key);
    // Programs write null for "none" (an optional that is empty); people never need to.
    if (v && v->is_null() && loc_.style() != json_style::document)
        return nullptr;
    return v;
}

const json::value& json_reader::require(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        loc_.missing(key);
    return *v;
}

std::string json_reader::require_string(std::string_view key) const
{
    return as_string(require(key), at(key));
}

std::optional<std::string> json_reader::optional_string(std::string_view key) const
{
    if (const json::value* v = find(key))
        return as_string(*v, at(key));
    return std::nullopt;
}

bool json_reader::require_bool(std::string_view key) const
{
    return as_bool(require(key), at(key));
}

std::optional<bool> json_reader::optional_bool(std::string_view key) const
{
    if (const json::value* v = find(key))
        return as_bool(*v, at(key));
    return std::nullopt;
}

double json_reader::require_number(std::string_view key) const
{
    return as_number(require(key), at(key));
}

std::optional<double> json_reader::optional_number(std::string_view key) const
{
    if (const json::value* v = find(key))
        return as_number(*v, at(key));
    return std::nullopt;
}

std::int64_t json_reader::require_int64(std::string_view key, json_int_range range) const
{
    return as_int64(require(key), at(key), range);
}

std::optional<std::int64_t> json_reader::optional_int64(std::string_view key, json_int_range range) const
{
    if (const json::value* v = find(key))
        return as_int64(*v, at(key), range);
    return std::nullopt;
}

std::uint64_t json_reader::require_uint64(std::string_view key) const
{
    return as_uint64(require(key), at(key));
}

std::optional<std::uint64_t> json_reader::optional_uint64(std::string_view key) const
{
    if (const json::value* v = find(key))
        return as_uint64(*v, at(key));
    return std::nullopt;
}

const json::object& json_reader::require_object(std::string_view key) const
{
    return as_object(require(key), at(key));
}

const json::object* json_reader::optional_object(std::string_view key) const
{
    if (const json::value* v = find(key))
        return &as_object(*v, at(key));
    return nullptr;
}

const json::array& json_reader::require_array(std::string_view key) const
{
    return as_array(require(key), at(key));
}

const json::array* json_reader::optional_array(std::string_view key) const
{
    if (const json::value* v = find(key))
        return &as_array(*v, at(key));
    return nullptr;
}

std::vector<std::string> json_reader::optional_strings(std::string_view key) const
{
    if (const json::value* v = find(key))
        return as_strings(*v, at(key));
    return {};
}

json_reader json_reader::nested(std::string_view key) const
{
    return json_reader(require(key), at(key));
}

json_reader json_reader::nested(std::string_view key, std::initializer_list<std::string_view> allowed) const
{
    return json_reader(require(key), at(key), allowed);
}

std::optional<json_reader> json_reader::optional_nested(std::string_view key) const
{
    if (const json::value* v = find(key))
        return json_reader(*v, at(key));
    return std::nullopt;
}

std::optional<json_reader> json_reader::optional_nested(std::string_view key,
                                                        std::initializer_list<std::string_view> allowed) const
{
    if (const json::value* v = find(key))
        return json_reader(*v, at(key), allowed);
    return std::nullopt;
}

std::vector<json_reader> json_reader::optional_elements(std::string_view key) const
{
    std::vector<json_reader> out;
    if (const json::array* a = optional_array(key))
    {
        const json_location loc = at(key);
        for (std::size_t i = 0; i < a->size(); ++i)
            out.emplace_back((*a)[i], loc.index(i));
    }
    return out;
}

void json_reader::fail(std::string_view key, std::string_view problem) const
{
    at(key).fail(problem);
}

}  // namespace warpsmith
