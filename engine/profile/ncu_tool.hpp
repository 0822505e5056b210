#pragma once

// Nsight Compute's command line (`ncu`) as warpsmith uses it: where it is, which version, the
// argv that profiles exactly the candidate's launch, the argv that exports a report as CSV, and
// what its log says when it could not profile (docs/nsight.md).

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// The sections a profile collects by default: enough for the summary (profile_summary.hpp).
const std::vector<std::string>& default_ncu_sections();

/// Finds ncu: `explicit_path` (--ncu) when given (it must be an executable file), else "ncu" on
/// PATH, $CUDA_HOME/bin/ncu, /usr/local/cuda/bin/ncu. Every place tried is appended to *looked.
std::optional<std::filesystem::path> find_ncu(const std::optional<std::string>& explicit_path,
                                              std::vector<std::string>* looked);

/// The one line for a missing ncu: where it looked, and that --ncu PATH sets it.
std::string ncu_missing_message(const std::vector<std::string>& looked);

/// "2025.3.1.0" from `ncu --version` output ("Version 2025.3.1.0 (build ...)"); empty when absent.
std::string parse_ncu_version(std::string_view version_output);

/// ncu's argv that runs `app` and profiles only what it launches between cuProfilerStart and
/// cuProfilerStop (the worker brackets the candidate's profiled launch with them), writing
/// `report_base`.ncu-rep and its own messages to `log_file` (never to stdout, which carries the
/// worker protocol). Clocks are left as they are (--clock-control none): warpsmith never changes
/// a GPU's settings.
std::vector<std::string> ncu_profile_argv(const std::filesystem::path& ncu,
                                          const std::vector<std::string>& sections,
                                          const std::filesystem::path& log_file,
                                          const std::filesystem::path& report_base,
                                          const std::vector<std::string>& app);

/// ncu's argv that prints a report page ("raw" or "details") as CSV on stdout.
std::vector<std::string> ncu_import_argv(const std::filesystem::path& ncu,
                                         const std::filesystem::path& report,
                                         std::string_view page);

/// When ncu's log says that performance counters are not permitted (ERR_NVGPUCTRPERM): the one
/// line that says what to change. Otherwise nullopt.
std::optional<std::string> ncu_permission_problem(std::string_view log);

/// The last line of ncu's log that reports an error ("==ERROR== ..."), without the prefix; empty
/// when there is none.
std::string ncu_last_error(std::string_view log);

}  // namespace warpsmith
