#pragma once

// time_interleaved (docs/worker-protocol.md): the final confirmation. Several already validated
// entries are timed on every performance case in the order A B C A B C ..., one launch per entry
// per round after a warm-up, so that clock and thermal drift affect all of them alike. Launch
// conditions are those of evaluate's timing (own events per launch, L2 scrub in cold mode, inout
// restored outside the events).

#include "harness/worker/gpu_session.hpp"

#include <boost/json/object.hpp>

namespace warpsmith::worker
{

/// Returns {"timings": {key: {case: timing stats}}}. Throws request_error for malformed requests,
/// entries that do not compile or launch (bad_request naming the entry), or no workload; kernel_hang
/// and sticky cuda_error propagate (the worker restarts).
boost::json::object time_interleaved(gpu_session& session, const boost::json::object& request);

}  // namespace warpsmith::worker
