// Scale-out through Slurm, for real on loopback (docs/executors.md, "Scale-out"): a private
// one-node cluster (munged, slurmctld, slurmd) and `warpsmith optimize --gpus 0,1 --worker-cmd
// "srun --quiet -N1 -n1 -J warpsmith-gpu{device} fake_worker ... --device {device}"`. Candidates
// spread over both workers; one worker's job step is cancelled (scancel JOBID.STEPID) and later
// another worker's whole job (scancel JOBID), each while it evaluates a candidate; the workers are
// restarted as new jobs and no result is lost. The same under salloc, with each worker a step of
// one allocation (srun --exact) and one step cancelled. Exits 77 (ctest: skipped) where Slurm is
// not installed.

#include "tests/scaleout/loopback_slurm.hpp"
#include "tests/scaleout/scaleout_search.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace warpsmith::test;
using namespace std::chrono_literals;

namespace
{

struct require_slurm
{
    require_slurm() { skip_unless_ready(loopback_slurm::missing_programs()); }
};

/// The job step a worker runs in, from the environment slurmstepd gave it ("JOBID.STEPID"); it
/// must be a running step of the cluster, named after the worker's GPU.
std::string step_of(const loopback_slurm& slurm, const interrupted_worker& w)
{
    const auto job = proc::environment_variable(w.worker_pid, "SLURM_JOB_ID");
    const auto step = proc::environment_variable(w.worker_pid, "SLURM_STEP_ID");
    BOOST_REQUIRE_MESSAGE(job && step, "worker " << w.worker_pid << " does not run in a Slurm job step");
    const std::string id = *job + "." + *step;
    const auto steps = slurm.job_steps();
    const std::pair<std::string, std::string> expected{id, "warpsmith-gpu" + std::to_string(w.device)};
    BOOST_REQUIRE_MESSAGE(std::find(steps.begin(), steps.end(), expected) != steps.end(),
                          "squeue --steps does not list " << id << " " << expected.second);
    return id;
}

/// Cancels a job or step and waits until the worker in it is gone: scancel only asks the
/// controller, which has slurmd signal the tasks a moment later.
void scancel(const std::string& id, const interrupted_worker& w)
{
    const auto r = run_command({find_program("scancel").string(), id}, 30s);
    BOOST_REQUIRE_MESSAGE(r.rc == 0, "scancel " << id << " failed: " << r.output);
    BOOST_REQUIRE_MESSAGE(wait_until([&] { return !proc::alive(w.worker_pid); }, 120s),
                          "worker " << w.worker_pid << " still runs after scancel " << id);
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(require_slurm);

BOOST_AUTO_TEST_SUITE(scaleout_slurm_suite)

BOOST_AUTO_TEST_CASE(workers_as_slurm_jobs_share_the_search_and_survive_a_cancelled_step_and_job)
{
    loopback_slurm slurm;
    scaleout_search search("slurm", 2);
    const interruption cancel_step{"scancel its job step (JOBID.STEPID)",
                                   [&](const interrupted_worker& w) { scancel(step_of(slurm, w), w); }};
    const interruption cancel_job{"scancel its whole job (JOBID)",
                                  [&](const interrupted_worker& w)
                                  {
                                      const std::string step = step_of(slurm, w);
                                      scancel(step.substr(0, step.find('.')), w);
                                  }};
    const std::string srun = find_program("srun").string() + " --quiet -N1 -n1 -J warpsmith-gpu{device}";
    search.run(srun, {cancel_step, cancel_job});
    search.check_results();
    // Every worker's job ended with the search.
    const bool no_jobs_left = wait_until([&] { return slurm.jobs().empty(); }, 60s);
    BOOST_TEST(no_jobs_left, "jobs left: " << slurm.jobs().size());
}

BOOST_AUTO_TEST_CASE(workers_as_steps_of_one_allocation_run_side_by_side_and_survive_a_cancelled_step)
{
    // The way to use an allocation (docs/executors.md, "Slurm"): warpsmith runs under salloc and
    // each worker is a job step of it. --exact gives a step only what it asks for; without it the
    // first step would take the whole allocation and the second worker would wait for ever.
    loopback_slurm slurm;
    scaleout_search search("salloc", 1);
    const interruption cancel_step{"scancel its job step (JOBID.STEPID) in the allocation",
                                   [&](const interrupted_worker& w) { scancel(step_of(slurm, w), w); }};
    const std::string srun =
        find_program("srun").string() + " --exact --quiet -N1 -n1 -J warpsmith-gpu{device}";
    search.run(srun, {cancel_step}, {find_program("salloc").string(), "--quiet", "-N1", "-n2"});
    search.check_results();
    const bool no_jobs_left = wait_until([&] { return slurm.jobs().empty(); }, 60s);
    BOOST_TEST(no_jobs_left, "jobs left: " << slurm.jobs().size());
}

BOOST_AUTO_TEST_SUITE_END()
