#include "harness/core/log.hpp"

#include <mutex>

namespace warpsmith
{

namespace
{
log_sink g_sink;
log_level g_min = log_level::info;
std::mutex g_mutex;
}  // namespace

void set_log_sink(log_sink sink, log_level min_level)
{
    std::lock_guard lock(g_mutex);
    g_sink = std::move(sink);
    g_min = min_level;
}

void log(log_level level, std::string_view message)
{
    std::lock_guard lock(g_mutex);
    if (g_sink && level >= g_min)
        g_sink(level, message);
}

}  // namespace warpsmith
