#pragma once

// The "timing" object of the evaluate, time_interleaved and baseline requests
// (docs/worker-protocol.md, "evaluate"): how many launches, cold or hot, the adaptive stop, and the
// per-case medians above which a clearly slower candidate stops early. One type for the engine
// that sends it, the worker that obeys it and the replay files that record it.

#include "harness/core/defaults.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::protocol
{

enum class timing_mode
{
    cold,  ///< L2 scrubbed before each measured launch (the default).
    hot,   ///< Back-to-back launches.
};

std::string_view to_string(timing_mode m);
/// "cold" or "hot"; nullopt for anything else.
std::optional<timing_mode> timing_mode_from(std::string_view s);

/// Why a case's measured launches stopped where they did.
enum class timing_stop
{
    fixed,      ///< target_rel_noise 0: every launch up to iterations.
    quiet,      ///< The median's confidence interval reached the target.
    ceiling,    ///< iterations reached without the target: a noisy kernel, flagged.
    dominated,  ///< Clearly slower than the best candidate on this case.
};

std::string_view to_string(timing_stop s);
std::optional<timing_stop> timing_stop_from(std::string_view s);

inline constexpr int max_timing_launches = 100'000;

struct timing_options
{
    int warmup = default_warmup_launches;
    int iterations = default_timed_launches;  ///< The most measured launches per case.
    timing_mode mode = timing_mode::cold;
    /// > 0: stop after a segment once the median's 95% interval is this narrow; 0: every launch.
    double target_rel_noise = default_target_rel_noise;
    /// Per performance case: stop after a segment whose median is above this (the engine sends the
    /// best candidate's median x 1.5). Empty: no such stop.
    std::map<std::string, double> dominated_above_us;

    boost::json::object to_json() const;
    /// Every field optional (defaults above). Throws format_error with messages such as
    /// "'timing.mode' must be \"cold\" or \"hot\"" (callers prefix the request or file).
    static timing_options from_json(const boost::json::value& v);

    friend bool operator==(const timing_options&, const timing_options&) = default;
};

}  // namespace warpsmith::protocol
