#include "harness/json/json_location.hpp"

#include "harness/core/utf8_text.hpp"

#include <boost/json/serialize.hpp>

#include <charconv>

namespace warpsmith
{

json_location::json_location(std::string origin, std::string path, json_style style)
    : origin_(std::move(origin)), path_(std::move(path)), style_(style)
{
}

json_location json_location::unnamed(std::string name, json_style style)
{
    json_location loc({}, {}, style);
    loc.name_ = std::move(name);
    return loc;
}

json_location json_location::key(std::string_view k) const
{
    return json_location(origin_, path_.empty() ? std::string(k) : path_ + "." + std::string(k), style_);
}

json_location json_location::index(std::size_t i) const
{
    return json_location(origin_, path_ + "[" + std::to_string(i) + "]", style_);
}

std::string json_location::text() const
{
    if (path_.empty())
        return origin_.empty() ? name_ : origin_;
    // A request names its field in quotes after the op, the way the worker has always answered.
    const std::string path = style_ == json_style::request ? "'" + path_ + "'" : path_;
    return origin_.empty() ? path : origin_ + ": " + path;
}

void json_location::fail(std::string_view problem) const
{
    const std::string where = text();
    throw json_error(where.empty() ? std::string(problem) : where + ": " + std::string(problem), *this);
}

void json_location::expected(std::string_view what, const boost::json::value& got) const
{
    if (style_ != json_style::request)
        fail("must be " + std::string(what) + ", got " + json_excerpt(got));
    const std::string where = text();
    throw json_error((where.empty() ? "" : where + " ") + "must be " + std::string(what), *this);
}

void json_location::missing(std::string_view k) const
{
    if (style_ != json_style::request)
        fail("'" + std::string(k) + "' is missing");
    const json_location at = key(k);
    throw json_error(at.text() + " is missing", *this);
}

json_error::json_error(const std::string& message, json_location where)
    : std::runtime_error(message), where_(std::move(where))
{
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
        s = std::string(utf8_prefix(s, 37)) + "...";
    return s;
}

}  // namespace warpsmith
