#pragma once

// Turning a candidate from a request into something launchable: either its cubin ("cubin_b64",
// compiled by the engine's compile pool) or its source (compiled here, as `warpsmith run` does),
// then the module load and the entry lookup. A kernel that does not compile or lacks its entry is
// a failure value (compile_error / entry_not_found), not an error.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/worker/kernel_launch.hpp"
#include "harness/worker/validator.hpp"
#include "harness/workload/candidate.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace warpsmith::worker
{

struct prepared_candidate
{
    candidate cand;
    std::optional<loaded_kernel> kernel;  ///< Set when launchable.
    std::optional<failure> fail;          ///< compile_error / entry_not_found / bad_launch otherwise.
    bool compiled_here = false;
    bool cache_hit = false;
    double compile_ms = 0;  ///< NVRTC or cache lookup (0 for a cubin).
    double load_ms = 0;     ///< base64 decode + cuModuleLoadData + entry lookup.
};

/// Parses the candidate object (where names it in bad_request messages, e.g. "evaluate:
/// 'candidate'"), compiles it when it carries source instead of a cubin, and loads it; a kernel
/// whose parameters differ from sig (parameter_mismatch) is a bad_launch failure, never launched.
/// Malformed JSON throws request_error(bad_request).
prepared_candidate prepare_candidate(const boost::json::value& candidate_json,
                                     const std::string& where,
                                     const nvrtc_compiler& compiler,
                                     const std::string& arch,
                                     const signature& sig);

}  // namespace warpsmith::worker
