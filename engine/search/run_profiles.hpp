#pragma once

// The profiles of one run (optimize --use-nsight, docs/nsight.md): which candidate was profiled
// on which case, where its files are (profiles/cNNNN-CASE.ncu-rep and .json), the budget, what a
// replay answers from the recorded run, and the "profiles" part of summary.json. The search
// engine runs the profiles (holding a GPU); this class only keeps their books.

#include "agents/strategy.hpp"
#include "engine/profile/profiler.hpp"
#include "engine/search/search_options.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace warpsmith
{

class run_profiles
{
public:
    run_profiles(nsight_options opts, std::filesystem::path profiles_dir);

    bool enabled() const { return opts_.enabled; }
    const nsight_options& options() const { return opts_; }

    /// Whether a new profile may start while the search is at `iteration` (0-based).
    bool allowed(int iteration) const;
    /// profiles/<id>-<case> (the profiler adds .ncu-rep and .json).
    std::filesystem::path output_base(const std::string& id, const std::string& case_name) const;

    /// The profile of (id, case) as the model reads it, when one was taken (or refused for a
    /// reason that will not change, e.g. an invalid candidate).
    const candidate_profile* find(const std::string& id, const std::string& case_name) const;
    /// The newest successful profile on `case_name`, whatever its candidate (the best so far may
    /// have changed while it was taken); null when there is none.
    const candidate_profile* latest_ok(const std::string& case_name) const;
    /// In a replay: the recorded run's profile of (id, case), read from its profiles/ folder.
    std::optional<profile_outcome> recorded(const std::string& id, const std::string& case_name) const;

    /// Books an outcome (counts it against the budget unless it came from a recording).
    const candidate_profile& record(const std::string& id,
                                    const profile_outcome& outcome,
                                    bool from_recording);
    /// Books a refusal that is not an outcome (budget spent): not kept, so a later call may run.
    static candidate_profile refusal(const std::string& id, const std::string& case_name, std::string why);

    int taken() const { return taken_; }
    double wall_seconds() const { return wall_ms_ / 1000; }
    /// summary.json "profiles": {"enabled", "budget", "taken", "failed", "wall_seconds", "items": [...]}.
    boost::json::object summary_json() const;

private:
    nsight_options opts_;
    std::filesystem::path dir_;
    std::map<std::pair<std::string, std::string>, candidate_profile> done_;
    std::vector<boost::json::object> items_;
    std::map<std::string, std::string> latest_ok_;  ///< case -> candidate id
    int taken_ = 0;
    int failed_ = 0;
    double wall_ms_ = 0;
};

}  // namespace warpsmith
