#include "harness/core/private_memory.hpp"

#include <cerrno>
#include <cstring>
#include <sys/resource.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace warpsmith
{

private_memory_outcome keep_memory_private()
{
    private_memory_outcome out;
    auto failed = [&out](const char* step)
    { out.problem += (out.problem.empty() ? "" : "; ") + std::string(step) + ": " + std::strerror(errno); };
    const rlimit no_core{0, 0};
    if (::setrlimit(RLIMIT_CORE, &no_core) != 0)
        failed("setrlimit(RLIMIT_CORE, 0)");
#if defined(__linux__)
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        failed("prctl(PR_SET_DUMPABLE, 0)");
#endif
    return out;
}

}  // namespace warpsmith
