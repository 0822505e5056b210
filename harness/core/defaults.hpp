#pragma once

// Defaults shared by the worker and the commands that drive it; each is written here once.

namespace warpsmith
{

/// A launch running longer than this is a hang: the worker gives up on it and restarts
/// (`launch_timeout_ms` of load_workload, `--launch-timeout-ms`).
inline constexpr int default_launch_timeout_ms = 10'000;

}  // namespace warpsmith
