#pragma once

// The summary of one profiled launch that warpsmith prints, saves (profiles/cNNNN-CASE.json) and
// gives the model: speed of light, the memory hierarchy, occupancy and what limits it, registers,
// spills, the top warp stalls and ncu's own rule hints (docs/nsight.md). Built from ncu's raw
// metric names; a metric the chosen sections did not collect stays empty.

#include "engine/profile/ncu_report.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct warp_stall
{
    std::string reason;  ///< ncu's stall name: "long_scoreboard", "mio_throttle", ...
    double share = 0;    ///< Fraction of all stall cycles per issued instruction, 0..1.
};

struct profile_hint
{
    std::string rule;                         ///< ncu's rule name.
    std::string type;                         ///< "OPT", "WRN", "INF".
    std::string text;                         ///< ncu's description, first sentences only.
    std::optional<double> estimated_speedup;  ///< Percent, ncu's estimate.
};

struct profile_summary
{
    std::string kernel;  ///< The profiled kernel's name.
    std::string grid;
    std::string block;
    std::string ncu_version;  ///< "2025.3.1.0"; recorded with every profile.

    std::optional<double> duration_us;                ///< gpu__time_duration (under the profiler: no scrub).
    std::optional<double> sol_compute_pct;            ///< sm__throughput, % of peak.
    std::optional<double> sol_memory_pct;             ///< gpu__compute_memory_throughput, % of peak.
    std::optional<double> dram_pct;                   ///< gpu__dram_throughput, % of peak.
    std::optional<double> dram_gbps;                  ///< dram__bytes per second, GB/s.
    std::optional<double> l2_pct;                     ///< lts__throughput, % of peak.
    std::optional<double> l2_hit_pct;                 ///< lts__t_sector_hit_rate.
    std::optional<double> l1_pct;                     ///< l1tex__throughput, % of peak.
    std::optional<double> l1_hit_pct;                 ///< l1tex__t_sector_hit_rate.
    std::optional<double> achieved_occupancy_pct;     ///< sm__warps_active, % of the SM's warps.
    std::optional<double> theoretical_occupancy_pct;  ///< sm__maximum_warps_per_active_cycle_pct.
    /// What caps the blocks per SM: "registers", "shared memory", "warps" (block size) or "blocks"
    /// (the per-SM block limit), with that cap; empty when the occupancy section was not collected.
    std::string occupancy_limiter;
    std::optional<double> blocks_per_sm_limit;
    std::optional<double> registers_per_thread;    ///< launch__registers_per_thread.
    std::optional<double> shared_bytes_per_block;  ///< static + dynamic.
    std::optional<double> waves_per_sm;            ///< launch__waves_per_multiprocessor.
    std::optional<int> spill_stores_bytes;         ///< From the compile (ptxas), not from ncu.
    std::optional<int> spill_loads_bytes;
    std::vector<warp_stall> top_stalls;  ///< Largest first, at most 5.
    std::vector<profile_hint> hints;     ///< OPT and WRN first, at most 5.

    /// From one launch of ncu's report.
    static profile_summary from_kernel(const ncu_kernel& k, std::string ncu_version);

    boost::json::object to_json() const;
    /// Throws std::invalid_argument on a document that is not a summary.
    static profile_summary from_json(const boost::json::object& o);

    /// The compact table `warpsmith profile` prints.
    std::string render_table() const;
    /// A few lines for the model (the profile tool and the round feedback): numbers, the limiter,
    /// the stalls and the hints, without formatting meant for a terminal.
    std::string render_for_model() const;
};

/// The first sentences of ncu's rule text, at most max_chars (cut at a word, with "...").
std::string shorten_hint(const std::string& text, std::size_t max_chars = 240);

}  // namespace warpsmith
