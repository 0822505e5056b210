#include "tests/scaleout/loopback_sshd.hpp"

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <fstream>
#include <pwd.h>
#include <sstream>
#include <unistd.h>

namespace warpsmith::test
{

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace
{

std::string current_user()
{
    const passwd* pw = ::getpwuid(::geteuid());
    return pw ? pw->pw_name : std::to_string(::geteuid());
}

void generate_key(const fs::path& file)
{
    const auto r = run_command(
        {find_program("ssh-keygen").string(), "-q", "-t", "ed25519", "-N", "", "-f", file.string()});
    BOOST_REQUIRE_MESSAGE(r.rc == 0, "ssh-keygen failed: " << r.output);
}

/// sshd started by root separates privileges in a chroot at /run/sshd, a path compiled into it
/// that the system's service manager normally creates; a container may not have it yet.
void ensure_privilege_separation_directory()
{
    if (::geteuid() != 0 || fs::is_directory("/run/sshd"))
        return;
    fs::create_directories("/run/sshd");
    fs::permissions("/run/sshd",
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec);
}

}  // namespace

std::string loopback_sshd::missing_programs()
{
    std::string missing;
    for (const char* p : {"sshd", "ssh", "ssh-keygen"})
        if (find_program(p).empty())
            missing += missing.empty() ? p : std::string(", ") + p;
    return missing.empty() ? "" : "not installed: " + missing + " (Debian: openssh-server, openssh-client)";
}

loopback_sshd::loopback_sshd() : dir_("warpsmith-sshd")
{
    fs::permissions(dir_.path(), fs::perms::owner_all);
    generate_key(dir_.path() / "host_key");
    generate_key(dir_.path() / "user_key");
    fs::copy_file(dir_.path() / "user_key.pub", dir_.path() / "authorized_keys");
    ensure_privilege_separation_directory();

    bool started = false;
    for (int attempt = 0; attempt < 3 && !started; ++attempt)
        started = start_on_free_port();
    BOOST_REQUIRE_MESSAGE(started, "sshd did not start; its log:\n" << log());

    // A real login, so that a configuration sshd accepts but that refuses the key fails here, by name.
    const auto login = run_command({"/bin/sh", "-c", ssh_command() + " echo logged-in"});
    BOOST_REQUIRE_MESSAGE(login.rc == 0 && login.output.find("logged-in") != std::string::npos,
                          "ssh to the test's sshd failed (" << login.rc << "): " << login.output
                                                            << "\nsshd's log:\n"
                                                            << log());
}

bool loopback_sshd::start_on_free_port()
{
    port_ = free_loopback_port();
    const fs::path d = dir_.path();
    {
        std::ofstream c(d / "sshd_config");
        c << "# Written by the scale-out test: loopback only, keys from this directory.\n"
          << "ListenAddress 127.0.0.1\n"
          << "Port " << port_ << "\n"
          << "HostKey " << (d / "host_key").string() << "\n"
          << "PidFile " << (d / "sshd.pid").string() << "\n"
          << "AuthorizedKeysFile " << (d / "authorized_keys").string() << "\n"
          << "AllowUsers " << current_user() << "\n"
          << "PubkeyAuthentication yes\n"
          << "PasswordAuthentication no\n"
          << "KbdInteractiveAuthentication no\n"
          // No PAM: its session modules expect a system login, which a test is not.
          << "UsePAM no\n"
          // As root (CI), a login with a key is what the test needs; passwords stay refused.
          << "PermitRootLogin prohibit-password\n"
          // The keys live under the system's temp directory, which everybody may write to, so
          // StrictModes would refuse them; the directory itself is the test's alone (0700).
          << "StrictModes no\n"
          << "LogLevel VERBOSE\n";
    }
    const fs::path sshd = fs::absolute(find_program("sshd"));  // sshd re-executes itself by this path
    server_ = std::make_unique<background_process>(
        std::vector<std::string>{sshd.string(), "-D", "-e", "-f", (d / "sshd_config").string()},
        d / "sshd.log");
    const std::string listening = "Server listening on 127.0.0.1 port " + std::to_string(port_);
    wait_until([&] { return log().find(listening) != std::string::npos || !server_->running(); }, 60s);
    return server_->running() && log().find(listening) != std::string::npos;
}

loopback_sshd::~loopback_sshd()
{
    if (!server_)
        return;
    for (pid_t p : proc::descendants(server_->pid()))
        ::kill(p, SIGKILL);
    server_->stop();
}

std::string loopback_sshd::ssh_command() const
{
    // -F /dev/null: no user or system client configuration changes what the test runs.
    return find_program("ssh").string() + " -F /dev/null -p " + std::to_string(port_) + " -i " +
           (dir_.path() / "user_key").string() +
           " -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
           " -o BatchMode=yes -o LogLevel=ERROR 127.0.0.1";
}

pid_t loopback_sshd::session_of(pid_t pid) const
{
    const pid_t session = proc::ancestor_named(pid, "sshd");
    if (session <= 0 || session == this->pid())
        return -1;
    for (pid_t a = proc::parent_of(session); a > 1; a = proc::parent_of(a))
        if (a == this->pid())
            return session;
    return -1;
}

std::string loopback_sshd::log() const
{
    std::ifstream in(dir_.path() / "sshd.log");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace warpsmith::test
