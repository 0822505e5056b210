#pragma once

// The logging seam (after Boost.Redis): library code logs through a level + sink that the program
// binds to spdlog at start-up (see engine/cli/main.cpp and harness/worker/main.cpp). Tests can bind
// a sink that records lines. Nothing below the programs' main() includes spdlog.

#include <functional>
#include <string>
#include <string_view>

namespace warpsmith
{

enum class log_level
{
    debug,
    info,
    warn,
    error,
};

using log_sink = std::function<void(log_level, std::string_view)>;

/// Installs the process-wide sink (not thread-safe against concurrent logging; call at start-up).
void set_log_sink(log_sink sink, log_level min_level = log_level::info);

/// Logs one message through the installed sink (no-op without one). Thread-safe.
void log(log_level level, std::string_view message);

inline void log_debug(std::string_view m)
{
    log(log_level::debug, m);
}
inline void log_info(std::string_view m)
{
    log(log_level::info, m);
}
inline void log_warn(std::string_view m)
{
    log(log_level::warn, m);
}
inline void log_error(std::string_view m)
{
    log(log_level::error, m);
}

}  // namespace warpsmith
