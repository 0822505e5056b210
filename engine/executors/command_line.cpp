#include "engine/executors/command_line.hpp"

#include <cstdlib>
#include <unistd.h>

namespace warpsmith
{

std::string shell_quote(const std::string& arg)
{
    bool plain = !arg.empty();
    for (char c : arg)
    {
        bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',';
        plain = plain && safe;
    }
    if (plain)
        return arg;
    std::string out = "'";
    for (char c : arg)
    {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += "'";
    return out;
}

std::vector<std::filesystem::path> path_directories(std::string_view path_list)
{
    std::vector<std::filesystem::path> dirs;
    std::string_view rest = path_list;
    while (!rest.empty())
    {
        auto colon = rest.find(':');
        std::string_view dir = rest.substr(0, colon);
        rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        if (!dir.empty())
            dirs.emplace_back(std::string(dir));
    }
    return dirs;
}

std::optional<std::filesystem::path> find_on_path(std::string_view path_list, const std::string& name)
{
    for (const auto& dir : path_directories(path_list))
    {
        auto p = dir / name;
        if (::access(p.c_str(), X_OK) == 0)
            return p;
    }
    return std::nullopt;
}

std::optional<std::filesystem::path> resolve_program(const std::string& name)
{
    if (name.find('/') != std::string::npos)
    {
        if (::access(name.c_str(), X_OK) == 0)
            return std::filesystem::path(name);
        return std::nullopt;
    }
    const char* path = std::getenv("PATH");
    return find_on_path(path ? path : "/usr/local/bin:/usr/bin:/bin", name);
}

}  // namespace warpsmith
