// Scale-out through ssh, for real on loopback (docs/executors.md, "Scale-out"): a private sshd on
// 127.0.0.1, and `warpsmith optimize --gpus 0,1 --worker-cmd "ssh ... 127.0.0.1 fake_worker ...
// --device {device}"`. Candidates spread over both workers; one connection is killed on the server
// side (the sshd process serving it) and one on the client side (the ssh warpsmith started), each
// while its worker evaluates a candidate; both workers are restarted and no result is lost.
// Exits 77 (ctest: skipped) where OpenSSH is not installed.

#include "tests/scaleout/loopback_sshd.hpp"
#include "tests/scaleout/scaleout_search.hpp"

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>

using namespace warpsmith::test;
using namespace std::chrono_literals;

namespace
{

struct require_openssh
{
    require_openssh() { skip_unless_ready(loopback_sshd::missing_programs()); }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(require_openssh);

BOOST_AUTO_TEST_SUITE(scaleout_ssh_suite)

BOOST_AUTO_TEST_CASE(workers_behind_ssh_share_the_search_and_survive_killed_connections)
{
    loopback_sshd sshd;
    scaleout_search search("ssh", 2);
    const interruption kill_server_side{
        "kill -9 the sshd process serving its connection",
        [&](const interrupted_worker& w)
        {
            const pid_t session = sshd.session_of(w.worker_pid);
            BOOST_REQUIRE_MESSAGE(session > 0, "no sshd session of this server runs worker " << w.worker_pid);
            BOOST_REQUIRE(::kill(session, SIGKILL) == 0);
            BOOST_REQUIRE(wait_until([&] { return !proc::alive(session); }, 60s));
        }};
    const interruption kill_client_side{
        "kill -9 the ssh client warpsmith started for it",
        [&](const interrupted_worker& w)
        {
            const std::string log = search.worker_log(w.device).string();
            std::vector<pid_t> clients;
            for (pid_t p : proc::descendants(w.warpsmith_pid))
                if (proc::name_of(p) == "ssh" && proc::command_line_of(p).find(log) != std::string::npos)
                    clients.push_back(p);
            BOOST_REQUIRE_MESSAGE(clients.size() == 1u,
                                  clients.size() << " ssh clients run GPU " << w.device);
            BOOST_REQUIRE(::kill(clients.front(), SIGKILL) == 0);
            BOOST_REQUIRE(wait_until([&] { return !proc::alive(clients.front()); }, 60s));
        }};
    search.run(sshd.ssh_command(), {kill_server_side, kill_client_side});
    search.check_results();
}

BOOST_AUTO_TEST_SUITE_END()
