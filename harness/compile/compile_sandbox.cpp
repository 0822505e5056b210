#include "harness/compile/compile_sandbox.hpp"

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/secret_redaction.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <mutex>
#include <nvrtc.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char** environ;

namespace warpsmith
{

namespace fs = std::filesystem;

namespace
{

// Debian 12's kernel headers (Linux 6.1) stop at Landlock ABI 2; later rights are spelled here.
#ifndef SYS_landlock_create_ruleset
constexpr long sys_create_ruleset = 444;
constexpr long sys_add_rule = 445;
constexpr long sys_restrict_self = 446;
#else
constexpr long sys_create_ruleset = SYS_landlock_create_ruleset;
constexpr long sys_add_rule = SYS_landlock_add_rule;
constexpr long sys_restrict_self = SYS_landlock_restrict_self;
#endif

constexpr std::uint64_t fs_execute = 1ULL << 0;
constexpr std::uint64_t fs_write_file = 1ULL << 1;
constexpr std::uint64_t fs_read_file = 1ULL << 2;
constexpr std::uint64_t fs_read_dir = 1ULL << 3;
constexpr std::uint64_t fs_abi1 = (1ULL << 13) - 1;   // EXECUTE .. MAKE_SYM
constexpr std::uint64_t fs_refer = 1ULL << 13;        // ABI 2
constexpr std::uint64_t fs_truncate = 1ULL << 14;     // ABI 3
constexpr std::uint64_t fs_ioctl_dev = 1ULL << 15;    // ABI 5
constexpr std::uint64_t net_bind_tcp = 1ULL << 0;     // ABI 4
constexpr std::uint64_t net_connect_tcp = 1ULL << 1;  // ABI 4
constexpr std::uint32_t create_ruleset_version = 1U << 0;
constexpr int rule_path_beneath = 1;

// struct landlock_ruleset_attr as of ABI 4; the size passed tells the kernel which fields exist.
struct ruleset_attr
{
    std::uint64_t handled_access_fs = 0;
    std::uint64_t handled_access_net = 0;
};

struct __attribute__((packed)) path_beneath_attr
{
    std::uint64_t allowed_access = 0;
    std::int32_t parent_fd = -1;
};

// Rights that may be granted on a file (not a directory).
constexpr std::uint64_t file_rights = fs_execute | fs_write_file | fs_read_file | fs_truncate | fs_ioctl_dev;

class fd_guard
{
public:
    explicit fd_guard(int fd) : fd_(fd) {}
    ~fd_guard()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    fd_guard(const fd_guard&) = delete;
    fd_guard& operator=(const fd_guard&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

std::string errno_text(int e)
{
    const char* name = e == ENOSYS       ? "ENOSYS"
                       : e == EOPNOTSUPP ? "EOPNOTSUPP"
                       : e == EPERM      ? "EPERM"
                                         : nullptr;
    std::string s = name ? name : ("errno " + std::to_string(e));
    return s + " (" + std::strerror(e) + ")";
}

// Adds one path rule; a path that does not exist is skipped (not every system has /lib64).
bool add_path_rule(
    int ruleset, const fs::path& path, std::uint64_t rights, std::uint64_t handled, std::string& why)
{
    fd_guard fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (fd.get() < 0)
        return true;
    struct stat st
    {
    };
    if (::fstat(fd.get(), &st) != 0)
        return true;
    rights &= handled;
    if (!S_ISDIR(st.st_mode))
        rights &= file_rights;
    path_beneath_attr attr;
    attr.allowed_access = rights;
    attr.parent_fd = fd.get();
    if (::syscall(sys_add_rule, ruleset, rule_path_beneath, &attr, 0) != 0)
    {
        why = "landlock_add_rule(" + path.string() + "): " + errno_text(errno);
        return false;
    }
    return true;
}

// The running binary itself, not its directory: a binary kept next to a project's .env must not
// open that directory to the kernels it compiles.
fs::path self_binary()
{
    std::error_code ec;
    auto self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : self;
}

// The toolkit that the loaded libnvrtc belongs to: <root>/lib64/libnvrtc.so -> <root>, also for
// <root>/targets/x86_64-linux/lib. libnvrtc-builtins is loaded from beside libnvrtc at the first
// compile, so that directory must stay readable and executable.
std::vector<fs::path> toolkit_directories()
{
    std::vector<fs::path> out;
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) != 0 && info.dli_fname)
    {
        std::error_code ec;
        auto lib = fs::canonical(info.dli_fname, ec);
        if (!ec)
        {
            out.push_back(lib.parent_path());
            out.push_back(lib.parent_path().parent_path());
        }
    }
    for (const auto& dir : cuda_include_dirs())
        out.push_back(dir);
    return out;
}

std::mutex sandbox_mutex;
bool sandbox_entered = false;
std::optional<sandbox_outcome> sandbox_result;

}  // namespace

std::vector<std::string> current_environment()
{
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e)
        out.emplace_back(*e);
    return out;
}

std::vector<std::string> compile_worker_environment(const std::vector<std::string>& current,
                                                    const fs::path& sandbox_dir,
                                                    const std::vector<std::string>& extra_secret_names)
{
    std::vector<std::string> out;
    for (auto& entry : environment_without_secrets(current, extra_secret_names))
    {
        const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
        if (name == "TMPDIR" || name == compile_sandbox_variable)
            continue;
        out.push_back(std::move(entry));
    }
    out.push_back("TMPDIR=" + sandbox_dir.string());
    out.push_back(std::string(compile_sandbox_variable) + "=" + sandbox_dir.string());
    return out;
}

sandbox_rules compile_sandbox_rules(const fs::path& sandbox_dir, const std::optional<fs::path>& cache_dir)
{
    sandbox_rules r;
    r.read = toolkit_directories();
    for (const char* p :
         {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime", "/dev/urandom"})
        r.read.emplace_back(p);
    if (auto self = self_binary(); !self.empty())
        r.read.push_back(self);
    r.read_write.push_back(sandbox_dir);
    r.read_write.emplace_back("/dev/null");
    if (cache_dir)
        r.read_write.push_back(*cache_dir);
    return r;
}

std::string_view to_string(sandbox_outcome::state s)
{
    switch (s)
    {
        case sandbox_outcome::state::applied:
            return "applied";
        case sandbox_outcome::state::unavailable:
            return "unavailable";
        case sandbox_outcome::state::failed:
            break;
    }
    return "failed";
}

int landlock_abi_version()
{
    const long abi = ::syscall(sys_create_ruleset, nullptr, 0, create_ruleset_version);
    return abi < 0 ? 0 : static_cast<int>(abi);
}

sandbox_outcome restrict_file_access(const sandbox_rules& rules)
{
    sandbox_outcome out;
    const long abi = ::syscall(sys_create_ruleset, nullptr, 0, create_ruleset_version);
    if (abi < 0)
    {
        const int e = errno;
        out.status = (e == ENOSYS || e == EOPNOTSUPP) ? sandbox_outcome::state::unavailable
                                                      : sandbox_outcome::state::failed;
        out.detail = "landlock_create_ruleset: " + errno_text(e);
        return out;
    }
    out.abi = static_cast<int>(abi);

    ruleset_attr attr;
    attr.handled_access_fs = fs_abi1;
    if (abi >= 2)
        attr.handled_access_fs |= fs_refer;
    if (abi >= 3)
        attr.handled_access_fs |= fs_truncate;
    if (abi >= 5)
        attr.handled_access_fs |= fs_ioctl_dev;
    std::size_t attr_size = sizeof(std::uint64_t);
    if (abi >= 4)
    {
        // No TCP rule is added, so binding and connecting are denied outright.
        attr.handled_access_net = net_bind_tcp | net_connect_tcp;
        attr_size = sizeof(attr);
    }
    fd_guard ruleset(static_cast<int>(::syscall(sys_create_ruleset, &attr, attr_size, 0)));
    if (ruleset.get() < 0)
    {
        out.detail = "landlock_create_ruleset: " + errno_text(errno);
        return out;
    }
    const std::uint64_t read_rights = fs_read_file | fs_read_dir | fs_execute;
    for (const auto& p : rules.read)
    {
        if (!add_path_rule(ruleset.get(), p, read_rights, attr.handled_access_fs, out.detail))
            return out;
    }
    for (const auto& p : rules.read_write)
    {
        if (!add_path_rule(
                ruleset.get(), p, attr.handled_access_fs & ~fs_execute, attr.handled_access_fs, out.detail))
            return out;
    }
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    {
        out.detail = "prctl(PR_SET_NO_NEW_PRIVS): " + errno_text(errno);
        return out;
    }
    if (::syscall(sys_restrict_self, ruleset.get(), 0) != 0)
    {
        out.detail = "landlock_restrict_self: " + errno_text(errno);
        return out;
    }
    out.status = sandbox_outcome::state::applied;
    return out;
}

void enter_compile_sandbox_if_requested(const std::optional<fs::path>& cache_dir)
{
    std::lock_guard lock(sandbox_mutex);
    if (sandbox_entered)
        return;
    sandbox_entered = true;
    const char* dir = std::getenv(std::string(compile_sandbox_variable).c_str());
    if (!dir || !*dir)
        return;
    const fs::path sandbox_dir(dir);
    std::error_code ec;
    fs::create_directories(sandbox_dir, ec);
    if (::chdir(sandbox_dir.c_str()) != 0)
        std::fprintf(stderr,
                     "warpsmith-worker: warning: cannot change into the compile sandbox %s: %s\n",
                     sandbox_dir.c_str(),
                     std::strerror(errno));
    if (cache_dir)
        fs::create_directories(*cache_dir, ec);
    // The toolkit include directories are resolved (and cached) before the file system closes.
    (void)fixed_compile_options("sm_90");
    sandbox_result = restrict_file_access(compile_sandbox_rules(sandbox_dir, cache_dir));
    if (sandbox_result->status != sandbox_outcome::state::applied)
    {
        std::fprintf(
            stderr,
            "warpsmith-worker: warning: no Landlock file-system sandbox for compiles (%s); compiling "
            "with a clean environment and working directory only\n",
            sandbox_result->detail.c_str());
        std::fflush(stderr);
    }
}

std::optional<sandbox_outcome> compile_sandbox_outcome()
{
    std::lock_guard lock(sandbox_mutex);
    return sandbox_result;
}

sandbox_outcome enter_compile_sandbox_on_this_thread(const std::optional<fs::path>& cache_dir)
{
    thread_local std::optional<sandbox_outcome> entered;
    if (entered)
        return *entered;
    std::error_code ec;
    if (cache_dir)
        fs::create_directories(*cache_dir, ec);
    {
        // The toolkit include directories are resolved (and cached) before this thread's view of
        // the file system closes.
        std::lock_guard lock(sandbox_mutex);
        (void)fixed_compile_options("sm_90");
    }
    entered = restrict_file_access(compile_sandbox_rules({}, cache_dir));
    return *entered;
}

}  // namespace warpsmith
