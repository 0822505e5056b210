#pragma once

// Validation of a candidate on one case (SPEC §3 "Validate", docs/worker-protocol.md "Validation
// order"): each run copies the pristine inputs into the working buffers, poisons the outputs,
// rewrites the guards, scrubs shared memory, launches, waits under the watchdog, and then queues
// every check on the GPU: guards, inputs unchanged, every output against the reference (or against
// a previous run). One copy brings the counters back; only on failure do extra searches find the
// first mismatching indices and the worst element, so a passing run costs one round trip.

#include "harness/protocol/evaluation_result.hpp"
#include "harness/worker/case_store.hpp"
#include "harness/worker/comparator_kernels.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/worker/kernel_launch.hpp"
#include "harness/worker/launch_hygiene.hpp"
#include "harness/worker/validation_report.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::worker
{

/// Where the outputs to check are, and what they are compared against.
enum class output_source
{
    working,   ///< The working buffers (right after the launch).
    snapshot,  ///< The snapshot buffers (a copy taken right after the launch).
    /// Only the counters of the launch remain (a sampled timed launch whose outputs later launches
    /// overwrote): the report has counts and the largest error, no element listing.
    unavailable,
};

enum class expected_source
{
    reference_stated,
    reference_hidden,
    snapshot,  ///< A previous run's output (repeat agreement).
};

class validator
{
public:
    validator(gpu_device& device, const helper_kernels& helpers, case_store& store);

    /// One full validation run. `scrub_seed` varies the garbage left in shared memory so that reads
    /// of uninitialised shared memory differ between runs. Hangs throw kernel_hang; sticky errors
    /// throw cuda_error; everything else is in the report.
    run_report run(
        case_data& c, loaded_kernel& k, const launch_dims& d, run_kind kind, std::uint32_t scrub_seed);

    /// Queues guard, input and output checks of the current buffers into a check slot. With
    /// check_memory false only outputs are compared.
    void enqueue_checks(
        case_data& c, int slot, output_source got, expected_source expected, bool check_memory);
    /// After the stream was waited on and the slot fetched: turns counters into a report, and on
    /// failure searches the first mismatching indices. `context` names the run in messages
    /// ("stated inputs", "timed launch 57 of 100").
    run_report finish_checks(case_data& c,
                             int slot,
                             output_source got,
                             expected_source expected,
                             run_kind kind,
                             const std::string& context);

    /// Copies the working outputs into the snapshot buffers (asynchronous).
    void snapshot_outputs(case_data& c) const;

    /// With hygiene set, every validation run also wipes the candidate's local-memory window
    /// before its launch (module globals are restored either way): launch_hygiene.hpp.
    void set_hygiene(const launch_hygiene* hygiene) { hygiene_ = hygiene; }

    /// Under a profiler (`warpsmith profile`, docs/nsight.md): the launch of the candidate in the
    /// run of this kind is wrapped in cuProfilerStart/cuProfilerStop, and nothing else the worker
    /// launches is (Nsight Compute runs with --profile-from-start off). The repeat run is the one
    /// profiled: it runs on the stated inputs that already validated, and its output is checked
    /// against the reference and against the stated run's output like any repeat run.
    void set_profiled_run(std::optional<run_kind> kind) { profiled_run_ = kind; }

private:
    CUdeviceptr got_ptr(const buffer_slot& b, output_source got) const;
    CUdeviceptr expected_ptr(const buffer_slot& b, expected_source expected) const;
    std::vector<element_mismatch> first_bad(const buffer_slot& b,
                                            CUdeviceptr got,
                                            CUdeviceptr expected,
                                            const reference_mask& mask,
                                            std::size_t limit) const;
    /// One element from the device; `mask` unmasks a reference element (default: plain memory).
    element_value read_element(const buffer_slot& b,
                               CUdeviceptr base,
                               std::uint64_t index,
                               const reference_mask& mask = {}) const;
    reference_mask mask_for(expected_source expected) const;

    gpu_device& device_;
    const helper_kernels& helpers_;
    case_store& store_;
    cuda::event start_;
    cuda::event stop_;
    const launch_hygiene* hygiene_ = nullptr;
    std::optional<run_kind> profiled_run_;
};

}  // namespace warpsmith::worker
