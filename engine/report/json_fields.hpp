#pragma once

// Tolerant readers for the JSON files a report is built from. Reports must render whatever a run
// left behind (an interrupted run has no summary, an older tool may lack a field), so a missing or
// mistyped field reads as "absent" here instead of throwing; the writers' schemas are documented in
// docs/run-directory.md and docs/autotune.md.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::report
{

inline const boost::json::object* object_at(const boost::json::value* v)
{
    return v && v->is_object() ? &v->get_object() : nullptr;
}

inline const boost::json::object* object_at(const boost::json::object* o, std::string_view key)
{
    return o ? object_at(o->if_contains(key)) : nullptr;
}

inline const boost::json::array* array_at(const boost::json::object* o, std::string_view key)
{
    const auto* v = o ? o->if_contains(key) : nullptr;
    return v && v->is_array() ? &v->get_array() : nullptr;
}

inline std::optional<double> number_at(const boost::json::object* o, std::string_view key)
{
    const auto* v = o ? o->if_contains(key) : nullptr;
    if (!v || !v->is_number())
        return std::nullopt;
    return v->to_number<double>();
}

inline std::optional<std::string> string_at(const boost::json::object* o, std::string_view key)
{
    const auto* v = o ? o->if_contains(key) : nullptr;
    if (!v || !v->is_string())
        return std::nullopt;
    return std::string(v->get_string());
}

inline std::optional<bool> bool_at(const boost::json::object* o, std::string_view key)
{
    const auto* v = o ? o->if_contains(key) : nullptr;
    if (!v || !v->is_bool())
        return std::nullopt;
    return v->get_bool();
}

/// {"case": median, ...} -> map (non-numbers skipped).
inline std::map<std::string, double> medians_at(const boost::json::object* o, std::string_view key)
{
    std::map<std::string, double> out;
    if (const auto* m = object_at(o, key))
        for (const auto& kv : *m)
            if (kv.value().is_number())
                out[std::string(kv.key())] = kv.value().to_number<double>();
    return out;
}

}  // namespace warpsmith::report
