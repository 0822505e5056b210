#pragma once

// A worker's ok:false response (docs/worker-protocol.md: {"ok": false, "error": {"kind",
// "message"}}) read once, for the GPU executor, the worker process's hello and the profiler's
// single-shot worker.

#include <boost/json/object.hpp>

#include <string>

namespace warpsmith
{

struct worker_refusal
{
    std::string kind = "error";  ///< "error" when the response names none.
    std::string message;

    /// "kind: message".
    std::string text() const { return kind + ": " + message; }
};

/// The error of an ok:false response; missing or mistyped fields keep their defaults.
worker_refusal worker_refusal_of(const boost::json::object& resp);

/// worker_refusal_of(resp).text().
std::string worker_error_text(const boost::json::object& resp);

}  // namespace warpsmith
