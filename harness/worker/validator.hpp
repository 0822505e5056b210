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

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::worker
{

/// Stable failure kinds (docs/worker-protocol.md); the engine and tests key on these strings.
namespace failure_kind
{
inline constexpr const char* compile_error = "compile_error";
inline constexpr const char* entry_not_found = "entry_not_found";
inline constexpr const char* bad_launch = "bad_launch";
inline constexpr const char* launch_failed = "launch_failed";
inline constexpr const char* unwritten = "unwritten";
inline constexpr const char* mismatch = "mismatch";
inline constexpr const char* nonfinite = "nonfinite";
inline constexpr const char* out_of_bounds_write = "out_of_bounds_write";
inline constexpr const char* input_mutated = "input_mutated";
inline constexpr const char* nondeterministic = "nondeterministic";
inline constexpr const char* timed_output_mismatch = "timed_output_mismatch";
inline constexpr const char* timing_inconsistent = "timing_inconsistent";
inline constexpr const char* fault = "fault";
inline constexpr const char* hang = "hang";
}  // namespace failure_kind

using failure = protocol::failure_report;

enum class run_kind
{
    stated,  ///< Stated inputs, fresh poison.
    hidden,  ///< Hidden-seed inputs.
    repeat,  ///< Stated inputs again; must also agree with the stated run.
    timed,   ///< A timed launch, re-validated.
};

std::string_view to_string(run_kind k);

/// One element as read back from the device.
struct element_value
{
    dtype type = dtype::float32;
    std::uint64_t bits = 0;

    bool is_poison() const;
    /// The number; "unwritten" for the poison pattern, "NaN" / "Inf" / "-Inf" for non-finite
    /// floats (JSON has no such numbers).
    protocol::element_reading to_reading() const;
    /// "0.51", "NaN", "unwritten".
    std::string to_text() const;
};

struct element_mismatch
{
    std::string buffer;
    std::uint64_t index = 0;
    element_value got;
    element_value expected;
};

/// The element listing of a failure message: "[17] got 1.5 expected 0.5, [40] got ..." ("second
/// run" / "first run" with against_previous). For the hidden inputs only the indices, "[17], [40]":
/// the hidden run says where and how much, never the values (SPEC §3 "Trust rules"); run_report's
/// JSON likewise writes "hidden" for them.
std::string list_elements(const std::vector<element_mismatch>& list, run_kind kind, bool against_previous);

/// The outcome of one validation run (one entry of "runs").
struct run_report
{
    run_kind kind = run_kind::stated;
    bool passed = true;
    std::uint64_t elements = 0;  ///< Output elements compared (all outputs).
    std::uint64_t mismatches = 0;
    std::uint64_t unwritten = 0;
    std::uint64_t nonfinite = 0;
    double max_abs_error = 0;
    double max_rel_error = 0;
    std::vector<element_mismatch> first_mismatches;
    bool guards_intact = true;
    bool inputs_intact = true;
    bool agrees_with_first = true;  ///< repeat runs only.
    float kernel_ms = 0;            ///< Event time of the launch (validation runs).
    std::optional<failure> fail;

    /// The protocol's entry of "runs" (values of hidden runs written as "hidden").
    protocol::validation_run to_protocol() const;
};

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
