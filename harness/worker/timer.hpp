#pragma once

// Timing a validated candidate on a performance case (SPEC §3 "Time").
//
// Each measured launch is bracketed by its own pair of events on the worker's stream. Cold mode
// scrubs the L2 before each measured launch with a memset over the L2 size, outside the
// events; before every launch (warm-up included) inout buffers are restored and out buffers
// poisoned, also outside the events, so every launch computes the same thing from the same state. Launches
// are queued in chunks sized so that a chunk takes well under launch_timeout_ms at the speed measured during
// validation, and each chunk is waited on under the watchdog; a kernel that starts hanging only when timed is
// still caught.
//
// Adaptive stopping (the default; docs/worker-protocol.md "timing"): measured launches come in
// segments of 20 (timing_segment_launches). After each segment the samples so far decide, all but
// the segment's last launch, which still runs meanwhile so the GPU never waits for the decision
// (its sample counts from the next decision on; the first decision has 19 samples; when the
// launch timeout's chunk ends right before that launch, the decision waits for it): the
// median's 95% confidence interval narrower than target_rel_noise (half-width over the median)
// stops the case ("quiet"); a median above the case's dominated_above_us (1.5x the best
// candidate's, sent by the engine) stops it ("dominated"); otherwise the next segment follows, up
// to `iterations` ("ceiling": the kernel never got quiet, and says so). A stop queues one more
// measured launch, the last, which is checked. target_rel_noise 0 measures every launch up to
// `iterations` ("fixed").
//
// Checked launches: the last measured launch and at least 8 others, at positions drawn from a
// generator seeded by the hidden seed and a per-worker sequence number, are re-validated on the
// GPU against the reference (timed_output_mismatch otherwise). With a fixed count: 8% of the
// launches, at least 8, at most 16, anywhere before the last. Adaptive: 8 in the first segment
// and up to 2 in each later one (at most 16 in all), so the launches a case may end after are
// checked as densely as those it always makes: a kernel that counts launches and skips work only
// after the first segment meets a check in every segment it skips in.
// Before each of them the inputs are restored and the guards rewritten; outputs are poisoned before
// every launch anyway, so a kernel that counts its launches, looks at its outputs, or detects timing
// by any other means cannot tell which launches are checked (docs/hardening.md). Each check has its
// own slot and runs behind its launch on the stream: no synchronisation, no copy. Only the last
// launch's outputs stay in place, so a failing earlier launch is reported by its counters.
//
// State wipes: before every measured launch (checked or not) and every wall-clock launch, the
// work's reset (a candidate's module globals and local window, launch_hygiene.hpp) and the SM
// scrub (shared memory; in cold mode together with the L2 scrub) run outside the events.
//
// A host wall-clock cross-check follows: a few launches each followed by cuCtxSynchronize (which
// also waits for work the kernel may have pushed elsewhere in the context). When the median wall
// time per launch exceeds 1.5 x the event median + 50 us, the events cannot account for the work
// and the candidate fails with timing_inconsistent -- but only after a second cross-check also
// fails: contention from another process on the GPU (a wall time that is off once) must not
// invalidate an honest kernel. Both measurements are reported.

#include "harness/core/defaults.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/protocol/evaluation_result.hpp"
#include "harness/protocol/timing_options.hpp"
#include "harness/timing/timing_stats.hpp"
#include "harness/worker/case_store.hpp"
#include "harness/worker/launch_hygiene.hpp"
#include "harness/worker/validator.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace warpsmith::worker
{

using protocol::timing_mode;
using protocol::timing_options;
using protocol::timing_stop;

/// Event pairs reused across evaluations (creating events costs more than recording them).
class event_pool
{
public:
    /// Makes sure at least n pairs exist.
    void reserve(std::size_t n);
    const cuda::event& start(std::size_t i) const { return pairs_.at(i).first; }
    const cuda::event& stop(std::size_t i) const { return pairs_.at(i).second; }
    /// Microseconds between the events of pair i (both completed).
    double elapsed_us(std::size_t i) const;

private:
    std::vector<std::pair<cuda::event, cuda::event>> pairs_;
};

/// The cold-mode L2 scrub: a memset over a buffer of the L2's size (as nvbench does: writing that
/// many fresh bytes evicts the previous launch's lines), allocated on first use. Measured on the
/// H200: ~17 us per scrub for 60 MiB, outside the events.
class l2_scrubber
{
public:
    explicit l2_scrubber(std::size_t l2_bytes) : l2_bytes_(l2_bytes) {}
    /// With hygiene set, each scrub is one launch that also fills every SM's shared memory
    /// (launch_hygiene::scrub_sm) instead of a memset.
    void set_hygiene(const launch_hygiene* hygiene) { hygiene_ = hygiene; }
    /// Queues the scrub on s.
    void scrub(CUstream s);
    /// Queues a shared-memory-only scrub (hot mode; nothing without hygiene).
    void scrub_shared(CUstream s);
    /// Device time of one scrub in ms (measured once, on first use).
    double scrub_ms(CUstream s, std::chrono::milliseconds timeout);
    std::size_t device_bytes() const { return buffer_.size(); }

private:
    void allocate();

    std::size_t l2_bytes_;
    const launch_hygiene* hygiene_ = nullptr;
    cuda::device_buffer buffer_;
    std::optional<double> scrub_ms_;
    std::uint32_t counter_ = 0;
};

/// How many launches to queue before waiting: enough to keep the GPU busy, few enough that one
/// chunk needs at most a quarter of the launch timeout at the estimated time per launch.
int chunk_size(double per_launch_ms, std::chrono::milliseconds timeout);

/// Launches of a segment left running while the adaptive decision after it is made.
inline constexpr std::size_t decision_in_flight_launches = 1;

/// The samples the first adaptive decision has (a segment but the launches left running): the
/// floor the timer passes to noise_below, so that the first decision can stop the case.
inline constexpr std::size_t first_decision_samples =
    static_cast<std::size_t>(timing_segment_launches) - decision_in_flight_launches;

/// Warm-up launches for a case whose fastest validation run took typical_ms: enough to reach
/// warmup_budget_ms (defaults.hpp; the last one may pass it), at least one and at most `most`;
/// `most` when typical_ms is unknown (0 or less), none when `most` is 0 or less.
int warmup_launches(int most, double typical_ms);

struct case_timing
{
    timing_stats stats;
    int warmup = 0;  ///< Warm-up launches made (warmup_launches of the requested count).
    timing_mode mode = timing_mode::cold;
    double wall_us_per_launch = 0;
    double wall_us_first = 0;  ///< The first cross-check when it failed and was re-measured.
    bool suspect = false;
    int checked_launches = 0;  ///< Measured launches whose outputs were re-validated.
    timing_stop stopped = timing_stop::fixed;
    double target_rel_noise = 0;  ///< The target it was timed with (0: fixed).
    /// Achieved noise: half the median's 95% confidence interval over the median.
    double rel_noise = 0;
    bool timed_output_valid = true;
    std::vector<run_report> timed_runs;  ///< The re-validated timed launches.
    std::optional<failure> fail;         ///< timed_output_mismatch, timing_inconsistent, launch_failed.
    double gpu_ms = 0;                   ///< Sum of the measured launches' event times.
    int untimed_launches = 0;            ///< Warm-up and wall-check launches (no events).
    int l2_scrubs = 0;                   ///< Cold-mode scrubs queued for this case.
    double l2_scrub_ms = 0;              ///< Their device time (l2_scrubber::scrub_ms each).
    /// Host time of the timing's parts, for the evaluation's phases_ms: the warm-up launches, the
    /// measured launches (until the last one's segment is done), the checks' fetch and judgement,
    /// and the wall-clock cross-checks.
    double warmup_ms = 0;
    double measure_ms = 0;
    double checks_ms = 0;
    double wall_check_ms = 0;

    /// The protocol's "timing" of the case.
    protocol::timing_report to_report() const;
};

/// Queues one launch of the timed work on the stream. Returns CUDA_SUCCESS or a non-sticky launch
/// error as a value (as launch_kernel does); sticky errors and library failures throw.
using launch_fn = std::function<CUresult(CUstream)>;

/// What time_case measures.
struct timed_work
{
    launch_fn launch;
    /// Candidates: a checked timed launch whose output misses the tolerance fails the case
    /// (timed_output_mismatch). Vendor baselines report it instead (timed_runs,
    /// timed_output_valid): cuBLAS in TF32 is expected to miss an FP32 tolerance. A guard or input
    /// violation fails either way.
    bool output_must_pass = true;
    /// Queued before every measured launch, outside the events: wipes state the work may keep
    /// between launches (a candidate's module globals and local window). Empty for vendor calls.
    std::function<void(CUstream)> reset;
};

/// Which of n measured launches are checked: `count` distinct positions in [0, horizon - 1) drawn
/// with rng, plus n - 1 (the last). count is clamped to what the horizon allows; sorted.
std::vector<std::size_t> checked_positions(std::size_t n,
                                           std::size_t horizon,
                                           std::size_t count,
                                           std::mt19937_64& rng);

/// How many launches besides the last are checked for n measured launches: 8% of n, at least 8,
/// at most 16.
std::size_t sampled_checks(std::size_t n);

/// The checked positions of an adaptive timing with at most n launches in segments of `segment`:
/// 8 in the first segment, the other 8 spread over the later segments (at most 2 each, which
/// segments get the remainder drawn with rng), each position drawn within its segment, never n - 1;
/// plus n - 1. Sorted.
std::vector<std::size_t> segmented_checked_positions(std::size_t n,
                                                     std::size_t segment,
                                                     std::mt19937_64& rng);

class timer
{
public:
    timer(gpu_device& device,
          const helper_kernels& helpers,
          case_store& store,
          validator& v,
          event_pool& events,
          l2_scrubber& scrubber,
          const launch_hygiene* hygiene = nullptr);

    /// Times one performance case. kernel_ms bounds one launch from above (the slowest validation
    /// run), to size chunks; typical_ms is the fastest validation run, to size the warm-up
    /// (warmup_launches; 0: the whole options.warmup).
    case_timing time_case(case_data& c,
                          loaded_kernel& k,
                          const launch_dims& d,
                          const timing_options& options,
                          double kernel_ms,
                          double typical_ms = 0);
    /// The same for any work on the case's buffers (a cuBLAS call).
    case_timing time_case(case_data& c,
                          const timed_work& work,
                          const timing_options& options,
                          double kernel_ms,
                          double typical_ms = 0);

    /// Queues one launch; a measured one after fresh outputs, the work's reset and the SM scrub
    /// (with the L2 scrub in cold mode), a warm-up one (measured false) as it is. Returns the
    /// launch result.
    CUresult queue_launch(case_data& c,
                          const timed_work& work,
                          timing_mode mode,
                          bool measured,
                          std::optional<std::size_t> event_pair);
    /// The host wall-clock cross-check: median wall time of a few launches, each synchronised with
    /// the whole context (cuCtxSynchronize), with the same state wipes as measured launches.
    double wall_check(case_data& c, const timed_work& work, timing_mode mode);
    /// The cross-check limit for an event median: 1.5 x median + 50 us.
    static double wall_limit_us(double event_median_us);
    /// A candidate's timed work: its launch, and as reset its module globals and local window.
    timed_work candidate_work(case_data& c, loaded_kernel& k, const launch_dims& d);

private:
    /// What every measured and wall-clock launch gets first (queue_launch says why, in this order):
    /// fresh outputs, the work's reset, the SM scrub (with the L2 scrub in cold mode).
    void prepare_measured_launch(case_data& c, const timed_work& work, timing_mode mode);

    gpu_device& device_;
    const helper_kernels& helpers_;
    case_store& store_;
    validator& validator_;
    event_pool& events_;
    l2_scrubber& scrubber_;
    const launch_hygiene* hygiene_;
    std::mt19937_64 rng_;
};

}  // namespace warpsmith::worker
