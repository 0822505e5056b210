#pragma once

// The heatmap's diverging colour scale (docs/reports.md, "heatmap"): a candidate's latency on a
// case relative to the reference, on a log scale. Faster than the reference runs from near-white
// to deep blue, slower from near-white to deep red (ColorBrewer RdBu, which stays readable for the
// common forms of colour blindness); equal to the reference is neutral grey-white. The scale is
// symmetric in log2(speedup) and clamped at +-limit octaves.

#include <cstdint>
#include <string>

namespace warpsmith::report
{

struct rgb
{
    std::uint8_t r = 0, g = 0, b = 0;

    /// "#rrggbb".
    std::string hex() const;
    /// Relative luminance in [0, 1] (sRGB weights), to pick dark or light text over a fill.
    double luminance() const;
    bool operator==(const rgb&) const = default;
};

class color_scale
{
public:
    /// limit_octaves: |log2(speedup)| at which the colour saturates (>= 1).
    explicit color_scale(double limit_octaves);

    /// The colour of a speedup over the reference (reference_time / candidate_time > 0).
    rgb color_for_speedup(double speedup) const;
    /// The colour at t in [-1, 1] (-1: slowest, 0: equal, 1: fastest).
    static rgb color_at(double t);
    double limit_octaves() const { return limit_; }

    /// The smallest whole number of octaves (1..6) that covers |log2(s)| of every speedup given.
    static double limit_for(double max_abs_log2);

private:
    double limit_;
};

}  // namespace warpsmith::report
