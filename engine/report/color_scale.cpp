#include "engine/report/color_scale.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace warpsmith::report
{

namespace
{

// ColorBrewer RdBu (11 classes), slowest (red) to fastest (blue), neutral in the middle.
constexpr std::array<rgb, 11> stops{{{103, 0, 31},
                                     {178, 24, 43},
                                     {214, 96, 77},
                                     {244, 165, 130},
                                     {253, 219, 199},
                                     {247, 247, 247},
                                     {209, 229, 240},
                                     {146, 197, 222},
                                     {67, 147, 195},
                                     {33, 102, 172},
                                     {5, 48, 97}}};

}  // namespace

std::string rgb::hex() const
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
    return buf;
}

double rgb::luminance() const
{
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255.0;
}

color_scale::color_scale(double limit_octaves) : limit_(std::max(1.0, limit_octaves)) {}

double color_scale::limit_for(double max_abs_log2)
{
    if (!std::isfinite(max_abs_log2))
        return 6;
    return std::clamp(std::ceil(max_abs_log2 - 1e-9), 1.0, 6.0);
}

rgb color_scale::color_at(double t)
{
    t = std::clamp(std::isfinite(t) ? t : 0.0, -1.0, 1.0);
    const double pos = (t + 1) / 2 * (stops.size() - 1);
    const auto i = std::min(static_cast<std::size_t>(pos), stops.size() - 2);
    const double f = pos - static_cast<double>(i);
    auto mix = [f](std::uint8_t a, std::uint8_t b)
    { return static_cast<std::uint8_t>(std::lround(a + (b - a) * f)); };
    return rgb{
        mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}

rgb color_scale::color_for_speedup(double speedup) const
{
    if (!(speedup > 0))
        return color_at(-1);
    return color_at(std::log2(speedup) / limit_);
}

}  // namespace warpsmith::report
