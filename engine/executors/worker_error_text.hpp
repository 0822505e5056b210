#pragma once

// A worker's response line read once (docs/worker-protocol.md): the envelope every response has
// ({"id", "ok", "worker_restart"}) and the error of an ok:false response ({"ok": false, "error":
// {"kind", "message"}}), for the GPU executor, the compile pool, the worker process's hello and the
// profiler's single-shot worker.

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith
{

/// The fields every response carries, read strictly (harness/json/json_reader.hpp, record style).
struct worker_envelope
{
    std::optional<std::int64_t> id;
    bool ok = false;
    /// The worker exits after this line (a fault left its context unusable) and must be restarted.
    bool worker_restart = false;
};

/// Throws json_error naming the field at fault ("response to 'evaluate': ok: must be true or false,
/// got 1"); "ok" is required.
worker_envelope worker_envelope_of(const boost::json::object& resp, std::string_view op);

/// worker_envelope_of(resp).ok, for a response worker_process has already checked.
bool worker_ok(const boost::json::object& resp);
/// worker_envelope_of(resp).worker_restart, for a response worker_process has already checked.
bool worker_restarting(const boost::json::object& resp);

struct worker_refusal
{
    std::string kind = "error";  ///< "error" when the response names none.
    std::string message;

    /// "kind: message".
    std::string text() const { return kind + ": " + message; }
};

/// The error of an ok:false response; missing or mistyped fields keep their defaults (a refusal is
/// reported whatever shape its detail has).
worker_refusal worker_refusal_of(const boost::json::object& resp);

/// worker_refusal_of(resp).text().
std::string worker_error_text(const boost::json::object& resp);

}  // namespace warpsmith
