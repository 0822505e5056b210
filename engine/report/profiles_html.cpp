#include "engine/report/profiles_html.hpp"

#include "engine/report/markup_escape.hpp"

#include <cstdio>
#include <set>

namespace warpsmith::report
{

namespace
{

std::string percent(const std::optional<double>& x)
{
    if (!x)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", *x);
    return buf;
}

std::string number(const std::optional<double>& x, const char* f)
{
    if (!x)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, f, *x);
    return buf;
}

std::string link(const std::string& path, const std::string& text)
{
    return "<a href=\"" + html_escape(url_path_escape(path)) + "\">" + html_escape(text) + "</a>";
}

std::string figures_cells(const profile_summary& s)
{
    std::string occupancy = percent(s.achieved_occupancy_pct) + " / " + percent(s.theoretical_occupancy_pct);
    if (!s.occupancy_limiter.empty())
        occupancy += " <span class=\"note\">(" + html_escape(s.occupancy_limiter) + ")</span>";
    std::string stall = "-";
    if (!s.top_stalls.empty())
    {
        char share[32];
        std::snprintf(share, sizeof share, " %.0f%%", 100 * s.top_stalls.front().share);
        stall = html_escape(s.top_stalls.front().reason) + share;
    }
    return "<td class=\"mono\">" + html_escape(s.kernel) + "<br><span class=\"note\">grid " +
           html_escape(s.grid) + ", block " + html_escape(s.block) + "</span></td><td class=\"num\">" +
           number(s.duration_us, "%.2f") + "</td><td class=\"num\">" + percent(s.sol_compute_pct) +
           "</td><td class=\"num\">" + percent(s.sol_memory_pct) + "</td><td class=\"num\">" +
           percent(s.dram_pct) + "</td><td class=\"num\">" + percent(s.l2_hit_pct) +
           "</td><td class=\"num\">" + occupancy + "</td><td class=\"num\">" +
           number(s.registers_per_thread, "%.0f") + "</td><td>" + stall + "</td>";
}

}  // namespace

std::string profile_anchor(const std::string& candidate)
{
    return "profile-" + candidate;
}

std::string render_profiles_section(const std::vector<listed_profile>& profiles,
                                    const std::optional<std::string>& best_id)
{
    if (profiles.empty())
        return {};
    std::string out =
        "<section id=\"profiles\"><h2>Nsight Compute profiles</h2>\n<p class=\"note\">Each profile is one "
        "launch of the candidate under ncu on the case named, with validated inputs; its figures never "
        "count in a score (docs/nsight.md). Open a <code>.ncu-rep</code> in Nsight Compute.</p>\n<div "
        "class=\"scroll\"><table><tr><th>candidate</th><th>case</th><th>kernel</th><th "
        "class=\"num\">duration (us)</th><th class=\"num\">SOL compute</th><th class=\"num\">SOL "
        "memory</th><th class=\"num\">DRAM</th><th class=\"num\">L2 hit</th><th class=\"num\">occupancy "
        "(achieved / theoretical)</th><th class=\"num\">regs</th><th>top stall</th><th>files</th></tr>\n";
    std::set<std::string> anchored;
    for (const auto& p : profiles)
    {
        const bool best = best_id && *best_id == p.candidate;
        std::string row = std::string("<tr") + (best ? " class=\"best\"" : "");
        if (anchored.insert(p.candidate).second)
            row += " id=\"" + html_escape(profile_anchor(p.candidate)) + "\"";
        row += "><td class=\"mono\">" + html_escape(p.candidate) + (best ? " &#9733;" : "") +
               "</td><td class=\"mono\">" + html_escape(p.case_name) + "</td>";
        if (p.ok && p.summary)
            row += figures_cells(*p.summary);
        else
            row += "<td colspan=\"9\"><span class=\"invalid\">not profiled (" +
                   html_escape(p.error_kind.empty() ? "failed" : p.error_kind) +
                   ")</span>: " + html_escape(p.message) + "</td>";
        std::string files = link(p.document, "json");
        if (p.report)
            files += " &middot; " + link(*p.report, "ncu-rep");
        row += "<td>" + files + "</td></tr>\n";
        out += row;
    }
    out += "</table></div></section>\n";
    return out;
}

}  // namespace warpsmith::report
