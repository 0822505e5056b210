#pragma once

// Host time since a point, in milliseconds: the one stopwatch of phases_ms, busy accounting and the
// benches.

#include <chrono>

namespace warpsmith
{

inline double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace warpsmith
