#pragma once

// The timed medians of a worker evaluation result (docs/worker-protocol.md, "evaluate":
// cases[].timing.median_us), which scores, speedups and the autotuner's evaluation cache are
// computed from. Lenient: a case without a name, a timing or a positive finite median is skipped.

#include <boost/json/value.hpp>

#include <map>
#include <string>

namespace warpsmith
{

/// Median (µs) per performance case of an evaluation result; cases without a role count as
/// performance cases.
std::map<std::string, double> performance_medians(const boost::json::value& result);

}  // namespace warpsmith
