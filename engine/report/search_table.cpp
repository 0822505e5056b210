#include "engine/report/search_table.hpp"

#include "engine/report/number_text.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace warpsmith::report
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

double num(const json::value* v)
{
    return v && v->is_number() ? v->to_number<double>() : 0;
}

}  // namespace

std::string search_table(const json::object& s, const fs::path& run_path, const json::value& history)
{
    std::string out;
    const auto& c = s.at("candidates").as_object();
    out +=
        "run " + run_path.string() + ": " + std::string(s.at("status").as_string()) + " (" +
        std::string(s.at("stop_reason").as_string()) + "), " + std::to_string(c.at("proposed").as_int64()) +
        " candidates (" + std::to_string(c.at("valid").as_int64()) + " valid, " +
        std::to_string(c.at("invalid").as_int64()) + " invalid" +
        (c.at("pending").as_int64() ? ", " + std::to_string(c.at("pending").as_int64()) + " pending" : "") +
        "), " + fmt("%.1f s", num(s.if_contains("wall_seconds"))) + ", GPU busy " +
        fmt("%.0f%%", 100 * num(s.if_contains("gpu_busy_fraction"))) + "\n";

    // Confirmation numbers per key, when there are any.
    std::map<std::string, const json::object*> confirmed;
    if (const auto* e = s.at("confirmation").as_object().if_contains("entries"); e && e->is_array())
        for (const auto& x : e->get_array())
            confirmed[std::string(x.at("key").as_string())] = &x.as_object();

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
            conf = fmt("%.2f", num(it->second->if_contains("score_us")));
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
    std::string winner;
    if (const auto* b = s.if_contains("best"); b && b->is_object())
        winner = std::string(b->at("id").as_string());
    const auto ref = s.at("reference").at("per_gpu").as_array();
    if (!ref.empty())
        row("reference", num(ref[0].as_object().if_contains("score_us")), 1.0, 0, false);
    if (const auto* init = s.if_contains("initial"); init && init->is_object())
    {
        const auto& pg = init->at("per_gpu").as_array();
        if (!pg.empty() && pg[0].at("valid").as_bool())
        {
            const double is = num(pg[0].as_object().if_contains("score_us"));
            const double rs = ref.empty() ? 0 : num(ref[0].as_object().if_contains("score_us"));
            row("initial", is, rs > 0 && is > 0 ? rs / is : 0, 1.0, winner == "initial");
        }
    }
    // The five best valid candidates by search speedup.
    std::vector<const json::object*> valid;
    if (const auto* h = history.if_object(); h && h->contains("candidates"))
        for (const auto& r : h->at("candidates").as_array())
            if (r.at("status").as_string() == "valid")
                valid.push_back(&r.as_object());
    std::sort(valid.begin(),
              valid.end(),
              [](auto* x, auto* y) {
                  return num(x->if_contains("speedup_vs_reference")) >
                         num(y->if_contains("speedup_vs_reference"));
              });
    for (std::size_t i = 0; i < valid.size() && i < 5; ++i)
    {
        const auto id = std::string(valid[i]->at("id").as_string());
        row(id,
            num(valid[i]->if_contains("score_us")),
            num(valid[i]->if_contains("speedup_vs_reference")),
            num(valid[i]->if_contains("speedup_vs_initial")),
            id == winner);
    }
    if (!winner.empty())
    {
        const auto& b = s.at("best").as_object();
        out += "best: " + winner + " -> " + (run_path / "best.cu").string() + " (decided by " +
               std::string(b.at("decided_by").as_string()) + ")\n";
        if (const auto* d = s.at("confirmation").as_object().if_contains("max_abs_rel_diff_vs_search"))
            out +=
                "confirmation vs search timings: up to " + fmt("%.1f%%", 100 * num(d)) + " apart (mean " +
                fmt("%.1f%%",
                    100 * num(s.at("confirmation").as_object().if_contains("mean_abs_rel_diff_vs_search"))) +
                ")\n";
    }
    else
        out += "no valid kernel\n";
    // Why the winner is unconfirmed, or why there is none (a confirmation that invalidated candidates).
    if (const auto* note = s.if_contains("best_note"); note && note->is_string())
        out += "note: " + std::string(note->get_string()) + "\n";
    const auto& t = s.at("tokens").as_object();
    if (num(t.if_contains("input")) > 0 || num(t.if_contains("cost_usd")) > 0)
        out += "tokens: " + std::to_string(static_cast<long long>(num(t.if_contains("input")))) + " in, " +
               std::to_string(static_cast<long long>(num(t.if_contains("output")))) + " out, " +
               fmt("$%.4f", num(t.if_contains("cost_usd"))) + "\n";
    return out;
}

}  // namespace warpsmith::report
