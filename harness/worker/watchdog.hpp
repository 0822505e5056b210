#pragma once

// Waiting for the GPU without trusting the kernel to finish (SPEC §3: a candidate that hangs is
// diagnosed, not waited on forever). The worker never blocks in the driver while candidate code
// may be running: it polls cuStreamQuery against a deadline. A timeout throws kernel_hang; the
// request loop then answers "hang", sets "worker_restart" and exits with code 3, because a kernel
// that never ends cannot be stopped from inside the process.
//
// Every launch sequence that is waited on at once is sized so that, at the kernel's measured speed,
// it needs well under the timeout (see timer.cpp), so the timeout is a real per-launch budget.

#include <chrono>
#include <cuda.h>
#include <stdexcept>
#include <string>

namespace warpsmith::worker
{

/// A wait exceeded launch_timeout_ms.
class kernel_hang : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// Polls until all work queued on s has completed. Spins (yielding) for the first milliseconds, so
/// short kernels are seen finished within microseconds, then sleeps in growing steps up to 1 ms.
/// Throws kernel_hang("<what>: no completion after N ms") at the deadline and cuda_error for an
/// error reported by the stream (sticky or not).
void wait_for_stream(CUstream s, std::chrono::milliseconds timeout, const std::string& what);

/// The same for the work queued before event e was recorded (e recorded, work after it may still
/// run): the timer decides on a segment's samples while its last launches run.
void wait_for_event(CUevent e, std::chrono::milliseconds timeout, const std::string& what);

}  // namespace warpsmith::worker
