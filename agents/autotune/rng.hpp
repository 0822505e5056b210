#pragma once

// The autotuner's random numbers: xoshiro256** seeded through splitmix64, with its own bounded
// integer and real draws. std::uniform_int_distribution is implementation-defined, so a seed would
// give different tunes with different standard libraries; these draws are the same everywhere,
// which is what makes `warpsmith tune --seed S` reproducible across machines.

#include <cstdint>

namespace warpsmith::autotune
{

class rng
{
public:
    explicit rng(std::uint64_t seed);

    std::uint64_t next();
    /// Uniform in [0, n); n must be positive. Unbiased (rejection of the short last interval).
    std::uint64_t below(std::uint64_t n);
    /// Uniform in [0, 1) with 53 random bits.
    double uniform();
    /// True with probability p.
    bool chance(double p) { return uniform() < p; }

private:
    std::uint64_t s_[4];
};

/// splitmix64's output function: a well-mixed 64-bit hash of x.
std::uint64_t splitmix64(std::uint64_t& state);

}  // namespace warpsmith::autotune
