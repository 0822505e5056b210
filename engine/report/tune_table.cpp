#include "engine/report/tune_table.hpp"

#include "agents/autotune/search_space.hpp"
#include "engine/report/baseline_report.hpp"
#include "engine/report/number_text.hpp"
#include "engine/report/profile_listing.hpp"
#include "harness/json/lenient.hpp"

#include <cstdio>

namespace warpsmith::report
{

namespace json = boost::json;
namespace fs = std::filesystem;
using lenient::number_at;
using lenient::object_at;

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
    std::string out;
    const auto& c = s.at("candidates").as_object();
    out += "tune " + run_path.string() + ": " + std::string(s.at("status").as_string()) + " (" +
           std::string(s.at("stop_reason").as_string()) + "), " + tune.at("strategy").as_string().c_str() +
           " seed " + std::to_string(tune.at("seed").to_number<std::uint64_t>()) + ", " +
           std::to_string(c.at("evaluated").as_int64()) + " evaluated (" +
           std::to_string(c.at("valid").as_int64()) + " valid), " +
           std::to_string(tune.at("pruned").at("count").to_number<std::int64_t>()) +
           " pruned after compile, " + fmt("%.1f s", number_at(&s, "wall_seconds").value_or(0)) +
           ", GPU busy " + fmt("%.0f%%", 100 * number_at(&s, "gpu_busy_fraction").value_or(0)) + "\n";
    if (const auto* space = object_at(&tune, "space"))
        out += "space: " + autotune::space_stats::from_json(*space).describe() + "\n";
    if (const auto* cache = object_at(&tune, "eval_cache"); cache && cache->at("enabled").as_bool())
        out += "evaluation cache: " + std::to_string(cache->at("hits").as_int64()) + " hits, " +
               std::to_string(cache->at("stored").as_int64()) + " stored\n";

    const auto* best = object_at(&s, "best");
    if (!best)
    {
        out += "no valid kernel was found\n";
        return out;
    }
    std::string point_text;
    if (best_point)
        for (const auto& kv : *best_point)
            point_text += (point_text.empty() ? "" : " ") + std::string(kv.key()) + "=" +
                          std::to_string(kv.value().to_number<std::int64_t>());
    out += "best " + std::string(best->at("id").as_string()) + (point_text.empty() ? "" : ": " + point_text) +
           " (" + std::string(best->at("decided_by").as_string()) + ")\n";
    // Per case: the best, the reference and initial kernel, the vendor baselines, the roofline.
    out += baseline_case_table(s, w, true);
    if (object_at(&s, "profiles"))
        out += winner_profile_text(run_path, std::string(best->at("id").as_string()));
    return out;
}

}  // namespace warpsmith::report
