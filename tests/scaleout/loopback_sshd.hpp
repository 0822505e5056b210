#pragma once

// A private OpenSSH server for one test: listening on 127.0.0.1 on a free port, as the current
// user, with a generated host key and a generated user key authorized in a temporary directory;
// stopped with everything it started when the object goes.

#include "tests/scaleout/processes.hpp"
#include "tests/support/test_paths.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <sys/types.h>

namespace warpsmith::test
{

class loopback_sshd
{
public:
    /// Why this machine cannot run the test (sshd, ssh or ssh-keygen not installed), or empty.
    static std::string missing_programs();

    /// Generates the keys and the configuration, starts sshd -D and waits until a login through
    /// ssh_command() works. Fails the test (with sshd's log) when it does not come up.
    loopback_sshd();
    /// Ends the sessions still open (every process the server started), then the server.
    ~loopback_sshd();
    loopback_sshd(const loopback_sshd&) = delete;
    loopback_sshd& operator=(const loopback_sshd&) = delete;

    /// "ssh -p PORT -i KEY -o ... 127.0.0.1": append the remote command.
    std::string ssh_command() const;
    int port() const { return port_; }
    pid_t pid() const { return server_ ? server_->pid() : -1; }
    /// The sshd process serving the connection that runs `pid` (its nearest sshd ancestor below
    /// this server), or -1.
    pid_t session_of(pid_t pid) const;
    std::string log() const;

private:
    /// Starts sshd on a new free port; false when it exits at once (the port was taken meanwhile).
    bool start_on_free_port();

    temp_dir dir_;
    int port_ = 0;
    std::unique_ptr<background_process> server_;
};

}  // namespace warpsmith::test
