#include "engine/profile/ncu_tool.hpp"

#include <cctype>
#include <cstdlib>
#include <unistd.h>

namespace warpsmith
{

namespace fs = std::filesystem;

namespace
{

bool executable(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

const std::vector<std::string>& default_ncu_sections()
{
    static const std::vector<std::string> sections{"SpeedOfLight",
                                                   "MemoryWorkloadAnalysis",
                                                   "Occupancy",
                                                   "LaunchStats",
                                                   "WarpStateStats",
                                                   "ComputeWorkloadAnalysis",
                                                   "SchedulerStats"};
    return sections;
}

std::optional<fs::path> find_ncu(const std::optional<std::string>& explicit_path,
                                 std::vector<std::string>* looked)
{
    auto tried = [looked](const std::string& where)
    {
        if (looked)
            looked->push_back(where);
    };
    if (explicit_path)
    {
        tried(*explicit_path + " (--ncu)");
        if (executable(*explicit_path))
            return fs::absolute(*explicit_path);
        return std::nullopt;
    }
    if (const char* path = std::getenv("PATH"))
    {
        tried("ncu on PATH");
        std::string_view rest(path);
        while (!rest.empty())
        {
            const std::size_t colon = rest.find(':');
            std::string_view dir = rest.substr(0, colon);
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
            if (dir.empty())
                continue;
            fs::path candidate = fs::path(dir) / "ncu";
            if (executable(candidate))
                return candidate;
        }
    }
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    {
        fs::path candidate = fs::path(home) / "bin" / "ncu";
        tried(candidate.string());
        if (executable(candidate))
            return candidate;
    }
    const fs::path standard = "/usr/local/cuda/bin/ncu";
    tried(standard.string());
    if (executable(standard))
        return standard;
    return std::nullopt;
}

std::string ncu_missing_message(const std::vector<std::string>& looked)
{
    std::string where;
    for (const std::string& l : looked)
        where += (where.empty() ? "" : ", ") + l;
    return "Nsight Compute (ncu) not found (looked at " + where + "); --ncu PATH sets it";
}

std::string parse_ncu_version(std::string_view out)
{
    const std::size_t at = out.find("Version ");
    if (at == std::string_view::npos)
        return {};
    std::size_t begin = at + 8;
    std::size_t end = begin;
    while (end < out.size() && (std::isdigit(static_cast<unsigned char>(out[end])) || out[end] == '.'))
        ++end;
    return std::string(out.substr(begin, end - begin));
}

std::vector<std::string> ncu_profile_argv(const fs::path& ncu,
                                          const std::vector<std::string>& sections,
                                          const fs::path& log_file,
                                          const fs::path& report_base,
                                          const std::vector<std::string>& app)
{
    std::vector<std::string> argv{ncu.string(), "--profile-from-start", "off", "--clock-control", "none"};
    for (const std::string& s : sections)
    {
        argv.push_back("--section");
        argv.push_back(s);
    }
    argv.insert(argv.end(),
                {"--log-file", log_file.string(), "--export", report_base.string(), "--force-overwrite"});
    argv.insert(argv.end(), app.begin(), app.end());
    return argv;
}

std::vector<std::string> ncu_import_argv(const fs::path& ncu, const fs::path& report, std::string_view page)
{
    return {ncu.string(), "--import", report.string(), "--csv", "--page", std::string(page)};
}

std::optional<std::string> ncu_permission_problem(std::string_view log)
{
    if (log.find("ERR_NVGPUCTRPERM") == std::string_view::npos)
        return std::nullopt;
    return "Nsight Compute may not read this GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or "
           "load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 (docs/nsight.md)";
}

std::string ncu_last_error(std::string_view log)
{
    std::string last;
    std::size_t pos = 0;
    while (pos < log.size())
    {
        std::size_t eol = log.find('\n', pos);
        std::string_view line =
            log.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
        pos = eol == std::string_view::npos ? log.size() : eol + 1;
        constexpr std::string_view prefix = "==ERROR== ";
        if (line.substr(0, prefix.size()) == prefix)
            last = std::string(line.substr(prefix.size()));
    }
    while (!last.empty() && (last.back() == '\r' || last.back() == ' '))
        last.pop_back();
    return last;
}

}  // namespace warpsmith
