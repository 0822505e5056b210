#pragma once

// Compile workers run where the secrets are not (docs/hardening.md, "Model code reads no host file").
// The include policy (include_policy.hpp) is a textual check; this is what holds when a kernel gets
// past it (an identifier built by token pasting, a reading of the source no compiler uses):
//
//   - the compile pool starts each `warpsmith-worker --compile` with an environment without
//     credentials (compile_worker_environment) in an empty temporary directory, and names that
//     directory in WARPSMITH_COMPILE_SANDBOX;
//   - the worker, before its first compile (nvrtc_compiler::compile calls
//     enter_compile_sandbox_if_requested), restricts itself with a Landlock ruleset: read and
//     execute only in the CUDA toolkit, the system library directories the dynamic loader needs,
//     /etc/ld.so.cache, /etc/localtime and its own binary's directory; read /dev/urandom; read and
//     write /dev/null, the temporary directory and the compile cache; no TCP at all (Landlock ABI 4
//     and later).
//
// Where the kernel has no Landlock (ENOSYS, or EOPNOTSUPP when it is disabled), the worker writes one
// warning line to stderr and compiles without the file-system sandbox; the environment and the
// working directory are still clean. Landlock restricts the calling thread and the threads and
// processes it starts later; the compile worker compiles on its main thread.
//
// In-process compiles in the CLI, which holds the key (the compile pool's threads, and the thread
// `warpsmith compile` compiles on), use the per-thread form, enter_compile_sandbox_on_this_thread.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// The variable through which the compile pool asks a compile worker to sandbox itself; its value
/// is the worker's empty temporary directory. Internal: set only by compile_worker_environment.
inline constexpr std::string_view compile_sandbox_variable = "WARPSMITH_COMPILE_SANDBOX";

/// This process's environment as NAME=VALUE strings.
std::vector<std::string> current_environment();

/// The environment for a compile worker: `current` without every variable whose name
/// is_secret_variable_name() or appears in extra_secret_names, and without every variable whose
/// value is a registered secret (secret_redaction.hpp: the API key however it was named); with
/// TMPDIR and WARPSMITH_COMPILE_SANDBOX set to sandbox_dir.
std::vector<std::string> compile_worker_environment(const std::vector<std::string>& current,
                                                    const std::filesystem::path& sandbox_dir,
                                                    const std::vector<std::string>& extra_secret_names = {});

/// What the sandbox grants.
struct sandbox_rules
{
    std::vector<std::filesystem::path> read;        ///< Read (and execute) only.
    std::vector<std::filesystem::path> read_write;  ///< Read, write, create and remove.
};

/// The rules of a compile worker whose temporary directory is sandbox_dir and whose compile cache
/// (when it has one) is cache_dir. Paths that do not exist are left out when the rules are applied.
sandbox_rules compile_sandbox_rules(const std::filesystem::path& sandbox_dir,
                                    const std::optional<std::filesystem::path>& cache_dir);

struct sandbox_outcome
{
    enum class state
    {
        applied,      ///< The ruleset holds for the calling thread from now on.
        unavailable,  ///< The kernel has no Landlock (ENOSYS) or has it disabled (EOPNOTSUPP).
        failed,       ///< Landlock exists but a step failed; nothing was restricted.
    };
    state status = state::failed;
    int abi = 0;         ///< The kernel's Landlock ABI version, 0 when unavailable.
    std::string detail;  ///< Why not, for the warning line.
};

/// "applied", "unavailable" or "failed".
std::string_view to_string(sandbox_outcome::state s);

/// The kernel's Landlock ABI version; 0 when it has none or has it disabled.
int landlock_abi_version();

/// Restricts the calling thread (and what it starts later) to rules with Landlock, after setting
/// no_new_privs. Irreversible.
sandbox_outcome restrict_file_access(const sandbox_rules& rules);

/// Once per process, and only when WARPSMITH_COMPILE_SANDBOX names a directory: changes into it
/// and applies compile_sandbox_rules(that directory, cache_dir). Where Landlock is unavailable or
/// fails, writes one warning line to stderr and returns. Later calls do nothing.
void enter_compile_sandbox_if_requested(const std::optional<std::filesystem::path>& cache_dir);

/// The outcome of enter_compile_sandbox_if_requested in this process; nullopt when it has not
/// sandboxed (not asked, or not yet).
std::optional<sandbox_outcome> compile_sandbox_outcome();

/// For compiles in a process that holds secrets (the compile pool's in-process mode, `warpsmith
/// compile`): restricts the
/// calling thread, once, to what a compile needs, the rules of compile_sandbox_rules without a
/// temporary directory (read and write only /dev/null and cache_dir). Landlock binds the thread, not
/// the process, so the caller's other threads keep their access; a thread that compiles must not do
/// anything else later. Returns the outcome of the first call on this thread every time.
sandbox_outcome enter_compile_sandbox_on_this_thread(const std::optional<std::filesystem::path>& cache_dir);

}  // namespace warpsmith
