#include "tests/scaleout/loopback_slurm.hpp"

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>
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

constexpr const char* daemons_and_clients[] = {
    "munged", "slurmctld", "slurmd", "srun", "salloc", "sinfo", "squeue", "scancel"};

std::string current_user()
{
    const passwd* pw = ::getpwuid(::geteuid());
    return pw ? pw->pw_name : std::to_string(::geteuid());
}

std::string program(const char* name)
{
    return find_program(name).string();
}

std::string read_text(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A munge key: random bytes, readable by its owner only (munged refuses anything looser).
void write_munge_key(const fs::path& file)
{
    std::ifstream random("/dev/urandom", std::ios::binary);
    std::string key(1024, '\0');
    random.read(key.data(), static_cast<std::streamsize>(key.size()));
    BOOST_REQUIRE(random.gcount() == static_cast<std::streamsize>(key.size()));
    std::ofstream(file, std::ios::binary) << key;
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream ss(text);
    std::string line;
    while (std::getline(ss, line))
        if (!line.empty())
            out.push_back(line);
    return out;
}

}  // namespace

std::string loopback_slurm::missing_programs()
{
    std::string missing;
    for (const char* p : daemons_and_clients)
        if (find_program(p).empty())
            missing += missing.empty() ? p : std::string(", ") + p;
    return missing.empty()
               ? ""
               : "not installed: " + missing + " (Debian: munge, slurmctld, slurmd, slurm-client)";
}

loopback_slurm::loopback_slurm() : dir_("warpsmith-slurm"), config_(dir_.path() / "slurm.conf")
{
    const fs::path d = dir_.path();
    // munged wants its key in a directory of the owner's alone, and a socket directory that every
    // user may enter (the clients of any user connect to it).
    fs::create_directories(d / "munge-key");
    fs::permissions(d / "munge-key", fs::perms::owner_all);
    write_munge_key(d / "munge-key" / "munge.key");
    fs::create_directories(d / "munge-run");
    fs::create_directories(d / "state");
    fs::create_directories(d / "spool");
    ::setenv("SLURM_CONF", config_.c_str(), 1);

    munged_ = std::make_unique<background_process>(
        std::vector<std::string>{program("munged"),
                                 "--foreground",
                                 "--socket=" + (d / "munge-run" / "munge.socket").string(),
                                 "--key-file=" + (d / "munge-key" / "munge.key").string(),
                                 "--pid-file=" + (d / "munge-run" / "munged.pid").string(),
                                 "--seed-file=" + (d / "munge-key" / "munged.seed").string(),
                                 "--log-file=" + (d / "munged.log").string()},
        d / "munged.out");
    wait_until([&] { return fs::exists(d / "munge-run" / "munge.socket") || !munged_->running(); }, 60s);
    BOOST_REQUIRE_MESSAGE(munged_->running(), "munged did not start:\n" << logs());

    bool started = false;
    for (int attempt = 0; attempt < 3 && !started; ++attempt)
        started = start_on_free_ports();
    BOOST_REQUIRE_MESSAGE(started, "the Slurm cluster did not come up:\n" << logs());
}

bool loopback_slurm::start_on_free_ports()
{
    stop_daemons();
    const int controller_port = free_loopback_port();
    int node_port = free_loopback_port();
    while (node_port == controller_port)
        node_port = free_loopback_port();
    write_config(controller_port, node_port);
    const fs::path d = dir_.path();
    controller_ = std::make_unique<background_process>(
        std::vector<std::string>{program("slurmctld"), "-D", "-f", config_.string()}, d / "slurmctld.out");
    node_ = std::make_unique<background_process>(
        std::vector<std::string>{program("slurmd"), "-D", "-f", config_.string(), "-N", node_name},
        d / "slurmd.out");
    // The node registers with the controller and turns idle: then jobs can start.
    const auto node_state = [&]
    {
        const auto r =
            run_command({program("sinfo"), "--noheader", "--nodes", node_name, "--format", "%T"}, 30s);
        return r.rc == 0 ? r.output : "";
    };
    wait_until([&]
               { return node_state().rfind("idle", 0) == 0 || !controller_->running() || !node_->running(); },
               120s);
    return controller_->running() && node_->running() && node_state().rfind("idle", 0) == 0;
}

void loopback_slurm::write_config(int controller_port, int node_port) const
{
    const fs::path d = dir_.path();
    const std::string user = current_user();
    std::ofstream c(config_);
    c << "# Written by the scale-out test: one node on loopback, no cgroups, no accounting.\n"
      << "ClusterName=warpsmith-test\n"
      << "SlurmctldHost=localhost(127.0.0.1)\n"
      << "SlurmctldPort=" << controller_port << "\n"
      << "SlurmdPort=" << node_port << "\n"
      << "SlurmUser=" << user << "\n"
      << "SlurmdUser=" << user
      << "\n"
      // The test's munged, on its own socket: nothing of the machine's own munge is used.
      << "AuthType=auth/munge\n"
      << "CredType=cred/munge\n"
      << "AuthInfo=socket=" << (d / "munge-run" / "munge.socket").string() << "\n"
      << "StateSaveLocation=" << (d / "state").string() << "\n"
      << "SlurmdSpoolDir=" << (d / "spool").string() << "\n"
      << "SlurmctldPidFile=" << (d / "slurmctld.pid").string() << "\n"
      << "SlurmdPidFile=" << (d / "slurmd.pid").string() << "\n"
      << "SlurmctldLogFile=" << (d / "slurmctld.log").string() << "\n"
      << "SlurmdLogFile=" << (d / "slurmd.log").string()
      << "\n"
      // Plugins that work in a container: processes tracked by their parent ids, no task binding,
      // no accounting. Nothing here needs cgroups.
      << "ProctrackType=proctrack/linuxproc\n"
      << "TaskPlugin=task/none\n"
      << "JobAcctGatherType=jobacct_gather/none\n"
      << "AccountingStorageType=accounting_storage/none\n"
      << "JobCompType=jobcomp/none\n"
      << "MpiDefault=none\n"
      << "SelectType=select/cons_tres\n"
      << "SelectTypeParameters=CR_Core\n"
      << "ReturnToService=2\n"
      // Four CPUs whatever the machine has: a worker per GPU and the one that replaces it while
      // the old job ends must fit side by side.
      << "SlurmdParameters=config_overrides\n"
      << "NodeName=" << node_name << " NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=4 State=UNKNOWN\n"
      << "PartitionName=warpsmith Nodes=" << node_name << " Default=YES MaxTime=INFINITE State=UP\n";
}

std::vector<std::pair<std::string, std::string>> loopback_slurm::job_steps() const
{
    const auto r = run_command({program("squeue"), "--steps", "--noheader", "--format", "%i %j"}, 30s);
    BOOST_REQUIRE_MESSAGE(r.rc == 0, "squeue --steps failed: " << r.output);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& line : lines_of(r.output))
    {
        const auto space = line.find(' ');
        out.emplace_back(line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1));
    }
    return out;
}

std::vector<std::string> loopback_slurm::jobs() const
{
    const auto r = run_command({program("squeue"), "--noheader", "--format", "%i %T"}, 30s);
    BOOST_REQUIRE_MESSAGE(r.rc == 0, "squeue failed: " << r.output);
    return lines_of(r.output);
}

std::string loopback_slurm::logs() const
{
    std::string out;
    for (const char* f : {"munged.out", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"})
        out += std::string("--- ") + f + "\n" + read_text(dir_.path() / f);
    return out;
}

void loopback_slurm::stop_daemons()
{
    // What still runs as a job step of this cluster ends with it, by pid: slurmstepd and its tasks
    // descend from slurmd.
    if (node_)
    {
        for (pid_t p : proc::descendants(node_->pid()))
            ::kill(p, SIGKILL);
        node_->stop();
    }
    if (controller_)
        controller_->stop();
    node_.reset();
    controller_.reset();
}

loopback_slurm::~loopback_slurm()
{
    if (controller_ && controller_->running())
        run_command({program("scancel"), "--user=" + current_user()}, 30s);
    stop_daemons();
    if (munged_)
        munged_->stop();
    ::unsetenv("SLURM_CONF");
}

}  // namespace warpsmith::test
