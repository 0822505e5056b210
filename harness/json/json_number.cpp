#include "harness/json/json_number.hpp"

#include <cmath>
#include <limits>

namespace warpsmith
{

boost::json::value json_number(double v)
{
    if (std::isfinite(v))
        return v;
    if (std::isnan(v))
        return "NaN";
    return v > 0 ? "Inf" : "-Inf";
}

std::optional<double> nonfinite_number(std::string_view text)
{
    if (text == "NaN")
        return std::numeric_limits<double>::quiet_NaN();
    if (text == "Inf")
        return std::numeric_limits<double>::infinity();
    if (text == "-Inf")
        return -std::numeric_limits<double>::infinity();
    return std::nullopt;
}

}  // namespace warpsmith
