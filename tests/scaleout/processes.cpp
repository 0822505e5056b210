#include "tests/scaleout/processes.hpp"

#include "tests/support/test_paths.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace warpsmith::test
{

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace
{

int exit_code_of(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_file(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

background_process::background_process(std::vector<std::string> argv,
                                       const fs::path& output,
                                       const fs::path& cwd)
    : output_(output), name_(argv.empty() ? "" : fs::path(argv.front()).filename().string())
{
    if (argv.empty())
        throw std::invalid_argument("background_process: empty argv");
    // Everything the child needs is prepared before fork: between fork and exec only
    // async-signal-safe calls are allowed.
    std::vector<char*> args;
    for (auto& a : argv)
        args.push_back(a.data());
    args.push_back(nullptr);
    const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out < 0 || null_in < 0)
        throw std::runtime_error("background_process: cannot open " + output.string() + " or /dev/null");
    const std::string dir = cwd.string();
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0)
    {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent)
            ::_exit(126);  // The test died between fork and prctl.
        sigset_t none;
        ::sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGPIPE, SIG_DFL);
        ::dup2(null_in, STDIN_FILENO);
        ::dup2(out, STDOUT_FILENO);
        ::dup2(out, STDERR_FILENO);
        if (!dir.empty() && ::chdir(dir.c_str()) != 0)
            ::_exit(126);
        ::execve(args[0], args.data(), environ);
        ::_exit(127);
    }
    const int fork_errno = errno;
    ::close(out);
    ::close(null_in);
    if (pid_ < 0)
        throw std::runtime_error("background_process: fork failed: " +
                                 std::string(std::strerror(fork_errno)));
}

background_process::~background_process()
{
    if (pid_ > 0 && !exit_code_)
        stop(2s);
}

bool background_process::running()
{
    return !wait(0ms);
}

std::optional<int> background_process::wait(std::chrono::milliseconds timeout)
{
    if (exit_code_)
        return exit_code_;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;)
    {
        int status = 0;
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_)
        {
            exit_code_ = exit_code_of(status);
            return exit_code_;
        }
        if (std::chrono::steady_clock::now() >= deadline)
            return std::nullopt;
        std::this_thread::sleep_for(10ms);
    }
}

int background_process::stop(std::chrono::milliseconds grace)
{
    if (exit_code_)
        return *exit_code_;
    ::kill(pid_, SIGTERM);
    if (auto code = wait(grace))
        return *code;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exit_code_ = exit_code_of(status);
    return *exit_code_;
}

command_result run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout)
{
    temp_dir io("warpsmith-command");
    command_result r;
    {
        background_process p(argv, io.path() / "output");
        if (auto code = p.wait(timeout))
            r.rc = *code;
        else
            p.stop(1s);
    }
    r.output = read_file(io.path() / "output");
    return r;
}

int free_loopback_port()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        throw std::runtime_error("free_loopback_port: socket failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    ::close(fd);
    if (!ok)
        throw std::runtime_error("free_loopback_port: bind failed");
    return ntohs(addr.sin_port);
}

fs::path find_program(const std::string& name)
{
    std::string dirs = "/usr/local/sbin:/usr/sbin:/sbin";
    if (const char* path = std::getenv("PATH"))
        dirs = std::string(path) + ":" + dirs;
    std::istringstream ss(dirs);
    std::string dir;
    while (std::getline(ss, dir, ':'))
    {
        if (dir.empty())
            continue;
        const fs::path p = fs::path(dir) / name;
        if (::access(p.c_str(), X_OK) == 0)
            return p;
    }
    return {};
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;)
    {
        if (condition())
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(20ms);
    }
}

namespace proc
{

namespace
{

fs::path entry(pid_t pid)
{
    return fs::path("/proc") / std::to_string(pid);
}

/// The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses):
/// state, ppid, ...
std::vector<std::string> stat_fields(pid_t pid)
{
    const std::string stat = read_file(entry(pid) / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos)
        return {};
    std::istringstream ss(stat.substr(close + 1));
    std::vector<std::string> fields;
    std::string f;
    while (ss >> f)
        fields.push_back(f);
    return fields;
}

std::vector<pid_t> all_pids()
{
    std::vector<pid_t> out;
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec))
    {
        const std::string n = it->path().filename().string();
        if (!n.empty() && n.find_first_not_of("0123456789") == std::string::npos)
            out.push_back(static_cast<pid_t>(std::stol(n)));
    }
    return out;
}

}  // namespace

pid_t parent_of(pid_t pid)
{
    const auto f = stat_fields(pid);
    return f.size() > 1 ? static_cast<pid_t>(std::stol(f[1])) : -1;
}

std::string name_of(pid_t pid)
{
    std::string n = read_file(entry(pid) / "comm");
    if (!n.empty() && n.back() == '\n')
        n.pop_back();
    return n;
}

std::string command_line_of(pid_t pid)
{
    std::string c = read_file(entry(pid) / "cmdline");
    for (char& ch : c)
        if (ch == '\0')
            ch = ' ';
    return c;
}

std::optional<std::string> environment_variable(pid_t pid, const std::string& name)
{
    const std::string env = read_file(entry(pid) / "environ");
    const std::string prefix = name + "=";
    std::size_t pos = 0;
    while (pos < env.size())
    {
        const auto end = env.find('\0', pos);
        const std::string var = env.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        if (var.rfind(prefix, 0) == 0)
            return var.substr(prefix.size());
        if (end == std::string::npos)
            break;
        pos = end + 1;
    }
    return std::nullopt;
}

bool alive(pid_t pid)
{
    const auto f = stat_fields(pid);
    return !f.empty() && f[0] != "Z" && f[0] != "X";
}

std::vector<pid_t> find(const std::function<bool(pid_t)>& match)
{
    std::vector<pid_t> out;
    for (pid_t p : all_pids())
        if (alive(p) && match(p))
            out.push_back(p);
    return out;
}

pid_t ancestor_named(pid_t pid, const std::string& name)
{
    for (pid_t p = parent_of(pid); p > 1; p = parent_of(p))
        if (name_of(p) == name)
            return p;
    return -1;
}

std::vector<pid_t> descendants(pid_t pid)
{
    return find(
        [pid](pid_t p)
        {
            for (pid_t a = parent_of(p); a > 1; a = parent_of(a))
                if (a == pid)
                    return true;
            return false;
        });
}

}  // namespace proc

}  // namespace warpsmith::test
