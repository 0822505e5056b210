#pragma once

// Numbers that JSON cannot hold. JSON has no NaN or infinity, and a serializer would write something
// no parser accepts, so warpsmith writes them as the strings "NaN", "Inf" and "-Inf" wherever it
// writes a measured number (docs/worker-protocol.md); strict readers of records read them back
// (json_style::record).

#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

namespace warpsmith
{

/// A JSON number for finite values; "NaN", "Inf" or "-Inf" otherwise.
boost::json::value json_number(double v);

/// The value json_number() wrote as a string: NaN for "NaN", +-infinity for "Inf" and "-Inf";
/// nullopt for any other text.
std::optional<double> nonfinite_number(std::string_view text);

}  // namespace warpsmith
