#pragma once

// `warpsmith tune --offline` (docs/autotune.md "Offline replay"): a strategy replayed against the
// evaluation cache alone, without a GPU. Points the cache holds are told their measured score; a
// point it does not hold may have been pruned after compile online, so the replay compiles it
// (NVRTC needs no GPU) and judges it as the tune did; any other is told +inf like a failed point.
// The result has the curve and the best point as JSON, and the text table with the per-case block
// of a GPU run (baseline_report.hpp) from the cache and the context the tune wrote beside it.

#include "agents/autotune/autotune_strategy.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace warpsmith::report
{

struct offline_tune_options
{
    std::filesystem::path workload;  ///< The workload directory or workload.json.
    std::filesystem::path
        cache_dir;  ///< The evaluation cache's directory (one device's cache of the workload).
    /// The timing options the cache was measured with: they are part of its key.
    boost::json::object timing;
    autotune_options tune;              ///< The strategy, its seed and settings.
    std::optional<std::size_t> budget;  ///< Evaluations; none: until the space is exhausted.
    std::size_t batch = 1;              ///< Points asked at once (--branches).
    bool compile_prune = true;          ///< Compile points the cache lacks and judge them (see above).
    std::string roofline;  ///< A roofline.json; "": the workload's own (roofline_spec::load_for).
};

struct offline_tune_result
{
    boost::json::object record;  ///< The curve, counts, best point and summary (tune --json-progress).
    std::string text;            ///< The table for a terminal.
};

/// Throws user_error when the directory holds no cache of the workload, caches of several devices,
/// or a cache written for another version of the workload.
offline_tune_result run_offline_tune(const offline_tune_options& o);

}  // namespace warpsmith::report
