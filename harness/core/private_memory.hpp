#pragma once

// A process that holds a secret keeps its memory to itself (docs/hardening.md, "The CLI's memory").
// The warpsmith program holds the model API key (from the environment or ./.env); a core file of it
// would hold the key, and so would its /proc/<pid>/environ and /proc/<pid>/mem, which every other
// process of the same user may read, a GPU worker running a candidate's code included.

#include <string>

namespace warpsmith
{

/// What keep_memory_private() did not manage: empty when every step took effect.
struct private_memory_outcome
{
    std::string problem;  ///< One line per step that failed, e.g. "prctl(PR_SET_DUMPABLE, 0): ...".

    bool ok() const { return problem.empty(); }
};

/// Makes the calling process write no core file (RLIMIT_CORE 0, soft and hard, so nothing can raise
/// it again) and not dumpable (PR_SET_DUMPABLE 0: other processes of the same user can no longer
/// read its /proc/<pid>/environ, mem or maps, nor ptrace it). Call it at startup, before a secret is
/// read. execve makes a child dumpable again, so workers the process starts stay inspectable and
/// killable (compute-sanitizer and Nsight Compute wrap workers, never this process); they inherit
/// the core limit of 0. On systems other than Linux only the core limit is set.
private_memory_outcome keep_memory_private();

}  // namespace warpsmith
