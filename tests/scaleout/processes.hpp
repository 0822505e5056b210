#pragma once

// Processes for the scale-out tests: daemons and the warpsmith run in the background, short
// commands (ssh-keygen, sinfo, scancel) in the foreground, free loopback ports, and the process
// table (/proc) to find the one process a test interrupts.

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warpsmith::test
{

/// A child started with fork/exec: stdin from /dev/null, stdout and stderr appended to one file.
/// It receives SIGKILL when the test process dies (PR_SET_PDEATHSIG), so a test killed by ctest's
/// timeout leaves no daemon behind; the destructor stops it (SIGTERM, then SIGKILL) and reaps it.
class background_process
{
public:
    background_process(std::vector<std::string> argv,
                       const std::filesystem::path& output,
                       const std::filesystem::path& cwd = {});
    ~background_process();
    background_process(const background_process&) = delete;
    background_process& operator=(const background_process&) = delete;

    pid_t pid() const { return pid_; }
    /// Whether it still runs (reaps it when it has exited).
    bool running();
    /// Waits up to timeout for it to exit. Returns the exit code (128 + N after signal N), or
    /// nullopt when it still runs.
    std::optional<int> wait(std::chrono::milliseconds timeout);
    /// SIGTERM, up to grace to exit, then SIGKILL; reaps it. Returns the exit code.
    int stop(std::chrono::milliseconds grace = std::chrono::seconds(5));
    const std::filesystem::path& output() const { return output_; }
    const std::string& name() const { return name_; }

private:
    pid_t pid_ = -1;
    std::optional<int> exit_code_;
    std::filesystem::path output_;
    std::string name_;
};

struct command_result
{
    int rc = -1;
    std::string output;  ///< stdout and stderr together.
};

/// Runs argv to completion (stdin from /dev/null) and returns its exit code and output. A command
/// still running after timeout is killed (rc -1).
command_result run_command(const std::vector<std::string>& argv,
                           std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
int free_loopback_port();

/// The absolute path of an installed program: a name searched on PATH and in the sbin directories
/// (where sshd and the Slurm daemons live, often not on a user's PATH); empty when absent.
std::filesystem::path find_program(const std::string& name);

/// Polls condition every 20 ms until it holds (true) or timeout passes (false).
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

/// The process table, read from /proc.
namespace proc
{

/// The parent of pid, or -1 when pid is gone.
pid_t parent_of(pid_t pid);
/// The command name (/proc/PID/comm: "sshd", "ssh", "srun"), empty when pid is gone.
std::string name_of(pid_t pid);
/// The arguments joined by spaces, empty when pid is gone.
std::string command_line_of(pid_t pid);
/// One variable of pid's environment, when set.
std::optional<std::string> environment_variable(pid_t pid, const std::string& name);
/// Whether pid runs (a zombie has finished: it only waits to be reaped).
bool alive(pid_t pid);
/// Every live process for which match(pid) holds.
std::vector<pid_t> find(const std::function<bool(pid_t)>& match);
/// The nearest ancestor of pid (pid excluded) called name, or -1.
pid_t ancestor_named(pid_t pid, const std::string& name);
/// Every live descendant of pid.
std::vector<pid_t> descendants(pid_t pid);

}  // namespace proc

}  // namespace warpsmith::test
