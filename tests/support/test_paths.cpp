#include "tests/support/test_paths.hpp"

#include <cstdlib>
#include <random>

namespace warpsmith::test
{

// Both paths can be overridden from the environment because a build carried to another machine
// (scripts/gpu-test on the GPU host) finds the source tree somewhere else.
std::filesystem::path source_dir()
{
    if (const char* env = std::getenv("WARPSMITH_SOURCE_DIR"); env && *env)
        return env;
    return WARPSMITH_SOURCE_DIR;
}
std::filesystem::path binary_dir()
{
    return WARPSMITH_BINARY_DIR;
}

std::filesystem::path bin_dir()
{
    if (const char* env = std::getenv("WARPSMITH_BIN_DIR"); env && *env)
        return env;
    return binary_dir() / "bin";
}

temp_dir::temp_dir(const std::string& prefix)
{
    std::random_device rd;
    for (int attempt = 0; attempt < 100; ++attempt)
    {
        auto candidate = std::filesystem::temp_directory_path() /
                         (prefix + "-" + std::to_string(rd()) + std::to_string(attempt));
        if (std::filesystem::create_directory(candidate))
        {
            path_ = candidate;
            return;
        }
    }
    throw std::runtime_error("cannot create a temporary directory");
}

temp_dir::~temp_dir()
{
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

}  // namespace warpsmith::test
