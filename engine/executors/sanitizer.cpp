#include "engine/executors/sanitizer.hpp"

#include "harness/core/error.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpsmith
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

constexpr std::string_view k_device_placeholder = "{device}";

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

bool contains(std::string_view s, std::string_view p)
{
    return s.find(p) != std::string_view::npos;
}

/// Quotes one argument for /bin/sh (the placeholder "{device}" is never passed here).
std::string shell_quote(const std::string& arg)
{
    bool plain = !arg.empty();
    for (char c : arg)
        plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                          c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',');
    if (plain)
        return arg;
    std::string out = "'";
    for (char c : arg)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

bool is_executable_file(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// ---- parsing ------------------------------------------------------------------------------------

/// Lines written by the tool start with a run of '=' (8 or 9) and a space; returns the rest, or
/// nullopt for any other line (output of the application, if it shares the file).
std::optional<std::string_view> tool_body(std::string_view line)
{
    std::size_t i = 0;
    while (i < line.size() && line[i] == '=')
        ++i;
    if (i < 4)
        return std::nullopt;
    std::string_view body = line.substr(i);
    if (!body.empty() && body.front() == ' ')
        body.remove_prefix(1);
    while (!body.empty() && body.back() == '\r')
        body.remove_suffix(1);
    return body;
}

struct at_info
{
    std::string kernel;
    std::string location;
};

/// Reads "at <where>" in a report line: "at sgemm+0x2d0 in k.cu:23" (since 2022),
/// "at 0x2d0 in /path/k.cu:23:sgemm(int, float*)" and "at 0x2d0 in sgemm" (older tools).
std::optional<at_info> parse_at(std::string_view text)
{
    std::size_t pos = std::string_view::npos;
    if (starts_with(text, "at "))
        pos = 0;
    else if (std::size_t p = text.find(" at "); p != std::string_view::npos)
        pos = p + 1;
    if (pos == std::string_view::npos)
        return std::nullopt;
    std::string_view rest = text.substr(pos + 3);
    // A racecheck line ends with " [N hazards]".
    if (std::size_t b = rest.rfind(" ["); b != std::string_view::npos && rest.back() == ']')
        rest = rest.substr(0, b);
    at_info out;
    if (starts_with(rest, "0x"))
    {
        std::size_t in = rest.find(" in ");
        if (in == std::string_view::npos)
            return out;
        std::string_view tail = trim(rest.substr(in + 4));
        // FILE:LINE:NAME, where NAME may itself contain "::" (C++ scopes).
        for (std::size_t c = tail.find(':'); c != std::string_view::npos; c = tail.find(':', c + 1))
        {
            std::size_t d = c + 1;
            while (d < tail.size() && tail[d] >= '0' && tail[d] <= '9')
                ++d;
            if (d > c + 1 && d < tail.size() && tail[d] == ':')
            {
                out.location = std::string(tail.substr(0, d));
                out.kernel = kernel_base_name(tail.substr(d + 1));
                return out;
            }
        }
        out.kernel = kernel_base_name(tail);
        return out;
    }
    // "at kernel+0xOFFSET[ in FILE:LINE]"; anything else ("at __shared__ 0x0 in block ...") names no code.
    std::size_t plus = rest.find("+0x");
    if (plus == std::string_view::npos || plus == 0)
        return std::nullopt;
    std::size_t in = rest.find(" in ", plus);
    out.kernel = kernel_base_name(rest.substr(0, plus));
    if (in != std::string_view::npos)
        out.location = std::string(trim(rest.substr(in + 4)));
    return out;
}

/// "(0,0,0)" after `word` ("by thread ", "in block "), or "".
std::string group_after(std::string_view text, std::string_view word)
{
    std::size_t p = text.find(word);
    if (p == std::string_view::npos)
        return "";
    std::size_t open = text.find('(', p + word.size());
    std::size_t close = text.find(')', open);
    if (open == std::string_view::npos || close == std::string_view::npos)
        return "";
    std::string out;
    for (char c : text.substr(open, close - open + 1))
        if (c != ' ')
            out += c;
    return out;
}

bool is_backtrace(std::string_view body)
{
    return starts_with(body, "Saved host backtrace") || starts_with(body, "Host Frame") ||
           starts_with(body, "Device Frame") || starts_with(body, "in /");
}

/// The headline's kind without the "at <where>" part.
std::string strip_at(std::string_view text)
{
    if (std::size_t p = text.find(" at "); p != std::string_view::npos)
        return std::string(trim(text.substr(0, p)));
    return std::string(trim(text));
}

std::optional<std::uint64_t> first_number(std::string_view text)
{
    std::size_t i = 0;
    while (i < text.size() && !(text[i] >= '0' && text[i] <= '9'))
        ++i;
    if (i == text.size())
        return std::nullopt;
    std::uint64_t v = 0;
    for (; i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == ','); ++i)
        if (text[i] != ',')
            v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
    return v;
}

std::string read_file_text(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

// ---- tools and the command ----------------------------------------------------------------------

std::string_view to_string(sanitizer_tool t)
{
    switch (t)
    {
        case sanitizer_tool::memcheck:
            return "memcheck";
        case sanitizer_tool::racecheck:
            return "racecheck";
        case sanitizer_tool::initcheck:
            return "initcheck";
    }
    return "memcheck";
}

std::vector<sanitizer_tool> parse_sanitizer_tools(std::string_view list)
{
    const std::vector<sanitizer_tool> all{
        sanitizer_tool::memcheck, sanitizer_tool::racecheck, sanitizer_tool::initcheck};
    if (trim(list).empty())
        return all;
    std::vector<sanitizer_tool> out;
    while (!list.empty())
    {
        std::size_t comma = list.find(',');
        std::string_view name = trim(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        auto it =
            std::find_if(all.begin(), all.end(), [&](sanitizer_tool t) { return to_string(t) == name; });
        if (it == all.end())
            throw user_error("--sanitize: '" + std::string(name) +
                             "' is not a sanitizer tool (memcheck, racecheck, initcheck)");
        if (std::find(out.begin(), out.end(), *it) != out.end())
            throw user_error("--sanitize: '" + std::string(name) + "' is given twice");
        out.push_back(*it);
    }
    return out;
}

std::vector<fs::path> sanitizer_search_dirs(const char* path_env, const char* cuda_home)
{
    std::vector<fs::path> dirs;
    if (path_env)
    {
        std::string_view rest = path_env;
        while (!rest.empty())
        {
            std::size_t colon = rest.find(':');
            std::string_view dir = rest.substr(0, colon);
            if (!dir.empty())
                dirs.emplace_back(std::string(dir));
            rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        }
    }
    if (cuda_home && *cuda_home)
    {
        dirs.push_back(fs::path(cuda_home) / "bin");
        dirs.push_back(fs::path(cuda_home) / "compute-sanitizer");
    }
    dirs.emplace_back("/usr/local/cuda/bin");
    dirs.emplace_back("/usr/local/cuda/compute-sanitizer");
    return dirs;
}

std::vector<fs::path> sanitizer_search_dirs()
{
    return sanitizer_search_dirs(std::getenv("PATH"), std::getenv("CUDA_HOME"));
}

std::optional<fs::path> find_compute_sanitizer(const std::vector<fs::path>& dirs)
{
    for (const fs::path& d : dirs)
        if (fs::path p = d / "compute-sanitizer"; is_executable_file(p))
            return p;
    return std::nullopt;
}

std::string sanitizer_log_pattern(sanitizer_tool t)
{
    return std::string(to_string(t)) + "-%p.log";
}

bool is_sanitizer_log(sanitizer_tool t, std::string_view name)
{
    const std::string prefix = std::string(to_string(t)) + "-";
    return starts_with(name, prefix) && name.size() > prefix.size() + 4 &&
           name.substr(name.size() - 4) == ".log";
}

std::vector<std::string> sanitizer_arguments(const sanitizer_command_options& o)
{
    // %% would be needed for a literal '%' in the directory: the tool expands %p, %q{ENV} and %%.
    std::string dir;
    for (char c : o.log_dir.string())
        dir += c == '%' ? std::string("%%") : std::string(1, c);
    std::vector<std::string> args{o.sanitizer.string(),
                                  "--tool",
                                  std::string(to_string(o.tool)),
                                  "--log-file",
                                  dir + "/" + sanitizer_log_pattern(o.tool),
                                  "--print-limit",
                                  std::to_string(o.print_limit)};
    // memcheck: unallocated padding after every allocation, so an access a few bytes past a buffer
    // is reported even where the allocator packs the next allocation right behind it.
    if (o.tool == sanitizer_tool::memcheck)
    {
        args.emplace_back("--padding");
        args.emplace_back("4096");
    }
    const std::vector<std::string> worker{
        o.worker_binary, "--device", std::string(k_device_placeholder), "--exact-buffers"};
    args.insert(args.end(), worker.begin(), worker.end());
    args.insert(args.end(), o.worker_args.begin(), o.worker_args.end());
    return args;
}

std::string sanitizer_worker_command(const sanitizer_command_options& o)
{
    std::string cmd = "exec";
    for (const std::string& a : sanitizer_arguments(o))
        cmd += " " + (a == k_device_placeholder ? a : shell_quote(a));
    return cmd;
}

// ---- parsing ------------------------------------------------------------------------------------

std::string kernel_base_name(std::string_view signature)
{
    std::string_view s = trim(signature);
    if (starts_with(s, "void "))
        s.remove_prefix(5);
    // The parameter list starts at the first '(' outside template brackets.
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        if (s[i] == '<')
            ++depth;
        else if (s[i] == '>')
            --depth;
        else if (s[i] == '(' && depth == 0)
            return std::string(trim(s.substr(0, i)));
    }
    return std::string(s);
}

bool kernel_matches(std::string_view kernel, std::string_view entry)
{
    if (entry.empty())
        return false;
    return kernel == entry ||
           (starts_with(kernel, entry) && kernel.size() > entry.size() && kernel[entry.size()] == '<');
}

sanitizer_log parse_sanitizer_log(std::string_view text)
{
    sanitizer_log out;
    sanitizer_finding* current = nullptr;
    bool in_backtrace = false;
    bool race = false;
    std::size_t offset = 0;
    while (offset < text.size())
    {
        const std::size_t nl = text.find('\n', offset);
        const std::string_view line =
            text.substr(offset, nl == std::string_view::npos ? std::string_view::npos : nl - offset);
        const std::size_t line_offset = offset;
        offset = nl == std::string_view::npos ? text.size() : nl + 1;

        const std::optional<std::string_view> body_opt = tool_body(line);
        if (!body_opt)
            continue;
        const std::string_view body = *body_opt;
        if (trim(body).empty())
        {
            current = nullptr;  // A bare prefix line separates reports.
            continue;
        }
        const bool continuation = body.front() == ' ' || body.front() == '\t';
        if (continuation)
        {
            if (!current)
                continue;
            const std::string_view t = trim(body);
            if (is_backtrace(t))
                in_backtrace = true;
            if (in_backtrace)
                continue;
            current->lines.emplace_back(t);
            if (race && starts_with(t, "and "))
            {
                // "and Read access at k+0x1f0 in k.cu:22 [248 hazards]"
                current->kind += " " + strip_at(t);
                continue;
            }
            if (auto at = parse_at(t); at && current->kernel.empty() && starts_with(t, "at "))
            {
                current->kernel = at->kernel;
                current->location = at->location;
                continue;
            }
            if (starts_with(t, "by thread"))
            {
                current->thread = group_after(t, "by thread");
                current->block = group_after(t, "in block");
                continue;
            }
            if (current->kernel.empty())
                if (auto at = parse_at(t))
                {
                    // Racecheck's hazard report: "Write Thread (1, 0, 0) at 0x.. in k.cu:5:kernel".
                    current->kernel = at->kernel;
                    current->location = at->location;
                }
            current->detail += (current->detail.empty() ? "" : " ") + std::string(t);
            continue;
        }

        // A headline: a new report, a summary, or a message of the tool.
        current = nullptr;
        in_backtrace = false;
        race = false;
        const std::string_view h = trim(body);
        if (starts_with(h, "COMPUTE-SANITIZER") || starts_with(h, "CUDA-MEMCHECK"))
            continue;
        if (starts_with(h, "ERROR SUMMARY"))
        {
            if (auto n = first_number(h.substr(13)))
                out.error_summary = out.error_summary.value_or(0) + *n;
            continue;
        }
        const bool error_word = starts_with(h, "Error:") || starts_with(h, "ERROR:");
        const bool warning_word = starts_with(h, "Warning:") || starts_with(h, "WARN");
        const bool hazard = contains(h, "Race reported") || contains(h, "hazard");
        if (starts_with(h, "RACECHECK SUMMARY") || starts_with(h, "LEAK SUMMARY") ||
            starts_with(h, "Target application returned") || starts_with(h, "Note:") ||
            starts_with(h, "Info:") || ((error_word || warning_word) && !hazard) ||
            starts_with(h, "This tool"))
        {
            out.notes.emplace_back(h);
            continue;
        }
        sanitizer_finding& f = out.findings.emplace_back();
        f.offset = line_offset;
        f.severity = warning_word ? "warning" : "error";
        std::string_view kind = h;
        if (error_word || warning_word)
        {
            kind.remove_prefix(kind.find(':') + 1);
            kind = trim(kind);
        }
        race = hazard;
        f.kind = race ? strip_at(kind) : std::string(kind);
        if (race)
            if (auto at = parse_at(kind))
            {
                f.kernel = at->kernel;
                f.location = at->location;
            }
        f.lines.emplace_back(h);
        current = &f;
    }
    return out;
}

// ---- attribution --------------------------------------------------------------------------------

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
