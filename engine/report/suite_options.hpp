#pragma once

// What a strategy suite's "options" may say (docs/bench-strategies.md, "What a suite may set";
// docs/hardening.md, "Files and names from others"). A suite file is something people share and
// download, and its options become flags of `warpsmith optimize` / `warpsmith tune` runs with the
// user's API key at hand; so a suite sets only flags that change how a search runs, is timed and
// asks its model (an allow-list), never one that runs a program, reads or writes a file it names,
// sends the key to a server it names, or picks the credential. The refused flags can still be
// given to every run on the command line (`bench-strategies --run-arg`).

#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::report
{

/// True for the flags the suite itself sets for every run (seed, budget flags, results, workload,
/// provider, strategy, ...): options may not repeat them.
bool is_set_by_the_suite(std::string_view flag);

/// Why a suite may not give its runs `--flag value` (value absent for a bare flag), or nullopt
/// when it may: "runs a program ...", "reads or writes a file the suite names", "sends the API key
/// to a server the suite names ...", "chooses the credential ...", "is not a search, timing or
/// model option". A flag set by the suite itself is not judged here (is_set_by_the_suite).
std::optional<std::string> why_a_suite_may_not_set(std::string_view flag,
                                                   const std::optional<std::string>& value);

/// True for the allowed flags whose value is a path (scripted candidates, a replayed run): a
/// relative one resolves against the suite file's directory.
bool is_path_option(std::string_view flag);

}  // namespace warpsmith::report
