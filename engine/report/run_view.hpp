#pragma once

// Everything a report shows about one run, read back from its run directory (docs/reports.md).
// The journal is the source of truth (docs/run-directory.md): candidates, baselines, timestamps
// and token usage are folded from it, so a run that was interrupted, killed or is still running
// renders as well as a finished one. summary.json, when present, adds what only the end of a run
// knows (the winner decided by confirmation, budgets used, GPU busy time, tune and roofline
// sections); tune_curve.json adds the tune curve.
//
// build_run_view() is sans-I/O (tested on event lists); load_run_view() reads the files.

#include "agents/strategy.hpp"
#include "engine/report/profile_listing.hpp"
#include "engine/run/candidate_record.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::report
{

struct case_info
{
    std::string name;
    bool performance = false;
};

/// The reference or initial kernel as timed on one GPU.
struct baseline_timing
{
    bool valid = false;
    std::optional<double> score_us;
    std::map<std::string, double> medians;
    protocol::evaluation_result result;  ///< The worker's evaluation result (environment, clocks).
};

struct report_candidate
{
    candidate_record rec;
    /// The reference medians on the GPU that evaluated it, as they were when it was evaluated
    /// (speedups compare with the reference timed on the same GPU).
    std::map<std::string, double> reference_medians;
    std::optional<double> evaluated_at_s;  ///< Seconds from the run's first start to its result.
    int evaluation_index = 0;              ///< 1-based finish order; 0 while pending.

    const std::string& id() const { return rec.id(); }
    bool pending() const { return !rec.evaluated; }
    bool valid() const { return rec.evaluated && rec.ec.valid; }
};

/// The parsed files of a run directory (any may be absent except the journal events).
struct run_files
{
    std::filesystem::path dir;
    std::vector<boost::json::object> events;
    bool journal_torn = false;
    std::optional<boost::json::object> run_json;
    std::optional<boost::json::object> summary;
    std::optional<boost::json::object> workload_json;
    std::optional<boost::json::object> tune_curve;
    std::optional<std::string> best_source;
};

struct run_view
{
    std::filesystem::path dir;
    std::string name;              ///< "run-001".
    boost::json::object run_json;  ///< Empty when run.json is missing.
    std::optional<boost::json::object> summary;
    std::string workload_name;
    std::string workload_description;
    std::vector<case_info> cases;              ///< Workload order.
    std::vector<report_candidate> candidates;  ///< Proposal order.
    std::map<int, baseline_timing> reference;  ///< Latest per GPU.
    std::map<int, baseline_timing> initial;    ///< Latest per GPU.
    std::optional<std::string> best_id;        ///< Winner: a candidate id or "initial".
    std::string best_decided_by;               ///< "confirmation", "search" or "" (no summary).
    std::string status;                        ///< finished / interrupted / failed / incomplete.
    std::string stop_reason;
    bool finished = false;  ///< The journal ends with run_finished.
    bool journal_torn = false;
    token_usage usage;
    double elapsed_seconds = 0;          ///< First to last journal event.
    std::optional<double> wall_seconds;  ///< summary.wall_seconds (this session).
    std::optional<double> gpu_busy_fraction;
    std::optional<boost::json::object> confirmation;  ///< summary's, else the journal event.
    std::optional<boost::json::object> tune_curve;
    std::optional<boost::json::object> roofline;   ///< summary.roofline or computed (load_run_view).
    std::optional<boost::json::object> baselines;  ///< summary.baselines (vendor libraries).
    std::optional<std::string> best_source;
    std::vector<listed_profile> profiles;  ///< profiles/ (--use-nsight), by candidate and case.
    int sessions = 0;                      ///< run_started events.

    std::vector<std::string> performance_cases() const;
    const report_candidate* find(std::string_view id) const;
    /// The best's per-case medians: confirmation medians when it was confirmed, else search ones.
    std::map<std::string, double> best_medians() const;
    /// Reference medians on GPU 0 (or the lowest GPU that has them).
    std::map<std::string, double> reference_medians() const;
    std::map<std::string, double> initial_medians() const;
    /// The provider (and tune strategy) that produced the run, from run.json: "autotune/anneal".
    std::string strategy_label() const;
};

/// Milliseconds since the epoch of a journal timestamp ("2026-12-02T15:07:48.556Z"); nullopt when
/// the text is not one.
std::optional<double> parse_utc_ms(std::string_view text);

run_view build_run_view(run_files files);

/// Reads RUN_DIR (journal.jsonl required; run.json, summary.json, workload/workload.json,
/// tune_curve.json, best.cu, profiles/ optional) and computes the roofline section from
/// workload/roofline.json (or the original workload's) and the device in run.json when the summary
/// has none. Throws user_error naming the directory when it holds no journal.
run_view load_run_view(const std::filesystem::path& dir);

}  // namespace warpsmith::report
