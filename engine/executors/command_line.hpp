#pragma once

// The command lines of child programs: finding a program on PATH, and quoting arguments for
// /bin/sh. Shared by worker processes (worker_process.cpp), worker command templates
// (worker_launch.cpp) and the compute-sanitizer command (sanitizer.cpp).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// Quotes one argument for /bin/sh so that it reaches the program unchanged: as it is when it holds
/// only characters the shell leaves alone, else in single quotes.
std::string shell_quote(const std::string& arg);

/// The non-empty directories of a PATH-style list ("/usr/bin::/bin" -> /usr/bin, /bin), in order.
std::vector<std::filesystem::path> path_directories(std::string_view path_list);

/// The first `dir/name` over the directories of `path_list` that this process may execute.
std::optional<std::filesystem::path> find_on_path(std::string_view path_list, const std::string& name);

/// argv[0] as a path to execute: as given when it contains a '/', else looked up on PATH.
std::optional<std::filesystem::path> resolve_program(const std::string& name);

}  // namespace warpsmith
