#pragma once

// A private one-node Slurm cluster for one test, from the distribution's packages: munged on a
// socket of its own with a generated key, slurmctld and slurmd on free loopback ports, with a
// generated slurm.conf whose plugins need no cgroups and no accounting, and every file in a
// temporary directory. SLURM_CONF points at it while the object lives, so srun, squeue and scancel
// (also those a test's children run) talk to this cluster only. The destructor cancels what still
// runs and stops the daemons.

#include "tests/scaleout/processes.hpp"
#include "tests/support/test_paths.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace warpsmith::test
{

class loopback_slurm
{
public:
    static constexpr const char* node_name = "warpsmith-node";

    /// Why this machine cannot run the test (a daemon or client not installed), or empty.
    static std::string missing_programs();

    /// Starts munged, slurmctld and slurmd, and waits until the node is idle. Fails the test (with
    /// the daemons' logs) when the cluster does not come up.
    loopback_slurm();
    ~loopback_slurm();
    loopback_slurm(const loopback_slurm&) = delete;
    loopback_slurm& operator=(const loopback_slurm&) = delete;

    /// The running job steps as (JOBID.STEPID, job name), from `squeue --steps`.
    std::vector<std::pair<std::string, std::string>> job_steps() const;
    /// The jobs still known to the controller (any state), from `squeue`.
    std::vector<std::string> jobs() const;
    std::string logs() const;
    const std::filesystem::path& config() const { return config_; }

private:
    /// One attempt with new ports; false when a daemon exits during start-up (a port was taken).
    bool start_on_free_ports();
    void stop_daemons();
    void write_config(int controller_port, int node_port) const;

    temp_dir dir_;
    std::filesystem::path config_;
    std::unique_ptr<background_process> munged_, controller_, node_;
};

}  // namespace warpsmith::test
