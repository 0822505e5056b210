#pragma once

// The search both scale-out tests run: `warpsmith optimize --gpus 0,1` over 12 scripted candidates
// (the vadd workload of tests/engine/run), with each GPU's worker (the fake worker of
// tests/engine/executors) started through a launcher (ssh, srun) by --worker-cmd. Some candidates
// carry `FAKE: wait_for=GATE`: their evaluation holds until the test has broken the transport of
// the worker holding it (killed an ssh connection, cancelled a job step) and then opened the gate.
// So every interruption surely lands in the middle of an evaluation, with no sleep deciding when.

#include "tests/scaleout/processes.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warpsmith::test
{

/// The worker a test interrupts: its device, the fake worker's process (from its event log) and
/// the warpsmith process that started its launcher.
struct interrupted_worker
{
    int device = -1;
    pid_t worker_pid = -1;
    pid_t warpsmith_pid = -1;
};

/// One way to break a worker's transport, e.g. "kill the sshd process serving it". act returns
/// only once the interrupted worker can no longer answer (scancel, for one, merely asks), so that
/// opening the gate afterwards cannot let the held evaluation finish.
struct interruption
{
    std::string what;
    std::function<void(const interrupted_worker&)> act;
};

class scaleout_search
{
public:
    static constexpr int candidate_count = 12;

    /// Writes the candidates, one gate for each interruption (in order, spread over the search).
    scaleout_search(const std::string& name, std::size_t interruptions);
    /// Opens every gate and ends the fake workers of this search that still run.
    ~scaleout_search();
    scaleout_search(const scaleout_search&) = delete;
    scaleout_search& operator=(const scaleout_search&) = delete;

    /// The fake worker's command line with {device} placeholders: its event log per device and a
    /// simulated evaluation time, so that both GPUs are busy at once.
    std::string worker_command() const;

    /// Runs optimize with `--worker-cmd "<launcher> <worker_command()>"` until it exits, performing
    /// each interruption on the worker that holds its gated candidate, then opening that gate.
    /// run_under, when given, is a command that runs warpsmith (e.g. salloc). Requires exit code 0.
    void run(const std::string& launcher,
             const std::vector<interruption>& interruptions,
             const std::vector<std::string>& run_under = {});

    /// What scale-out must guarantee, from the journal, summary.json, warpsmith's output and the
    /// workers' event logs: every candidate evaluated once and valid; both GPUs evaluated some;
    /// each interrupted worker was restarted, reloaded with the same hidden seed, and evaluated
    /// its candidate again to a valid result; no worker process outlives the run.
    void check_results() const;

    const std::filesystem::path& dir() const { return tmp_.path(); }
    std::filesystem::path run_dir() const;
    std::filesystem::path worker_log(int device) const;

private:
    struct interrupted_candidate
    {
        interrupted_worker worker;
        std::string candidate;  ///< Its id in the journal ("c0004").
        std::string what;
    };

    std::filesystem::path gate(std::size_t i) const;
    std::string gated_file(std::size_t i) const;
    /// The candidate ids waiting at a gate now, with their device and worker pid.
    std::vector<std::pair<std::string, interrupted_worker>> waiting() const;
    /// The gate index of a candidate id (from the journal's proposed event), or -1.
    int gate_of(const std::string& candidate) const;

    temp_dir tmp_;
    std::size_t gates_ = 0;
    std::vector<interrupted_candidate> interrupted_;
    std::string output_;  ///< warpsmith's stdout and stderr.
};

/// Ends the test program as skipped (exit 77, one line) when missing_programs names what is not
/// installed or when the fake worker is not built; returns otherwise.
void skip_unless_ready(std::string missing_programs);

}  // namespace warpsmith::test
