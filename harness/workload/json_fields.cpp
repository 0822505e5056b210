#include "harness/workload/json_fields.hpp"

#include "harness/core/error.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace warpsmith::detail
{

json_location::json_location(std::string origin, std::string path)
    : origin_(std::move(origin)), path_(std::move(path))
{
}

json_location json_location::key(std::string_view k) const
{
    return json_location(origin_, path_.empty() ? std::string(k) : path_ + "." + std::string(k));
}

json_location json_location::index(std::size_t i) const
{
    return json_location(origin_, path_ + "[" + std::to_string(i) + "]");
}

std::string json_location::text() const
{
    if (origin_.empty())
        return path_;
    if (path_.empty())
        return origin_;
    return origin_ + ": " + path_;
}

void json_location::fail(std::string_view problem) const
{
    const std::string where = text();
    throw user_error(where.empty() ? std::string(problem) : where + ": " + std::string(problem));
}

std::string number_text(double v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string json_excerpt(const boost::json::value& v)
{
    // Boost.JSON writes 1.5 as "1.5E0"; messages show numbers the way people write them.
    std::string s = v.is_double() ? number_text(v.get_double()) : boost::json::serialize(v);
    if (s.size() > 40)
        s = s.substr(0, 37) + "...";
    return s;
}

bool is_c_identifier(std::string_view s)
{
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
        return false;
    return std::all_of(
        s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_reserved_word(std::string_view s)
{
    static constexpr std::array<std::string_view, 60> words{
        "alignas",  "alignof",   "auto",     "bool",         "break",    "case",     "char",    "class",
        "const",    "continue",  "default",  "delete",       "do",       "double",   "else",    "enum",
        "explicit", "extern",    "false",    "float",        "for",      "friend",   "goto",    "if",
        "inline",   "int",       "long",     "namespace",    "new",      "noexcept", "nullptr", "operator",
        "private",  "protected", "public",   "register",     "restrict", "return",   "short",   "signed",
        "sizeof",   "static",    "struct",   "switch",       "template", "this",     "throw",   "true",
        "typedef",  "typename",  "union",    "unsigned",     "using",    "virtual",  "void",    "volatile",
        "while",    "constexpr", "decltype", "static_assert"};
    return std::find(words.begin(), words.end(), s) != words.end();
}

namespace
{

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

json_object_reader::json_object_reader(const boost::json::value& v,
                                       json_location loc,
                                       std::initializer_list<std::string_view> allowed)
    : loc_(std::move(loc))
{
    obj_ = &as_object(v, loc_);
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

const boost::json::value* json_object_reader::find(std::string_view key) const
{
    return obj_->if_contains(key);
}

const boost::json::value& json_object_reader::require(std::string_view key) const
{
    const auto* v = find(key);
    if (!v)
        loc_.fail("'" + std::string(key) + "' is missing");
    return *v;
}

std::string json_object_reader::require_string(std::string_view key) const
{
    return as_string(require(key), at(key));
}

std::optional<std::string> json_object_reader::optional_string(std::string_view key) const
{
    if (const auto* v = find(key))
        return as_string(*v, at(key));
    return std::nullopt;
}

std::optional<double> json_object_reader::optional_number(std::string_view key) const
{
    if (const auto* v = find(key))
        return as_number(*v, at(key));
    return std::nullopt;
}

std::string as_string(const boost::json::value& v, const json_location& loc)
{
    if (!v.is_string())
        loc.fail("must be a string, got " + json_excerpt(v));
    return std::string(v.get_string());
}

double as_number(const boost::json::value& v, const json_location& loc)
{
    if (v.is_int64())
        return static_cast<double>(v.get_int64());
    if (v.is_uint64())
        return static_cast<double>(v.get_uint64());
    if (v.is_double())
        return v.get_double();
    loc.fail("must be a number, got " + json_excerpt(v));
}

std::int64_t as_int64(const boost::json::value& v, const json_location& loc)
{
    if (v.is_int64())
        return v.get_int64();
    if (v.is_uint64())
        loc.fail("integer " + json_excerpt(v) + " is out of the int64 range");
    loc.fail("must be an integer, got " + json_excerpt(v));
}

std::uint64_t as_uint64(const boost::json::value& v, const json_location& loc)
{
    if (v.is_uint64())
        return v.get_uint64();
    if (v.is_int64() && v.get_int64() >= 0)
        return static_cast<std::uint64_t>(v.get_int64());
    loc.fail("must be a non-negative integer, got " + json_excerpt(v));
}

const boost::json::object& as_object(const boost::json::value& v, const json_location& loc)
{
    if (!v.is_object())
        loc.fail("must be a JSON object, got " + json_excerpt(v));
    return v.get_object();
}

const boost::json::array& as_array(const boost::json::value& v, const json_location& loc)
{
    if (!v.is_array())
        loc.fail("must be a JSON array, got " + json_excerpt(v));
    return v.get_array();
}

}  // namespace warpsmith::detail
