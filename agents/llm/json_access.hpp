#pragma once

// Lenient reading of JSON payloads from model APIs (STACK §7.8: APIs add fields all the time, so
// nothing here insists on an exact set of keys). Absent or mistyped fields give the fallback.
// Every function has an object overload: passing a json::object where a json::value is expected
// would build a temporary copy, and a pointer returned into it would dangle.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace warpsmith::llm::detail
{

inline const boost::json::value* find(const boost::json::object& o, std::string_view key)
{
    return o.if_contains(key);
}

inline const boost::json::value* find(const boost::json::value& v, std::string_view key)
{
    return v.is_object() ? find(v.get_object(), key) : nullptr;
}

template <class J>
const boost::json::object* find_object(const J& v, std::string_view key)
{
    const auto* x = find(v, key);
    return x && x->is_object() ? &x->get_object() : nullptr;
}

template <class J>
const boost::json::array* find_array(const J& v, std::string_view key)
{
    const auto* x = find(v, key);
    return x && x->is_array() ? &x->get_array() : nullptr;
}

template <class J>
std::string string_or(const J& v, std::string_view key, std::string fallback = {})
{
    const auto* x = find(v, key);
    return x && x->is_string() ? std::string(x->get_string()) : fallback;
}

template <class J>
std::int64_t int_or(const J& v, std::string_view key, std::int64_t fallback = 0)
{
    const auto* x = find(v, key);
    if (!x)
        return fallback;
    if (x->is_int64())
        return x->get_int64();
    if (x->is_uint64())
        return static_cast<std::int64_t>(x->get_uint64());
    if (x->is_double())
        return static_cast<std::int64_t>(x->get_double());
    return fallback;
}

template <class J>
double number_or(const J& v, std::string_view key, double fallback = 0)
{
    const auto* x = find(v, key);
    return x && x->is_number() ? x->template to_number<double>() : fallback;
}

}  // namespace warpsmith::llm::detail
