#pragma once

// The profiles a run left in its profiles/ folder (optimize --use-nsight, tune --use-nsight;
// docs/nsight.md): one document per profile, profiles/<candidate>-<case>.json, beside its
// .ncu-rep when it succeeded. Reports link them and show their figures; tune prints the winner's.

#include "engine/profile/profile_summary.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::report
{

struct listed_profile
{
    std::string candidate;  ///< "c0007" (the document's name less "-<case>.json").
    std::string case_name;
    bool ok = false;
    std::string error_kind;  ///< When not ok: "invalid", "timeout", ...
    std::string message;
    std::optional<profile_summary> summary;  ///< When ok.
    double wall_ms = 0;
    std::string document;               ///< "profiles/c0007-4096x4096x4096.json", relative to the run.
    std::optional<std::string> report;  ///< "profiles/c0007-4096x4096x4096.ncu-rep" when the file is there.
};

/// Every readable profile document under RUN_DIR/profiles, ordered by candidate, then case. A
/// document that is not one (or names another case than its file) is skipped with a warning.
std::vector<listed_profile> list_run_profiles(const std::filesystem::path& run_dir);

/// The first successful profile of `candidate` in `profiles`; null when there is none.
const listed_profile* find_profile(const std::vector<listed_profile>& profiles, const std::string& candidate);

}  // namespace warpsmith::report
