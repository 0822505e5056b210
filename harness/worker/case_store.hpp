#pragma once

// Everything a loaded workload keeps on the GPU (SPEC §1 "Persistent workers", §3 "Validate" 1-2):
// per case, the pristine inputs for the stated seed and for the hidden seed, one set of guarded
// working buffers (allocated once, reused by every run), the reference outputs for both input sets,
// a snapshot buffer per output (a previous run's output, for the repeat and timed checks), and the
// kernel argument block. The reference is compiled, run once per case per input set, and its
// outputs stay resident, masked with a random per-load key so that a candidate that finds them in
// memory (pointer arithmetic from its own buffers) reads noise. Destroying the store frees all of it
// (a second load_workload does).

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/worker/check_area.hpp"
#include "harness/worker/comparator_kernels.hpp"
#include "harness/worker/device_buffers.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/worker/kernel_launch.hpp"
#include "harness/worker/launch_hygiene.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsmith::worker
{

enum class input_set
{
    stated = 0,  ///< Generated from the case's stated seed (the inputs models may know about).
    hidden = 1,  ///< From splitmix64_mix(hidden_seed ^ fnv1a64(case name)); never shown to models.
};

/// One buffer parameter of one case.
struct buffer_slot
{
    std::size_t param_index = 0;  ///< Index in signature.params.
    const param* p = nullptr;
    std::int64_t count = 0;
    std::size_t bytes = 0;
    guarded_buffer working;
    std::array<cuda::device_buffer, 2> pristine;   ///< in / inout buffers, per input_set.
    std::array<cuda::device_buffer, 2> reference;  ///< out / inout buffers, per input_set.
    cuda::device_buffer snapshot;                  ///< out / inout buffers.

    bool is_input() const { return p->is_input(); }
    bool is_output() const { return p->is_output(); }
    bool is_pure_input() const { return p->is_input() && !p->is_output(); }
};

struct case_data
{
    const workload_case* wc = nullptr;
    std::vector<buffer_slot> buffers;  ///< Buffer parameters in signature order.
    std::unique_ptr<kernel_args> args;
    cuda::device_buffer guard_ranges;  ///< guard_range table for the guard-check kernel.
    int guard_range_count = 0;
    std::uint64_t largest_guard_bytes = 0;
    /// Guard bytes found changed when the guards were about to be refilled (2 counters per
    /// buffer, head and tail, as in the guard table): changes no checked launch saw.
    cuda::device_buffer unchecked_guard_damage;
    boost::json::object summary;  ///< This case's entry of the load_workload response.
    bool has_inout = false;

    const std::string& name() const { return wc->name; }
    bool is_performance() const { return wc->role == case_role::performance; }
};

/// The workload's reference could not be compiled, launched or run (ok:false reference_failed).
class reference_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class case_store
{
public:
    /// Generates, uploads and runs the reference for every case. Throws reference_error (reference
    /// problems), user_error (bad workload data, e.g. an input file that does not match), kernel_hang
    /// and cuda_error (a sticky error means the reference faulted).
    case_store(gpu_device& device,
               const helper_kernels& helpers,
               const nvrtc_compiler& compiler,
               workload w,
               std::uint64_t hidden_seed,
               std::chrono::milliseconds launch_timeout);
    case_store(const case_store&) = delete;
    case_store& operator=(const case_store&) = delete;

    const workload& get_workload() const { return *workload_; }
    std::vector<case_data>& cases() { return cases_; }
    case_data* find(std::string_view name);
    check_area& checks() { return *checks_; }
    /// Check slots: 0 and 1 for validation runs, the rest for checked timed launches.
    static constexpr int check_slots = 2 + 17;
    /// The seed of the hidden inputs; also seeds the choice of the checked timed launches.
    std::uint64_t hidden_seed() const { return hidden_seed_; }
    std::chrono::milliseconds launch_timeout() const { return launch_timeout_; }

    /// Before a run: checks every guard (into the case's unchecked_guard_damage) and rewrites the
    /// bytes it finds changed, in one launch; copies the pristine inputs of `set` into the working in/inout
    /// buffers, and poisons the out buffers (asynchronous). A guard is never refilled unchecked: a launch
    /// that was not checked (a warm-up, an unchecked timed launch, a wall-clock launch) cannot use the guards
    /// as scratch or as a signal and have the harness erase the evidence.
    void prepare(case_data& c, input_set set, CUstream s) const;
    /// Only the guards part of prepare(): before a checked timed launch, whose inputs are the ones
    /// prepare() copied before the warm-up (the check after the launch compares them with the
    /// pristine copy, so a change made by any launch since fails the case).
    void refresh_guards(case_data& c, CUstream s) const;
    /// Before every launch that prepare() does not precede (warm-up, measured and interleaved
    /// launches, the wall-clock check): restores inout buffers and poisons out buffers, so no launch
    /// ever finds the previous launch's results in its outputs. Without it a kernel could compute
    /// only when its output holds poison, which is exactly when the harness checks it, and skip the
    /// work in every other timed launch (docs/hardening.md).
    void refresh_outputs(case_data& c, CUstream s) const;

    /// The keys of the reference masking: the reference outputs of each input set are stored masked
    /// with their own key (comparator_kernels.hpp), so a kernel can neither read them nor copy one
    /// set's reference over the other's (both would then expect the stated outputs).
    const reference_mask& mask(input_set set) const { return masks_[static_cast<std::size_t>(set)]; }

    /// Puts c's working buffers at rest: every guard filled, every payload (inputs too) filled with
    /// its poison pattern (asynchronous). Only for what using the case changes legitimately and
    /// what the checked launches verify while it is used (inputs and guards are restored and checked
    /// on every checked launch): done after its validation runs and after its timing, so any change
    /// a launch makes to a case it is not running on shows in the seal.
    void retire(case_data& c, CUstream s) const;
    /// Waits for the stream (one copy of every case's counts, one wait), then returns where guard
    /// bytes had changed when prepare(), refresh_guards() or retire() refilled them since the last
    /// call ("the guard after buffer 'C' of case X: 12 bytes"), or "" when none did, and zeroes the
    /// counts.
    std::string take_unchecked_guard_damage(CUstream s);
    /// Fills the snapshot buffers of c with a fixed pattern, once its repeat run no longer needs
    /// them: no candidate finds a validated output of its case there, and they stay at rest (and
    /// sealed) until the case is validated again. Never after timing: a memo kept in a snapshot
    /// while the case was timed must still be there for the closing digest.
    void poison_snapshots(case_data& c, CUstream s) const;
    /// retire() and poison_snapshots() for every case: at load, and before an evaluation or a
    /// confirmation takes its first digest.
    void retire_all(CUstream s);

    /// The seal (docs/hardening.md): memory no candidate may change -- pristine inputs, masked
    /// references and guard tables of every case, and every working buffer and snapshot at rest
    /// (guards, payload and the slack after it). seal_digest queues a digest of all of it (payloads
    /// and big regions sampled one word per 512 bytes from `phase`, guards and slack read whole)
    /// into digest slot `which` (0 before, 1 after an evaluation, with every case retired before
    /// each) and its copy to the host; seal_broken, once the stream was waited on, names the first
    /// region whose two digests differ ("" when none).
    void seal_digest(const launch_hygiene& hygiene, CUstream s, std::uint32_t phase, int which) const;
    std::string seal_broken() const;
    int seal_regions() const { return static_cast<int>(seal_labels_.size()); }

    /// The load_workload response fields: cases, device_bytes (load_ms is added by the caller).
    boost::json::object response() const;
    std::size_t device_bytes() const { return device_bytes_; }

private:
    /// Queues the guard check of every guard of c into c.unchecked_guard_damage, which also puts
    /// back the fill byte where it finds another.
    void check_and_refill_guards(case_data& c, CUstream s) const;
    void allocate_case(case_data& c, std::uint64_t hidden_seed);
    void run_reference(case_data& c, loaded_kernel& ref, const candidate& ref_candidate);
    void build_seal();

    gpu_device& device_;
    const helper_kernels& helpers_;
    std::unique_ptr<workload> workload_;  // Stable address: cases point into it.
    std::vector<case_data> cases_;
    std::unique_ptr<check_area> checks_;
    std::chrono::milliseconds launch_timeout_;
    std::size_t device_bytes_ = 0;
    std::array<reference_mask, 2> masks_;
    std::uint64_t hidden_seed_ = 0;
    cuda::device_buffer seal_table_;
    std::vector<std::string> seal_labels_;
    cuda::device_buffer seal_digests_;  ///< 2 x regions words.
    cuda::pinned_buffer seal_host_;
    cuda::pinned_buffer damage_host_;  ///< Every case's unchecked_guard_damage, case after case.
};

}  // namespace warpsmith::worker
