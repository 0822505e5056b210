#pragma once

// summary.json (docs/run-directory.md) as functions over a read-only view of the search's state:
// the engine gathers what the summary needs into search_summary_state and summary() builds the
// object, so the format can be read, and tested, without running a search.

#include "engine/run/candidate_record.hpp"
#include "engine/search/budget.hpp"
#include "engine/search/scoring.hpp"
#include "engine/search/search_options.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

/// The reference or the initial kernel, as timed on one GPU before the search.
struct kernel_baseline
{
    bool valid = false;
    case_medians medians;
    std::optional<double> score;
};

/// What summary.json says of one GPU.
struct gpu_summary
{
    boost::json::value name = nullptr;  ///< device_info "name", null when the worker gave none.
    double busy_seconds = 0;
    int restarts = 0;
};

/// Everything summary.json is built from, borrowed from the engine for the call.
struct search_summary_state
{
    std::string run_name;
    std::string workload_name;
    const search_options& opts;
    const std::deque<candidate_record>& records;  ///< Proposal order.
    std::size_t evaluated = 0;                    ///< Candidates in the history.
    std::optional<std::size_t> best;              ///< The search's best, an index into records.
    const std::vector<kernel_baseline>& reference;
    const std::vector<kernel_baseline>& initial;
    bool has_initial = false;                                  ///< The workload declares an initial kernel.
    const std::map<std::string, boost::json::object>& vendor;  ///< key -> journal event (timed).
    const boost::json::object& vendor_unavailable;             ///< key -> {kind, message}.
    const budget_tracker& budget;
    int current_iteration = 1;   ///< search_scheduler::current_iteration().
    int candidates_started = 0;  ///< search_scheduler::candidates_started().
    /// Per branch: why it stopped, nullopt while active.
    std::vector<std::optional<std::string>> branch_stopped;
    std::vector<gpu_summary> gpus;
    bool resumed = false;
    const boost::json::value& best_json;  ///< write_best()'s winner part.
    const std::string& best_note;
    const boost::json::object& confirmation;
};

/// The outcome of the run, as search_result reports it.
struct search_outcome
{
    const std::string& status;
    const std::string& stop_reason;
    const std::string& error;
    int exit_code = 0;
};

boost::json::object medians_json(const case_medians& m);

template <class T>
boost::json::value opt_json(const std::optional<T>& v)
{
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
}

/// {"per_gpu": [{gpu, valid, score_us, case_median_us}]}.
boost::json::object baseline_json(const std::vector<kernel_baseline>& b);

/// One candidate in the summary ("best_search", and the winner's fields in "best").
boost::json::object candidate_summary(const candidate_record& r);

/// summary.json "baselines": {key: {"case_median_us", "score_us", per-case timing, errors}}.
boost::json::object vendor_summary(const std::map<std::string, boost::json::object>& vendor);

/// summary.json; wall is the session's wall time in seconds.
boost::json::object summary(const search_summary_state& s, const search_outcome& res, double wall);

}  // namespace warpsmith
