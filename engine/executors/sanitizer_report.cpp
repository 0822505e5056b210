// The attribution of compute-sanitizer's findings to the candidate and the report of a sanitized
// evaluation (sanitizer.hpp): the logs as read from disk, each tool's summary, the rendered report.

#include "engine/executors/sanitizer.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace warpsmith
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

std::string read_file_text(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

json::object sanitizer_finding::to_json() const
{
    json::array text;
    for (const std::string& l : lines)
        text.emplace_back(l);
    return json::object{{"severity", severity},
                        {"kind", kind},
                        {"kernel", kernel},
                        {"location", location.empty() ? json::value(nullptr) : json::value(location)},
                        {"thread", thread.empty() ? json::value(nullptr) : json::value(thread)},
                        {"block", block.empty() ? json::value(nullptr) : json::value(block)},
                        {"detail", detail},
                        {"text", std::move(text)}};
}

json::object sanitizer_summary::to_json() const
{
    json::array r, o_r, n, l;
    for (const sanitizer_finding& f : reports)
        r.push_back(f.to_json());
    for (const sanitizer_finding& f : other_reports)
        o_r.push_back(f.to_json());
    for (const std::string& s : notes)
        n.emplace_back(s);
    for (const std::string& s : logs)
        l.emplace_back(s);
    json::object o{{"ran", ran},
                   {"errors", errors},
                   {"warnings", warnings},
                   {"other", other},
                   {"at_load", at_load},
                   {"reported_total", reported_total ? json::value(*reported_total) : json::value(nullptr)},
                   {"reports", std::move(r)},
                   {"other_reports", std::move(o_r)},
                   {"notes", std::move(n)},
                   {"logs", std::move(l)},
                   {"status", status.empty() ? json::value(nullptr) : json::value(status)},
                   {"failure_kind", failure_kind.empty() ? json::value(nullptr) : json::value(failure_kind)}};
    if (!ran)
        o["error"] = error;
    return o;
}

sanitizer_summary summarize_sanitizer(sanitizer_tool tool,
                                      const std::vector<sanitizer_log_file>& logs,
                                      std::string_view entry,
                                      std::size_t limit)
{
    sanitizer_summary s;
    s.tool = tool;
    // When no log existed as the evaluation started (a tool that creates its log lazily), nothing
    // can be placed before it: every report counts as the evaluation's.
    const bool any_at_start = std::any_of(
        logs.begin(), logs.end(), [](const sanitizer_log_file& f) { return f.size_at_start.has_value(); });
    for (const sanitizer_log_file& file : logs)
    {
        s.logs.push_back(file.path);
        const sanitizer_log parsed = parse_sanitizer_log(file.text);
        if (parsed.error_summary)
            s.reported_total = s.reported_total.value_or(0) + *parsed.error_summary;
        for (const std::string& n : parsed.notes)
            if (std::find(s.notes.begin(), s.notes.end(), n) == s.notes.end())
                s.notes.push_back(n);
        for (const sanitizer_finding& f : parsed.findings)
        {
            const bool during_evaluation =
                !any_at_start || (file.size_at_start && f.offset >= *file.size_at_start);
            if (!during_evaluation)
                ++s.at_load;
            else if (kernel_matches(f.kernel, entry))
            {
                (f.severity == "warning" ? s.warnings : s.errors) += 1;
                if (s.reports.size() < limit)
                    s.reports.push_back(f);
            }
            else
            {
                ++s.other;
                if (s.other_reports.size() < limit)
                    s.other_reports.push_back(f);
            }
        }
    }
    return s;
}

std::vector<std::pair<std::string, std::size_t>> snapshot_sanitizer_logs(sanitizer_tool tool,
                                                                         const fs::path& dir)
{
    std::vector<std::pair<std::string, std::size_t>> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (is_sanitizer_log(tool, e.path().filename().string()))
            out.emplace_back(e.path().string(), static_cast<std::size_t>(fs::file_size(e.path(), ec)));
    return out;
}

std::vector<sanitizer_log_file> read_sanitizer_logs(
    sanitizer_tool tool, const fs::path& dir, const std::vector<std::pair<std::string, std::size_t>>& sizes)
{
    std::vector<sanitizer_log_file> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
    {
        if (!is_sanitizer_log(tool, e.path().filename().string()))
            continue;
        sanitizer_log_file f;
        f.path = e.path().string();
        f.text = read_file_text(e.path());
        for (const auto& [path, size] : sizes)
            if (path == f.path)
                f.size_at_start = size;
        out.push_back(std::move(f));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    return out;
}

std::string render_sanitizer_report(const std::vector<sanitizer_summary>& summaries)
{
    std::string out;
    char line[512];
    std::snprintf(line,
                  sizeof line,
                  "%-10s %7s %9s %6s %8s  %s\n",
                  "sanitizer",
                  "errors",
                  "warnings",
                  "other",
                  "at load",
                  "first report in the candidate");
    out += line;
    for (const sanitizer_summary& s : summaries)
    {
        if (!s.ran)
        {
            std::snprintf(line,
                          sizeof line,
                          "%-10s not run: %s\n",
                          std::string(to_string(s.tool)).c_str(),
                          s.error.c_str());
            out += line;
            continue;
        }
        std::string first = "-";
        if (!s.reports.empty())
        {
            const sanitizer_finding& f = s.reports.front();
            first = f.kind + " in " + f.kernel + (f.location.empty() ? "" : " at " + f.location);
        }
        std::snprintf(line,
                      sizeof line,
                      "%-10s %7llu %9llu %6llu %8llu  %s\n",
                      std::string(to_string(s.tool)).c_str(),
                      static_cast<unsigned long long>(s.errors),
                      static_cast<unsigned long long>(s.warnings),
                      static_cast<unsigned long long>(s.other),
                      static_cast<unsigned long long>(s.at_load),
                      first.c_str());
        out += line;
    }
    for (const sanitizer_summary& s : summaries)
        for (const sanitizer_finding& f : s.reports)
        {
            out += std::string(to_string(s.tool)) + ": " + f.kind + " in " + f.kernel;
            if (!f.location.empty())
                out += " at " + f.location;
            if (!f.thread.empty())
                out += ", thread " + f.thread + " block " + f.block;
            if (!f.detail.empty())
                out += "; " + f.detail;
            out += "\n";
        }
    return out;
}

}  // namespace warpsmith
