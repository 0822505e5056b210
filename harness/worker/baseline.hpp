#pragma once

// The `baseline` op (docs/worker-protocol.md; SPEC §6 "Baselines"): a vendor library computes what
// the workload's reference computes, on the case inputs already resident in the worker, and is
// measured by the same code as candidates. Its output on the stated inputs is checked against the
// reference like a candidate's stated run (the maximum errors are reported; missing the tolerance is
// reported, never an error, because cuBLAS in TF32 is expected to miss an FP32 tolerance), and
// timer::time_case times every selected performance case: warm-up, per-launch events, L2 scrubs in
// cold mode, checked timed launches, the wall-clock cross-check, the same statistics.
//
// Kinds: cublas_sgemm, row-major float32 C = A * B through cuBLAS (harness/cuda/cublas.hpp) with
// math fp32 or tf32. Which buffers are A, B and C and the sizes m, n, k come from the workload's
// "baselines" declaration (docs/workload-format.md).

#include "harness/cuda/cublas.hpp"
#include "harness/worker/gpu_session.hpp"
#include "harness/worker/timer.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace warpsmith::worker
{

struct baseline_request
{
    std::string kind;  ///< "cublas_sgemm".
    cuda::gemm_math math = cuda::gemm_math::fp32;
    std::optional<std::string> name;  ///< The declared baseline; default: the first of `kind`.
    std::vector<std::string> cases;   ///< Empty: every case (the performance ones are timed).
    timing_options timing;
};

/// Reads a baseline request. Malformed fields are bad_request; a kind this worker does not know is
/// request_error(no_baseline), so an engine newer than its worker degrades to "no baseline".
baseline_request parse_baseline_request(const boost::json::object& request);

/// The workload's declaration the request selects; request_error(no_baseline) when the workload
/// declares no baseline of that kind (or name).
const baseline_spec& select_baseline(const workload& w, const baseline_request& r);

/// The op: {"baseline": {...}}. Throws request_error (bad_request, no_workload, no_baseline when
/// cuBLAS cannot be loaded), and lets a sticky CUDA error or a hang propagate, which the request
/// loop answers with "worker_restart".
boost::json::object run_baseline(gpu_session& session, const boost::json::object& request);

}  // namespace warpsmith::worker
