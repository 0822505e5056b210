#pragma once

// The context's local memory window, as the H200 (sm_90, driver 580) shows it (measured with
// probes that store and load absolute local addresses; docs/hardening.md, "Local memory"):
//
// * Every thread's local addresses end at local_window_top (2^24). A kernel's frame sits just
//   below a fixed reserve at the top: the frame of a kernel with F bytes of local memory is
//   [top - reserve - F, top - reserve). The reserve (576 bytes on the H200) is measured at start
//   by launch_hygiene.
// * Any kernel, even one with no frame at all, may load and store the whole per-thread
//   allocation [top - reserve - pool, top) with st.local / ld.local at absolute addresses, and
//   what it stores there is still there at the next launch. `pool` is the largest of the stack
//   limit (CU_LIMIT_STACK_SIZE) and the frame of every kernel the context has launched: the
//   allocation grows and never shrinks.
//
// So the worker keeps the pool small and known: it sets the stack limit to 0 (a kernel whose
// stack the compiler cannot bound, i.e. one that recurses, then faults) and records the frame of
// every kernel it may launch before it launches it. launch_hygiene::scrub_local wipes the whole
// allocation before every candidate launch.

#include <cstddef>
#include <cstdint>

namespace warpsmith::worker
{

inline constexpr std::uint64_t local_window_top = std::uint64_t(1) << 24;

/// The largest frame a candidate or reference may have: the harness wipes at most this much (plus
/// the reserve) between launches; a larger frame is refused when the kernel is loaded.
inline constexpr std::size_t max_local_frame_bytes = std::size_t{16} * 1024;

/// Records that a kernel with `bytes` of local memory per thread may be launched in this process's
/// context (idempotent; keeps the maximum).
void note_local_frame(std::size_t bytes);

/// The largest frame (or stack limit) recorded so far: the per-thread local allocation of the
/// context, less the reserve.
std::size_t local_frame_high_water();

/// Sets the context's stack limit to 0 and records what the driver keeps (the current context
/// must be set). Returns the limit now in force.
std::size_t limit_dynamic_stack();

}  // namespace warpsmith::worker
