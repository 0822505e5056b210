#pragma once

// Defaults shared by the worker and the commands that drive it; each is written here once.

namespace warpsmith
{

/// A launch running longer than this is a hang: the worker gives up on it and restarts
/// (`launch_timeout_ms` of load_workload, `--launch-timeout-ms`).
inline constexpr int default_launch_timeout_ms = 10'000;

/// Timing (`timing` of evaluate, `--warmup`, `--iterations`, `--target-noise`): warm-up launches,
/// the most measured launches per case, and the adaptive stop's target, the 95% confidence
/// interval of the median's half-width relative to the median (0 times every launch up to the
/// ceiling). 1%: on the H200 (run Q, docs/performance.md) the same 8.5 us kernel's medians moved by
/// 1.5-7.6% (max - min) over 50 evaluations of 100 launches each, so a narrower interval within one
/// evaluation ranks nothing better; the confirmation re-times the close calls interleaved.
inline constexpr int default_warmup_launches = 10;
inline constexpr int default_timed_launches = 100;
inline constexpr double default_target_rel_noise = 0.01;

/// The warm-up stops once its launches add up to this much of the case's fastest validation run
/// (at least one launch, at most `warmup`): ten 3 ms SGEMM launches buy nothing that one does
/// after three validation runs, while a 10 us kernel still gets all ten.
inline constexpr double warmup_budget_ms = 2.0;

/// Adaptive stopping looks at the samples only after each segment of this many measured launches
/// (so never before this many), and each segment has its own checked launches.
inline constexpr int timing_segment_launches = 20;

/// A candidate whose median after a segment exceeds this multiple of the best candidate's median
/// on the same case stops there ("dominated"); its median is still that of its measured launches.
inline constexpr double dominated_factor = 1.5;

}  // namespace warpsmith
