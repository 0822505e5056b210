#pragma once

// The evaluate operation (docs/worker-protocol.md "evaluate"): prepare the candidate, validate it
// on every selected case (stated, hidden, repeat; stopping at the first failure), time the
// performance cases, and assemble the evaluation result. A fault or hang becomes a failure of the
// candidate with restart = true: the caller answers, then the worker exits with code 3.

#include "harness/protocol/evaluation_result.hpp"
#include "harness/worker/gpu_session.hpp"

#include <boost/json/object.hpp>

namespace warpsmith::worker
{

struct evaluation
{
    protocol::evaluation_result result;  ///< The "result" object.
    bool restart = false;                ///< The context is lost: answer with worker_restart and exit 3.
};

/// Throws request_error for malformed requests (bad_request) or without a workload (no_workload).
evaluation evaluate(gpu_session& session, const boost::json::object& request);

/// Parses the "timing" object of evaluate / time_interleaved into options (defaults: 10 warm-up
/// launches, 100 iterations, cold, no adaptive stop). where names the op in messages.
timing_options parse_timing(const boost::json::object* timing, const std::string& where);

}  // namespace warpsmith::worker
