// The warpsmith program keeps its memory to itself (docs/hardening.md, "The CLI's memory"): it holds
// the model API key, so it writes no core file and is not dumpable, which closes its memory to other
// processes of the same user. Its workers are started by execve and stay ordinary (inspectable,
// killable). The CLI is run for real: `device-info` with a --worker-cmd that records its shell's pid
// and then waits until the test has looked at both.

#include "tests/engine/cli/cli_test_support.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

/// Waits for `file` to hold a whole line, for at most 30 s; its first word, or "" at the deadline.
std::string wait_for_line(const fs::path& file)
{
    for (int i = 0; i < 600; ++i)
    {
        const auto text = slurp(file);
        if (!text.empty() && text.back() == '\n')
            return text.substr(0, text.find_first_of(" \n"));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "";
}

/// The soft and hard limit of "Max core file size" in /proc/<pid>/limits ("0 0"), or "" when absent.
std::string core_limits(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("Max core file size", 0) == 0)
        {
            std::istringstream words(line.substr(std::string("Max core file size").size()));
            std::string soft, hard;
            words >> soft >> hard;
            return soft + " " + hard;
        }
    return "";
}

/// Whether a process of this user without CAP_SYS_PTRACE may open /proc/<pid>/mem (what a same-user
/// process needs to read another's memory or attach to it): a forked child drops the capability
/// and tries. For a target as privileged as the prober (the CLI is started without CAP_SYS_PTRACE
/// too, see start_cli), only dumpability decides: a non-dumpable process refuses it.
bool memory_open_to_same_user(pid_t pid)
{
    const std::string path = "/proc/" + std::to_string(pid) + "/mem";
    const pid_t child = ::fork();
    if (child == 0)
    {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[2]{};
        if (::syscall(SYS_capget, &header, data) != 0)
            ::_exit(3);
        data[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective &= ~CAP_TO_MASK(CAP_SYS_PTRACE);
        if (::syscall(SYS_capset, &header, data) != 0)
            ::_exit(3);
        const int fd = ::open(path.c_str(), O_RDONLY);
        ::_exit(fd >= 0 ? 0 : (errno == EACCES || errno == EPERM) ? 1 : 4);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    BOOST_REQUIRE_MESSAGE(WIFEXITED(status) && WEXITSTATUS(status) <= 1,
                          "the probe of " << path << " failed (status " << status << ")");
    return WEXITSTATUS(status) == 0;
}

/// Starts `warpsmith args...` in cwd (stdout and stderr to files there). Without CAP_SYS_PTRACE in
/// its bounding set (where the tests run as root), so that a prober without the capability is
/// refused by nothing but the CLI's dumpability; its workers inherit that.
pid_t start_cli(const std::vector<std::string>& args, const fs::path& cwd)
{
    std::vector<std::string> argv_text{(bin_dir() / "warpsmith").string()};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = (cwd / "out").string(), err = (cwd / "err").string();
    const pid_t pid = ::fork();
    if (pid == 0)
    {
        ::prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0);  // Fails harmlessly without the capability.
        const int in = ::open("/dev/null", O_RDONLY);
        const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || o < 0 || e < 0 || ::dup2(in, 0) < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0 ||
            ::chdir(cwd.c_str()) != 0)
            ::_exit(126);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return pid;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_private_memory_suite)

BOOST_AUTO_TEST_CASE(the_cli_writes_no_core_and_is_not_dumpable_while_its_workers_are)
{
    temp_dir cwd;
    // {device} keeps the launcher from appending "--device K". The shell is the worker: it records
    // its pid and its parent's (the CLI) and waits for "release" (at most 30 s), so the CLI stays
    // in device-info, waiting for the worker's hello, while the test looks.
    const std::string worker_cmd =
        ": {device}; echo \"$$ $PPID\" > worker.tmp && mv worker.tmp worker.pid; "
        "i=0; while [ ! -e release ] && [ $i -lt 600 ]; do sleep 0.05; "
        "i=$((i+1)); done; exit 3";
    const pid_t cli = start_cli({"device-info", "--worker-cmd", worker_cmd}, cwd.path());
    BOOST_REQUIRE(cli > 0);

    const auto pids = wait_for_line(cwd.path() / "worker.pid");
    const bool started = !pids.empty();
    if (started)
    {
        const std::string parent = slurp(cwd.path() / "worker.pid").substr(pids.size() + 1);
        const pid_t worker = static_cast<pid_t>(std::stol(pids));
        BOOST_TEST(std::stol(parent) == cli, "the worker's parent is " << parent << ", not the CLI " << cli);
        BOOST_TEST(core_limits(cli) == "0 0", "the CLI's core limits: " << core_limits(cli));
        // The control first: the worker, started by execve, is dumpable again and open to the
        // same user (compute-sanitizer and Nsight Compute need that of the workers they wrap).
        BOOST_TEST(memory_open_to_same_user(worker), "the worker's memory is closed to the same user");
        BOOST_TEST(!memory_open_to_same_user(cli), "the CLI's memory is open to the same user");
    }
    std::ofstream(cwd.path() / "release") << "\n";
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 600 && !(exited = ::waitpid(cli, &status, WNOHANG) == cli); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!exited)
    {
        ::kill(cli, SIGKILL);
        ::waitpid(cli, &status, 0);
    }
    BOOST_REQUIRE_MESSAGE(started, "the worker never started; stderr: " << slurp(cwd.path() / "err"));
    BOOST_TEST(exited, "the CLI did not end after its worker did");
}

BOOST_AUTO_TEST_SUITE_END()
