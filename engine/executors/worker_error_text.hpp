#pragma once

// The one-line text of a worker's ok:false response (docs/worker-protocol.md), shared by the GPU
// executor and the profiler's single-shot worker.

#include <boost/json/object.hpp>

#include <string>

namespace warpsmith
{

/// "kind: message" of an ok:false response ("error: " when the fields are missing).
std::string worker_error_text(const boost::json::object& resp);

}  // namespace warpsmith
