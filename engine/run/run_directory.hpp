#pragma once

// The run directory results/run-NNN/ (SPEC §4; every file is documented with an example in
// docs/run-directory.md). This class knows the layout and writes the per-candidate files; the
// journal (journal.hpp) is the source of truth and every other file can be rebuilt from it.
// All JSON files are written atomically (temporary file + rename).

#include "engine/run/candidate_record.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith
{

/// A per-case replay request, the file format `warpsmith run REQUEST.json` reads
/// (docs/run-directory.md, "requests/<case>.json"): self-contained, with the workload inline.
boost::json::object replay_request_json(const workload& w,
                                        const std::string& case_name,
                                        const candidate& cand,
                                        const std::string& name,
                                        const boost::json::object& timing,
                                        std::uint64_t hidden_seed);

/// Case names made safe as file names: every byte outside [A-Za-z0-9._-] becomes '_'.
std::string file_name_for_case(std::string_view case_name);

/// Creates dir (and its parents) when missing; user_error naming it when that fails or it is not a
/// directory.
void ensure_dir(const std::filesystem::path& dir);

/// Claims parent/<prefix>-NNN (three digits or more, one past the highest existing number) with
/// mkdir, creating parent first: results/run-001 for runs, results/eval-001 and results/replay-001
/// for the eval and run commands. mkdir is the claim, so two warpsmith processes never share one.
/// Throws user_error naming the directory when it cannot be read or created.
std::filesystem::path claim_numbered_dir(const std::filesystem::path& parent, std::string_view prefix);

/// True when `file` lies in the workload/ folder of a run directory (one holding run.json and
/// journal.jsonl): a run's own workload.json and cases.json, which name input files by absolute path
/// and are read with file_scope::self_contained, as --resume and report read the run (two marker
/// files are easy to fake: that scope is what keeps a handed-over "run" from reading host files).
bool is_run_workload_file(const std::filesystem::path& file);

/// Throws user_error "<what> <dir>: holds a symbolic link (<entry>) ..." when anything inside dir
/// is a symbolic link. warpsmith writes none into a run directory, and a run directory can come
/// from anyone: `best.cu -> ~/.env` would put the file into report.html, a candidate's kernel.cu
/// into what --resume sends a model. --resume and report check this before reading a run.
void check_run_has_no_symlinks(const std::filesystem::path& dir, std::string_view what);

/// Throws user_error "<flag> <file>: is a symbolic link; ..." when file is one. These flags take
/// files of earlier runs (--initial-kernel results/run-003/best.cu, as the docs suggest), and a
/// folder from elsewhere could plant a link there to any file of this machine, which would go to
/// the model; whether a folder is a run is the folder's own say, so any link is refused.
void check_not_a_link(const std::filesystem::path& file, std::string_view flag);

class run_directory
{
public:
    /// Claims the next free results_dir/run-NNN (claim_numbered_dir), then creates candidates/,
    /// workload/ and llm/ inside it. Throws user_error naming the directory when it cannot be
    /// created or written.
    static run_directory create(const std::filesystem::path& results_dir);

    /// Opens an existing run for --resume; user_error when path holds no run.json and journal.jsonl.
    static run_directory open(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return path_; }
    std::string name() const { return path_.filename().string(); }
    std::filesystem::path journal_path() const { return path_ / "journal.jsonl"; }
    std::filesystem::path run_json_path() const { return path_ / "run.json"; }
    std::filesystem::path workload_dir() const { return path_ / "workload"; }
    std::filesystem::path llm_dir() const { return path_ / "llm"; }
    std::filesystem::path candidate_dir(const std::string& id) const { return path_ / "candidates" / id; }

    /// workload/: workload.json (self-contained, sources inline), reference.cu, initial.cu (when
    /// the workload has one), cases.json, and supplied-reference.cu when the user gave --reference.
    void write_workload(const workload& w, const std::optional<std::string>& supplied_reference) const;

    /// candidates/<id>/kernel.cu and candidate.json.
    void write_proposed(const candidate_record& r) const;
    /// candidates/<id>/compile.log.
    void write_compiled(const candidate_record& r) const;
    /// candidates/<id>/result.json and requests/<case>.json for every case of the workload.
    void write_evaluated(const candidate_record& r,
                         const workload& w,
                         const boost::json::object& timing,
                         std::uint64_t hidden_seed) const;

    /// Writes <run>/<file> atomically.
    void write_json(const std::string& file, const boost::json::value& v) const;
    void write_text(const std::string& file, std::string_view text) const;

private:
    explicit run_directory(std::filesystem::path p) : path_(std::move(p)) {}
    std::filesystem::path path_;
};

/// candidate.json of a record: the candidate without its source (that is kernel.cu) plus id,
/// parent, branch, iteration, repair_of, rationale and meta.
boost::json::object candidate_json(const candidate_record& r);

}  // namespace warpsmith
