#pragma once

// report.html's "Nsight Compute profiles" section (docs/reports.md, docs/nsight.md): one row per
// profile in the run's profiles/ folder with its main figures and links to its .ncu-rep and JSON
// summary, and the anchor the candidates table links to.

#include "engine/report/profile_listing.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpsmith::report
{

/// "profile-c0007": the anchor of a candidate's first profile row.
std::string profile_anchor(const std::string& candidate);

/// The whole <section id="profiles">; empty when the run has no profiles.
std::string render_profiles_section(const std::vector<listed_profile>& profiles,
                                    const std::optional<std::string>& best_id);

}  // namespace warpsmith::report
