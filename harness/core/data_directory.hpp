#pragma once

// Where warpsmith's bundled read-only data lives: the guidance notes the nvidia_docs tool serves
// (guidance/) and the bench workloads (workloads/). An installed warpsmith keeps them in
// <prefix>/share/warpsmith beside <prefix>/bin; the build tree mirrors that layout with links into
// the source tree (build/share/warpsmith), so both find their data the same way and neither needs
// the source tree's location compiled in.

#include <filesystem>
#include <optional>

namespace warpsmith
{

/// $WARPSMITH_DATA_DIR when set, else the share/warpsmith directory that belongs to the running
/// executable (its directory joined with the install layout's bin -> share/warpsmith path) when
/// that directory exists; nullopt otherwise (a binary copied away from its tree).
std::optional<std::filesystem::path> data_directory();

/// The directory of the running executable (/proc/self/exe); empty when it cannot be read.
std::filesystem::path executable_directory();

}  // namespace warpsmith
