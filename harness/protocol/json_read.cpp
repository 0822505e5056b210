#include "harness/protocol/json_read.hpp"

#include <cmath>
#include <limits>

namespace warpsmith::protocol
{

namespace json = boost::json;

object_in::object_in(const json::value& v, std::string path) : path_(std::move(path))
{
    if (!v.is_object())
        throw format_error((path_.empty() ? std::string("message") : path_) + ": expected an object");
    object_ = &v.get_object();
}

std::string object_in::path_of(std::string_view key) const
{
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const json::value* object_in::find(std::string_view key) const
{
    const json::value* v = object_->if_contains(key);
    return v && !v->is_null() ? v : nullptr;
}

void object_in::fail(std::string_view key, std::string_view problem) const
{
    throw format_error(path_of(key) + ": " + std::string(problem));
}

std::optional<std::string> object_in::string(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (!v->is_string())
        fail(key, "expected a string");
    return std::string(v->get_string());
}

std::optional<bool> object_in::boolean(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (!v->is_bool())
        fail(key, "expected true or false");
    return v->get_bool();
}

std::optional<double> object_in::number(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (v->is_number())
        return v->to_number<double>();
    if (v->is_string())
    {
        const std::string_view s = v->get_string();
        if (s == "NaN")
            return std::numeric_limits<double>::quiet_NaN();
        if (s == "Inf")
            return std::numeric_limits<double>::infinity();
        if (s == "-Inf")
            return -std::numeric_limits<double>::infinity();
    }
    fail(key, "expected a number");
}

std::optional<std::int64_t> object_in::integer(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (v->is_int64())
        return v->get_int64();
    if (v->is_uint64() &&
        v->get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return static_cast<std::int64_t>(v->get_uint64());
    if (v->is_double() && std::trunc(v->get_double()) == v->get_double() && std::abs(v->get_double()) < 9e15)
        return static_cast<std::int64_t>(v->get_double());
    fail(key, "expected an integer");
}

std::optional<std::uint64_t> object_in::count(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (v->is_uint64())
        return v->get_uint64();
    if (v->is_int64() && v->get_int64() >= 0)
        return static_cast<std::uint64_t>(v->get_int64());
    if (v->is_double() && v->get_double() >= 0 && std::trunc(v->get_double()) == v->get_double() &&
        v->get_double() < 1.8e19)
        return static_cast<std::uint64_t>(v->get_double());
    fail(key, "expected a non-negative integer");
}

json::value number_json(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "Inf" : "-Inf";
    return v;
}

}  // namespace warpsmith::protocol
