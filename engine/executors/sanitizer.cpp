#include "engine/executors/sanitizer.hpp"

#include "engine/executors/command_line.hpp"
#include "harness/core/error.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
    std::vector<sanitizer_tool> all{
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
        dirs = path_directories(path_env);
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

}  // namespace warpsmith
