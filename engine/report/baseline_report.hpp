#pragma once

// How far the best kernel of a run is from the vendor library and from the physical limit (SPEC §6),
// for the final tables of `warpsmith optimize` and `warpsmith tune`: the roofline section of
// summary.json, computed with the ceilings the backend measured at start, and the per-case block of
// the tables with the cuBLAS columns (summary "baselines", written by the search engine) and the
// roofline percentage (tune adds the reference and initial kernel's columns). Pure functions of
// the summary, apart from reading a workload's roofline.json.

#include "agents/autotune/roofline.hpp"
#include "engine/run/run_directory.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>

namespace warpsmith
{

/// The best kernel's per-case medians in a summary: its confirmation timings when it has them.
std::map<std::string, double> best_case_medians(const boost::json::object& summary);

/// Keeps a roofline.json that sits next to the workload with the run (workload/roofline.json), so a
/// resumed run still has it; nothing when the workload states its roofline itself or has none.
/// A malformed roofline.json is a user_error (before the run starts).
void keep_roofline_sidecar(const workload& w, const run_directory& run);

/// summary.json "roofline" for the best kernel (agents/autotune/roofline.hpp) with the ceilings of
/// `device`, or null without a spec. Never throws: a roofline that does not evaluate is logged and
/// left out. cold_timing: whether the run timed cold (the default), which the cold copy column needs.
boost::json::value best_roofline(const std::optional<autotune::roofline_spec>& spec,
                                 const workload& w,
                                 const boost::json::object& device,
                                 const boost::json::object& summary,
                                 bool cold_timing = true);
/// The same with the workload's own roofline (workload.json "roofline", else roofline.json next to
/// it; roofline_spec::load_for).
boost::json::value best_roofline(const workload& w,
                                 const boost::json::object& device,
                                 const boost::json::object& summary,
                                 bool cold_timing = true);

/// The per-case block of the final table, e.g.
///
///     case          best (us)      cublas  vs cublas  cublas_tf32  vs cublas_tf32           roofline
///     big               94.00       50.00      0.53x        25.00           0.27x        61% compute
///     roofline ceilings (measured): 4917 GB/s, 66.9 FP32 TFLOP/s
///     cublas_tf32: outside the workload's tolerance (max abs error 0.002); timed for reference only
///
/// Memory-bound cases on a device that measured the cold copy curve get two more columns, "cold
/// copy" (us) and "vs copy", after the roofline, and a line saying what they are.
///
/// "vs X" is X's time over the best's (above 1: the best is faster). Empty when the summary has no
/// best kernel, or neither baselines nor a roofline.
///
/// with_reference (tune's table) adds the reference's and the initial kernel's times (GPU 0) and
/// speedups after the best's, a geometric-mean row over the cases, and is printed whenever there
/// is a best kernel:
///
///     case          best (us)    ref (us)   vs ref     initial  vs init      cublas  vs cublas ...
///     big               94.00      200.00    2.13x      160.00    1.70x       50.00      0.53x ...
std::string baseline_case_table(const boost::json::object& summary,
                                const workload& w,
                                bool with_reference = false);

}  // namespace warpsmith
