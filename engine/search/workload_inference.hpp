#pragma once

// Workload inference from --description on the engine's machines (SPEC §2, §5 "Inference";
// docs/agents.md): claims the run directory first (so the model's exchanges are kept in its llm/
// whatever happens), asks the model for the missing parts of the workload (llm::infer_workload,
// agents/llm/inference.hpp), checks them on a compile pool and one GPU worker before the search,
// and writes workload/inference.json. The optimize command calls it from the workload assembly
// (agents/llm/workload_assembly.hpp) when parts are missing.

#include "agents/strategies/llm_setup.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/search/budget.hpp"
#include "engine/search/executor_backend.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace warpsmith
{

struct workload_inference_options
{
    std::string description;  ///< What the kernel computes (--description).
    llm_options model;        ///< The model provider's settings (make_model_client).
    /// Worker launch, compile pool and GPU executor settings; the reference is checked on the
    /// first of `devices`.
    executor_backend_options backend;
    std::filesystem::path results;  ///< Where the run directory is claimed (--results).
    budget_limits limits;           ///< Its token and cost limits also bound the inference.
    std::uint64_t hidden_seed = 0;  ///< The hidden inputs' seed the reference is loaded with.
};

struct inferred_workload
{
    boost::json::object workload_json;  ///< The whole workload JSON, given parts unchanged.
    run_directory run;                  ///< The run claimed for it (its llm/ holds the exchanges).
};

/// Infers the missing parts of `given` (a partial workload JSON whose relative paths resolve in
/// dir). A missing API key fails before the run directory is claimed. Throws user_error when the
/// model's answer does not pass the checks in the allowed attempts, or a limit is reached.
inferred_workload infer_workload_parts(const workload_inference_options& options,
                                       boost::json::object given,
                                       const std::filesystem::path& dir);

}  // namespace warpsmith
