#include "engine/report/search_table.hpp"

#include "engine/report/number_text.hpp"
#include "harness/json/json_location.hpp"
#include "harness/json/json_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace warpsmith::report
{

namespace json = boost::json;
namespace fs = std::filesystem;

std::string search_table(const json::object& s, const fs::path& run_path, const json::value& history)
{
    // summary.json and history.json as this run has just written them (records: null is absent).
    const json_reader sr(s, json_location("summary.json", {}, json_style::record));
    auto num = [](const json_reader& r, std::string_view key) { return r.optional_number(key).value_or(0); };
    std::string out;
    const json_reader c = sr.nested("candidates");
    const std::int64_t pending = c.require_int64("pending");
    out += "run " + run_path.string() + ": " + sr.require_string("status") + " (" +
           sr.require_string("stop_reason") + "), " + std::to_string(c.require_int64("proposed")) +
           " candidates (" + std::to_string(c.require_int64("valid")) + " valid, " +
           std::to_string(c.require_int64("invalid")) + " invalid" +
           (pending ? ", " + std::to_string(pending) + " pending" : "") + "), " +
           fmt("%.1f s", num(sr, "wall_seconds")) + ", GPU busy " +
           fmt("%.0f%%", 100 * num(sr, "gpu_busy_fraction")) + "\n";

    // Confirmation numbers per key, when there are any.
    const json_reader confirmation = sr.nested("confirmation");
    std::map<std::string, double> confirmed;
    for (const json_reader& x : confirmation.optional_elements("entries"))
        confirmed[x.require_string("key")] = num(x, "score_us");

    char line[256];
    std::snprintf(line,
                  sizeof line,
                  "  %-10s %12s %10s %10s %14s\n",
                  "",
                  "score (us)",
                  "vs ref",
                  "vs initial",
                  "confirmed (us)");
    out += line;
    auto row = [&](const std::string& key, double score, double vs_ref, double vs_init, bool best)
    {
        std::string conf = "-";
        if (auto it = confirmed.find(key); it != confirmed.end())
            conf = fmt("%.2f", it->second);
        std::snprintf(line,
                      sizeof line,
                      "  %-10s %12s %10s %10s %14s\n",
                      (key + (best ? " *" : "")).c_str(),
                      score > 0 ? fmt("%.2f", score).c_str() : "-",
                      vs_ref > 0 ? fmt("%.2fx", vs_ref).c_str() : "-",
                      vs_init > 0 ? fmt("%.2fx", vs_init).c_str() : "-",
                      conf.c_str());
        out += line;
    };
    const std::optional<json_reader> best = sr.optional_nested("best");
    const std::string winner = best ? best->require_string("id") : std::string();
    const std::vector<json_reader> ref = sr.nested("reference").optional_elements("per_gpu");
    const double ref_score = ref.empty() ? 0 : num(ref[0], "score_us");
    if (!ref.empty())
        row("reference", ref_score, 1.0, 0, false);
    if (const auto init = sr.optional_nested("initial"))
    {
        const std::vector<json_reader> pg = init->optional_elements("per_gpu");
        if (!pg.empty() && pg[0].require_bool("valid"))
        {
            const double is = num(pg[0], "score_us");
            row("initial", is, ref_score > 0 && is > 0 ? ref_score / is : 0, 1.0, winner == "initial");
        }
    }
    // The five best valid candidates by search speedup.
    std::vector<json_reader> valid;
    if (history.is_object())
        for (json_reader& r : json_reader(history, json_location("history.json", {}, json_style::record))
                                  .optional_elements("candidates"))
            if (r.require_string("status") == "valid")
                valid.push_back(std::move(r));
    std::stable_sort(valid.begin(),
                     valid.end(),
                     [&](const json_reader& x, const json_reader& y)
                     { return num(x, "speedup_vs_reference") > num(y, "speedup_vs_reference"); });
    for (std::size_t i = 0; i < valid.size() && i < 5; ++i)
    {
        const std::string id = valid[i].require_string("id");
        row(id,
            num(valid[i], "score_us"),
            num(valid[i], "speedup_vs_reference"),
            num(valid[i], "speedup_vs_initial"),
            id == winner);
    }
    if (best)
    {
        out += "best: " + winner + " -> " + (run_path / "best.cu").string() + " (decided by " +
               best->require_string("decided_by") + ")\n";
        if (const auto d = confirmation.optional_number("max_abs_rel_diff_vs_search"))
            out += "confirmation vs search timings: up to " + fmt("%.1f%%", 100 * *d) + " apart (mean " +
                   fmt("%.1f%%", 100 * num(confirmation, "mean_abs_rel_diff_vs_search")) + ")\n";
    }
    else
        out += "no valid kernel\n";
    // Why the winner is unconfirmed, or why there is none (a confirmation that invalidated candidates).
    if (const auto note = sr.optional_string("best_note"))
        out += "note: " + *note + "\n";
    const json_reader t = sr.nested("tokens");
    if (num(t, "input") > 0 || num(t, "cost_usd") > 0)
        out += "tokens: " + std::to_string(static_cast<long long>(num(t, "input"))) + " in, " +
               std::to_string(static_cast<long long>(num(t, "output"))) + " out, " +
               fmt("$%.4f", num(t, "cost_usd")) + "\n";
    return out;
}

}  // namespace warpsmith::report
