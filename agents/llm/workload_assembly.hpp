#pragma once

// The workload of a new optimize run, assembled from what the user gave (docs/cli.md, "optimize";
// SPEC §2): a workload directory, or its parts — a signature file (or a partial workload.json),
// input cases, a reference kernel, an initial kernel with its optional <stem>.json sidecar (entry,
// launch plan) — and a description. Whatever is still missing is asked of a model through an
// inference function (agents/llm/inference.hpp; engine/search/workload_inference.hpp runs it on
// the engine's machines) when a model provider is in use; otherwise a missing part is a
// user_error naming the flag that gives it.

#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace warpsmith::llm
{

/// Where the workload's parts come from; an empty path is a part not given.
struct workload_sources
{
    std::string workload;        ///< A workload directory or workload.json: everything (--workload).
    std::string signature;       ///< A signature file, or a partial workload.json (--signature).
    std::string input_cases;     ///< A JSON array of cases or {"cases": [...]} (--input-cases).
    std::string reference;       ///< The reference kernel's source (--reference).
    std::string initial_kernel;  ///< The initial kernel's source (--initial-kernel).
    std::string description;     ///< What the kernel computes (--description).
    /// A model provider is in use: missing parts of a workload without `workload` may be inferred
    /// from the description.
    bool model_provider = false;
    /// Which files the file names inside `signature` (a partial workload.json: reference, initial,
    /// tunable, file inputs) and `input_cases` (file inputs) may reach, each from its own file's
    /// directory: by default only files inside it, since such a file may come from someone else
    /// (docs/workload-format.md, "File names"). file_scope::self_contained is for a run's own workload/
    /// files, which name input files by absolute path (with their sha256) and are read as --resume
    /// reads them.
    file_scope signature_scope = file_scope::workload_dir;
    file_scope input_cases_scope = file_scope::workload_dir;
};

/// Asks a model for the missing parts of `given` (a partial workload JSON whose relative paths
/// resolve in dir) and returns the whole workload JSON.
using infer_parts_function =
    std::function<boost::json::object(boost::json::object given, const std::filesystem::path& dir)>;

struct assembled_workload
{
    workload work;
    /// The reference source as given with `reference` (the run keeps it as given).
    std::optional<std::string> supplied_reference;
};

/// The workload from its sources; `infer` is called only with a description, a model provider
/// and no `workload`, when parts (or the launch plan) are missing. Throws user_error when the
/// sources cannot make a workload.
assembled_workload assemble_workload(const workload_sources& sources, const infer_parts_function& infer);

}  // namespace warpsmith::llm
