#include "agents/autotune/rng.hpp"

namespace warpsmith::autotune
{

namespace
{

std::uint64_t rotl(std::uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

}  // namespace

std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

rng::rng(std::uint64_t seed)
{
    for (auto& s : s_)
        s = splitmix64(seed);
}

std::uint64_t rng::next()
{
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

std::uint64_t rng::below(std::uint64_t n)
{
    // Reject draws from the incomplete last block of size (2^64 mod n) so every residue is equally
    // likely.
    const std::uint64_t limit = -n % n;  // (2^64 - n) mod n == 2^64 mod n
    for (;;)
    {
        const std::uint64_t x = next();
        if (x >= limit)
            return x % n;
    }
}

double rng::uniform()
{
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

}  // namespace warpsmith::autotune
