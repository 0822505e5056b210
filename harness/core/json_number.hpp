#pragma once

// Reading a number out of JSON that another part of warpsmith wrote (worker results, journal
// events, device descriptions), where a missing or non-numeric field means "no number". Boost.JSON
// keeps int64, uint64 and double apart; these readers want a double whichever it is.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

namespace warpsmith
{

/// *v as a double when it is a JSON number; nullopt for a null pointer or any other kind.
inline std::optional<double> json_number(const boost::json::value* v)
{
    if (!v || !v->is_number())
        return std::nullopt;
    return v->to_number<double>();
}

/// o[key] as a double when it is a JSON number; nullopt when absent or of another kind.
inline std::optional<double> json_number(const boost::json::object& o, std::string_view key)
{
    return json_number(o.if_contains(key));
}

}  // namespace warpsmith
