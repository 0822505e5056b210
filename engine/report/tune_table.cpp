#include "engine/report/tune_table.hpp"

#include "agents/autotune/search_space.hpp"
#include "engine/report/baseline_report.hpp"
#include "engine/report/number_text.hpp"
#include "engine/report/profile_listing.hpp"
#include "harness/json/json_location.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"

#include <cstdio>

namespace warpsmith::report
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

/// --use-nsight: the winner's profile (profiles/<id>-<case>.json) below the roofline, or why
/// there is none.
std::string winner_profile_text(const fs::path& run_path, const std::string& winner)
{
    const auto profiles = report::list_run_profiles(run_path);
    if (const report::listed_profile* p = report::find_profile(profiles, winner))
        return "profile of " + winner + " on " + p->case_name + " (" +
               (p->report ? (run_path / *p->report).string() : run_path.string() + "/" + p->document) +
               "):\n" + p->summary->render_table();
    for (const auto& p : profiles)
        if (p.candidate == winner)
            return "no profile of " + winner + ": " + p.message + "\n";
    return winner == "initial" ? "the initial kernel won; it was not profiled\n"
                               : "no profile of " + winner + " (see the log)\n";
}

}  // namespace

std::string tune_table(const json::object& s,
                       const json::object& tune,
                       const fs::path& run_path,
                       const workload& w,
                       const std::optional<json::object>& best_point)
{
    // summary.json as this run has just written it, and the strategy's report (records: null is
    // absent).
    const json_reader sr(s, json_location("summary.json", {}, json_style::record));
    const json_reader tr(tune, json_location("tune.json", {}, json_style::record));
    std::string out;
    const json_reader c = sr.nested("candidates");
    out += "tune " + run_path.string() + ": " + sr.require_string("status") + " (" +
           sr.require_string("stop_reason") + "), " + tr.require_string("strategy") + " seed " +
           std::to_string(tr.require_uint64("seed")) + ", " + std::to_string(c.require_int64("evaluated")) +
           " evaluated (" + std::to_string(c.require_int64("valid")) + " valid), " +
           std::to_string(tr.nested("pruned").require_int64("count")) + " pruned after compile, " +
           fmt("%.1f s", sr.optional_number("wall_seconds").value_or(0)) + ", GPU busy " +
           fmt("%.0f%%", 100 * sr.optional_number("gpu_busy_fraction").value_or(0)) + "\n";
    if (const json::object* space = tr.optional_object("space"))
        out += "space: " + autotune::space_stats::from_json(*space).describe() + "\n";
    if (const auto cache = tr.optional_nested("eval_cache"); cache && cache->require_bool("enabled"))
        out += "evaluation cache: " + std::to_string(cache->require_int64("hits")) + " hits, " +
               std::to_string(cache->require_int64("stored")) + " stored\n";

    const std::optional<json_reader> best = sr.optional_nested("best");
    if (!best)
    {
        out += "no valid kernel was found\n";
        return out;
    }
    std::string point_text;
    if (best_point)
    {
        const json_reader point(*best_point, json_location("best point", {}, json_style::record));
        for (const auto& kv : *best_point)
            point_text += (point_text.empty() ? "" : " ") + std::string(kv.key()) + "=" +
                          std::to_string(point.require_int64(kv.key()));
    }
    const std::string best_id = best->require_string("id");
    out += "best " + best_id + (point_text.empty() ? "" : ": " + point_text) + " (" +
           best->require_string("decided_by") + ")\n";
    // Per case: the best, the reference and initial kernel, the vendor baselines, the roofline.
    out += baseline_case_table(s, w, true);
    if (sr.find("profiles"))
        out += winner_profile_text(run_path, best_id);
    return out;
}

}  // namespace warpsmith::report
