#include "harness/core/data_directory.hpp"

#include <cstdlib>
#include <system_error>

#ifndef WARPSMITH_DATA_FROM_BIN
#error "WARPSMITH_DATA_FROM_BIN (the install layout's path from bin to share/warpsmith) must be defined"
#endif

namespace warpsmith
{

namespace fs = std::filesystem;

fs::path executable_directory()
{
    std::error_code ec;
    auto self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : self.parent_path();
}

std::optional<fs::path> data_directory()
{
    if (const char* dir = std::getenv("WARPSMITH_DATA_DIR"); dir && *dir)
        return fs::path(dir);
    const auto bin = executable_directory();
    if (bin.empty())
        return std::nullopt;
    auto candidate = (bin / WARPSMITH_DATA_FROM_BIN).lexically_normal();
    std::error_code ec;
    if (fs::is_directory(candidate, ec))
        return candidate;
    return std::nullopt;
}

}  // namespace warpsmith
