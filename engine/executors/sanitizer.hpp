#pragma once

// Running a candidate under NVIDIA compute-sanitizer (`warpsmith eval --sanitize`, docs/hardening.md):
// finding the tool, the worker command that runs warpsmith-worker under it, and reading its reports.
//
// The worker runs as the sanitizer's target process; the sanitizer writes its reports to a log file
// of its own (--log-file DIR/<tool>-%p.log, one file per process, so a worker restarted after a fault
// gets a new file), never to stdout, which is the worker's protocol channel. The worker gets
// --exact-buffers: each buffer is then its own allocation of exactly its size, so an out-of-bounds
// write leaves every allocation and memcheck reports it (guard zones inside one allocation would
// hide it from memcheck); memcheck also gets --padding 4096, so that a neighbouring allocation
// packed right behind a buffer cannot make a write past its end look valid.
//
// The parser is sans-I/O: parse_sanitizer_log() takes the text of one log; summarize() attributes
// its reports to the candidate (by kernel name, and by position: reports written before the
// candidate's evaluation started belong to the workload's reference or the harness, at load time).

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

enum class sanitizer_tool
{
    memcheck,   ///< Out-of-bounds and misaligned accesses, hardware exceptions.
    racecheck,  ///< Shared-memory data races.
    initcheck,  ///< Reads of uninitialised global memory.
};

std::string_view to_string(sanitizer_tool t);

/// "memcheck,racecheck" -> those tools, in order; "" -> all three. Throws user_error naming an
/// unknown or repeated tool.
std::vector<sanitizer_tool> parse_sanitizer_tools(std::string_view list);

/// Where compute-sanitizer is looked for, in order: each directory of PATH, $CUDA_HOME/bin,
/// $CUDA_HOME/compute-sanitizer, /usr/local/cuda/bin, /usr/local/cuda/compute-sanitizer.
std::vector<std::filesystem::path> sanitizer_search_dirs(const char* path_env, const char* cuda_home);
/// The same from this process's environment.
std::vector<std::filesystem::path> sanitizer_search_dirs();

/// The first executable `compute-sanitizer` in dirs, or nullopt.
std::optional<std::filesystem::path> find_compute_sanitizer(const std::vector<std::filesystem::path>& dirs);

/// One line for the user when the tool is missing (exit code 2).
inline constexpr const char* sanitizer_not_found_message =
    "compute-sanitizer not found (looked in PATH, $CUDA_HOME/bin and /usr/local/cuda/bin); --sanitize needs "
    "the CUDA toolkit's compute-sanitizer";

struct sanitizer_command_options
{
    std::filesystem::path sanitizer;  ///< The compute-sanitizer executable.
    sanitizer_tool tool = sanitizer_tool::memcheck;
    std::filesystem::path log_dir;         ///< Logs go to log_dir/<tool>-<pid>.log.
    std::string worker_binary;             ///< warpsmith-worker.
    std::vector<std::string> worker_args;  ///< Appended after --device {device} --exact-buffers.
    int print_limit = 20;                  ///< Reports printed per process (--print-limit).
};

/// The arguments of compute-sanitizer up to and including the worker's argv, with "{device}" where
/// the device index goes (tests check them one by one).
std::vector<std::string> sanitizer_arguments(const sanitizer_command_options& o);

/// The same as a worker command template (worker_launch::command, run by /bin/sh -c): every
/// argument shell-quoted except "{device}", prefixed with exec so the sanitizer is the child process
/// itself and stopping the worker stops it.
std::string sanitizer_worker_command(const sanitizer_command_options& o);

/// The log file name pattern for a tool ("memcheck-%p.log"), and whether a file name is one of them.
std::string sanitizer_log_pattern(sanitizer_tool t);
bool is_sanitizer_log(sanitizer_tool t, std::string_view file_name);

/// One report of the sanitizer.
struct sanitizer_finding
{
    std::string severity;  ///< "error" or "warning".
    std::string kind;      ///< "Invalid __global__ write of size 4 bytes", "Race reported between
                           ///< Write access and Read access", "Program hit CUDA_ERROR_... on cuX", ...
    std::string kernel;    ///< Kernel name without signature ("sgemm"); empty for host-side reports.
    std::string location;  ///< "kernel.cu:23" when the kernel has line info, else empty.
    std::string thread;    ///< "(0,0,0)" when given.
    std::string block;     ///< "(0,0,0)" when given.
    std::string detail;    ///< The rest of the report in one line ("Address 0x... is out of bounds ...").
    std::vector<std::string> lines;  ///< The report's own lines (backtraces left out), prefix removed.
    std::size_t offset = 0;          ///< Byte offset of the report's first line in its log.

    boost::json::object to_json() const;
};

struct sanitizer_log
{
    std::vector<sanitizer_finding> findings;
    std::optional<std::uint64_t> error_summary;  ///< "ERROR SUMMARY: N errors".
    std::vector<std::string> notes;              ///< Tool messages that are not reports ("Error: ...").
};

/// Parses the text of one compute-sanitizer log (any tool; old "at 0x.. in file:line:kernel" and new
/// "at kernel+0x.. in file:line" formats).
sanitizer_log parse_sanitizer_log(std::string_view text);

/// "void sgemm<4>(float*, int)" -> "sgemm<4>"; "sgemm" -> "sgemm".
std::string kernel_base_name(std::string_view signature);
/// Whether a report's kernel is the candidate's entry (exact, or a template instance "entry<...>").
bool kernel_matches(std::string_view kernel, std::string_view entry);

/// One log as read from disk, with the size it had when the candidate's evaluation started
/// (nullopt: the file appeared later, i.e. a worker restarted during the evaluation).
struct sanitizer_log_file
{
    std::string path;
    std::string text;
    std::optional<std::size_t> size_at_start;
};

/// What one tool found, attributed.
struct sanitizer_summary
{
    sanitizer_tool tool = sanitizer_tool::memcheck;
    bool ran = false;            ///< The worker ran under the tool and evaluated the candidate.
    std::string error;           ///< Why it did not run (one line), when !ran.
    std::uint64_t errors = 0;    ///< Error reports in the candidate's kernel.
    std::uint64_t warnings = 0;  ///< Warning reports in the candidate's kernel.
    std::uint64_t other = 0;     ///< Reports during the evaluation not in its kernel (host API, helpers).
    std::uint64_t at_load = 0;   ///< Reports while the workload loaded (the reference, a restart's reload).
    std::optional<std::uint64_t> reported_total;   ///< Sum of the logs' ERROR SUMMARY lines.
    std::vector<sanitizer_finding> reports;        ///< The candidate's first reports (at most `limit`).
    std::vector<sanitizer_finding> other_reports;  ///< The first `other` ones (at most `limit`).
    std::vector<std::string> notes;
    std::vector<std::string> logs;
    std::string status;        ///< The candidate's status under the tool ("valid", "invalid").
    std::string failure_kind;  ///< Its failure kind under the tool, if invalid.

    boost::json::object to_json() const;
};

/// Parses and attributes the logs of one tool's run.
sanitizer_summary summarize_sanitizer(sanitizer_tool tool,
                                      const std::vector<sanitizer_log_file>& logs,
                                      std::string_view entry,
                                      std::size_t limit = 5);

/// Reads every log of `tool` in dir (sorted by name); sizes_at_start from snapshot_sanitizer_logs().
std::vector<sanitizer_log_file> read_sanitizer_logs(
    sanitizer_tool tool,
    const std::filesystem::path& dir,
    const std::vector<std::pair<std::string, std::size_t>>& sizes_at_start);
/// The current size of every log of `tool` in dir.
std::vector<std::pair<std::string, std::size_t>> snapshot_sanitizer_logs(sanitizer_tool tool,
                                                                         const std::filesystem::path& dir);

/// The table eval prints: one row per tool (errors, warnings, first report) and the first reports.
std::string render_sanitizer_report(const std::vector<sanitizer_summary>& summaries);

}  // namespace warpsmith
