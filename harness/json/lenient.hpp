#pragma once

// Lenient reading of JSON (docs/architecture.md, "JSON access"): a field that is absent or of
// another kind reads as "none" (nullptr, nullopt or the fallback) instead of throwing. For JSON
// that must keep rendering or keep going whatever it holds: model API payloads (APIs add and drop
// fields all the time, STACK §7.8), the files a report is built from (an interrupted run has no
// summary, an older tool may lack a field), journal events and caches written by other versions.
// Where a wrong field is an error, read with json_reader.hpp instead.
//
// Each function takes the JSON it looks into as a json::object or json::value, by reference or by
// pointer (a null pointer reads as absent, so lookups chain: string_at(object_at(o, "a"), "b")).
// There are overloads for both kinds on purpose: an object passed where only a value is taken would
// be copied into a temporary value, and a pointer returned into that copy would dangle. For the same
// reason arrays and strings are refused outright.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::lenient
{

// ---- one value ----------------------------------------------------------------------------------

/// *v when it is an object; nullptr for a null pointer or any other kind.
inline const boost::json::object* object_at(const boost::json::value* v)
{
    return v && v->is_object() ? &v->get_object() : nullptr;
}

/// *v when it is an array; nullptr for a null pointer or any other kind.
inline const boost::json::array* array_at(const boost::json::value* v)
{
    return v && v->is_array() ? &v->get_array() : nullptr;
}

/// *v as a double when it is a JSON number (int64, uint64 or double alike); nullopt otherwise.
inline std::optional<double> number_at(const boost::json::value* v)
{
    if (!v || !v->is_number())
        return std::nullopt;
    return v->to_number<double>();
}

// ---- one field ----------------------------------------------------------------------------------

/// The value of key, JSON null included; nullptr when absent or when there is no object to look in.
inline const boost::json::value* value_at(const boost::json::object& o, std::string_view key)
{
    return o.if_contains(key);
}

inline const boost::json::value* value_at(const boost::json::value& v, std::string_view key)
{
    return v.is_object() ? v.get_object().if_contains(key) : nullptr;
}

inline const boost::json::value* value_at(const boost::json::object* o, std::string_view key)
{
    return o ? o->if_contains(key) : nullptr;
}

inline const boost::json::value* value_at(const boost::json::value* v, std::string_view key)
{
    return v ? value_at(*v, key) : nullptr;
}

// An array or string would be converted to a temporary value (see the note at the top).
const boost::json::value* value_at(const boost::json::array&, std::string_view) = delete;
const boost::json::value* value_at(const boost::json::string&, std::string_view) = delete;

template <class J>
const boost::json::object* object_at(const J& j, std::string_view key)
{
    return object_at(value_at(j, key));
}

template <class J>
const boost::json::array* array_at(const J& j, std::string_view key)
{
    return array_at(value_at(j, key));
}

template <class J>
std::optional<double> number_at(const J& j, std::string_view key)
{
    return number_at(value_at(j, key));
}

template <class J>
std::optional<std::string> string_at(const J& j, std::string_view key)
{
    const boost::json::value* v = value_at(j, key);
    if (!v || !v->is_string())
        return std::nullopt;
    return std::string(v->get_string());
}

template <class J>
std::optional<bool> bool_at(const J& j, std::string_view key)
{
    const boost::json::value* v = value_at(j, key);
    if (!v || !v->is_bool())
        return std::nullopt;
    return v->get_bool();
}

/// Any JSON number as an integer: uint64 is cast, a double truncated.
template <class J>
std::optional<std::int64_t> int_at(const J& j, std::string_view key)
{
    const boost::json::value* v = value_at(j, key);
    if (!v)
        return std::nullopt;
    if (v->is_int64())
        return v->get_int64();
    if (v->is_uint64())
        return static_cast<std::int64_t>(v->get_uint64());
    if (v->is_double())
        return static_cast<std::int64_t>(v->get_double());
    return std::nullopt;
}

/// {"name": number, ...} at key as a map; members that are not numbers are left out.
template <class J>
std::map<std::string, double> numbers_at(const J& j, std::string_view key)
{
    std::map<std::string, double> out;
    if (const boost::json::object* m = object_at(j, key))
    {
        for (const auto& kv : *m)
        {
            if (auto x = number_at(&kv.value()))
                out[std::string(kv.key())] = *x;
        }
    }
    return out;
}

// ---- one field with a fallback ------------------------------------------------------------------

template <class J>
std::string string_or(const J& j, std::string_view key, std::string fallback = {})
{
    return string_at(j, key).value_or(std::move(fallback));
}

template <class J>
std::int64_t int_or(const J& j, std::string_view key, std::int64_t fallback = 0)
{
    return int_at(j, key).value_or(fallback);
}

template <class J>
double number_or(const J& j, std::string_view key, double fallback = 0)
{
    return number_at(j, key).value_or(fallback);
}

}  // namespace warpsmith::lenient
