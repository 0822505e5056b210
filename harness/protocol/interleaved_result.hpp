#pragma once

// The answer to the worker protocol's time_interleaved (docs/worker-protocol.md; the final
// confirmation, SPEC §3 "Trust rules"): per entry key ("reference", "initial", a candidate id) the
// timing of each performance case, and the entries the worker found invalid during their
// interleaved launches. The worker writes it, the GPU executor reads it once at the boundary, the
// confirmation decides from it.

#include "harness/protocol/evaluation_result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <string>

namespace warpsmith::protocol
{

struct interleaved_result
{
    /// key -> case -> timing. An invalid entry has none (or an empty map).
    std::map<std::string, std::map<std::string, timing_report>> timings;
    /// key -> why it is invalid (kind, case, message).
    std::map<std::string, failure_report> invalid;

    /// {"timings": {key: {case: timing}}, "invalid": {key: failure}}.
    boost::json::object to_json() const;
    /// Lenient about absent fields (an answer without "invalid" has none), strict about kinds;
    /// throws format_error naming the path ("time_interleaved.timings.c0003.big.median_us: ...").
    static interleaved_result from_json(const boost::json::value& v,
                                        const std::string& path = "time_interleaved");

    friend bool operator==(const interleaved_result&, const interleaved_result&) = default;
};

}  // namespace warpsmith::protocol
