#pragma once

// Paths tests need: the source tree (workloads, cheat kernels), the build tree (warpsmith and
// warpsmith-worker binaries) and scratch directories that clean up after themselves.

#include <filesystem>
#include <string>

namespace warpsmith::test
{

std::filesystem::path source_dir();
std::filesystem::path binary_dir();
/// The directory holding warpsmith and warpsmith-worker ($WARPSMITH_BIN_DIR, else <build>/bin).
std::filesystem::path bin_dir();

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class temp_dir
{
public:
    explicit temp_dir(const std::string& prefix = "warpsmith-test");
    ~temp_dir();
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace warpsmith::test
