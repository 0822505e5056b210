#include "tests/scaleout/scaleout_search.hpp"

#include "engine/run/journal.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace warpsmith::test
{

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace
{

constexpr const char* kernel_body = R"(
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
)";

/// Gate i holds candidate file number 4 + 5i: after both GPUs have had work, and far enough apart
/// that the first interruption is over before the second candidate is proposed.
int gated_number(std::size_t i)
{
    return 4 + 5 * static_cast<int>(i);
}

std::string file_name(int number)
{
    return (number < 10 ? "k0" : "k") + std::to_string(number) + ".cu";
}

std::string read_all(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<json::object> journal_events(const fs::path& run)
{
    if (!fs::exists(run / "journal.jsonl"))
        return {};
    return read_journal(run / "journal.jsonl").events;
}

}  // namespace

scaleout_search::scaleout_search(const std::string& name, std::size_t interruptions)
    : tmp_("warpsmith-scaleout-" + name), gates_(interruptions)
{
    BOOST_REQUIRE(gated_number(gates_) - 5 <= candidate_count);
    fs::create_directories(dir() / "candidates");
    fs::create_directories(dir() / "gates");
    for (int k = 1; k <= candidate_count; ++k)
    {
        std::ofstream f(dir() / "candidates" / file_name(k));
        f << "// Scale-out candidate " << k << ".\n// FAKE: median_us=" << 150 - 5 * k << "\n";
        for (std::size_t g = 0; g < gates_; ++g)
            if (gated_number(g) == k)
                f << "// FAKE: wait_for=" << gate(g).string() << "\n";
        f << kernel_body;
    }
}

std::string scaleout_search::worker_command() const
{
    return (bin_dir() / "fake_worker").string() + " --log " + (dir() / "gpu{device}.log").string() +
           " --evaluate-ms 100 --device {device}";
}

fs::path scaleout_search::run_dir() const
{
    return dir() / "results" / "run-001";
}

fs::path scaleout_search::worker_log(int device) const
{
    return dir() / ("gpu" + std::to_string(device) + ".log");
}

fs::path scaleout_search::gate(std::size_t i) const
{
    return dir() / "gates" / ("gate" + std::to_string(i));
}

std::string scaleout_search::gated_file(std::size_t i) const
{
    return file_name(gated_number(i));
}

std::vector<std::pair<std::string, interrupted_worker>> scaleout_search::waiting() const
{
    std::vector<std::pair<std::string, interrupted_worker>> out;
    for (int device : {0, 1})
        for (const auto& e : events_named(read_fake_log(worker_log(device)), "waiting"))
        {
            interrupted_worker w;
            w.device = device;
            w.worker_pid = e.pid;
            out.emplace_back(e.name, w);
        }
    return out;
}

int scaleout_search::gate_of(const std::string& candidate) const
{
    for (const auto& e : journal_events(run_dir()))
    {
        if (e.at("event").as_string() != "proposed" || e.at("id").as_string() != candidate)
            continue;
        const auto* file = e.at("meta").as_object().if_contains("file");
        for (std::size_t g = 0; file && g < gates_; ++g)
            if (file->as_string() == gated_file(g))
                return static_cast<int>(g);
    }
    return -1;
}

void scaleout_search::run(const std::string& launcher,
                          const std::vector<interruption>& interruptions,
                          const std::vector<std::string>& run_under)
{
    BOOST_REQUIRE(interruptions.size() == gates_);
    ::setenv("WARPSMITH_CACHE_DIR", (dir() / "cache").c_str(), 1);
    std::vector<std::string> args = run_under;
    const std::vector<std::string> optimize_args{(bin_dir() / "warpsmith").string(),
                                                 "optimize",
                                                 "--workload",
                                                 (source_dir() / "tests/engine/run/data/vadd").string(),
                                                 "--candidates",
                                                 (dir() / "candidates").string(),
                                                 "--branches",
                                                 "2",
                                                 "--max-iterations",
                                                 "50",
                                                 "--gpus",
                                                 "0,1",
                                                 "--worker",
                                                 (bin_dir() / "fake_worker").string(),
                                                 "--worker-cmd",
                                                 launcher + " " + worker_command(),
                                                 "--compile-workers",
                                                 "1",
                                                 "--confirm-top",
                                                 "2",
                                                 "--results",
                                                 (dir() / "results").string()};
    args.insert(args.end(), optimize_args.begin(), optimize_args.end());
    std::optional<int> code;
    {
        background_process optimize(args, dir() / "optimize.log", dir());
        std::set<std::string> handled;
        const auto deadline = std::chrono::steady_clock::now() + 300s;
        while (!(code = optimize.wait(20ms)) && std::chrono::steady_clock::now() < deadline)
        {
            for (auto& [candidate, worker] : waiting())
            {
                if (handled.count(candidate))
                    continue;
                const int g = gate_of(candidate);
                BOOST_REQUIRE_MESSAGE(g >= 0,
                                      candidate << " waits at a gate, but the journal names no gated file");
                worker.warpsmith_pid = optimize.pid();
                BOOST_TEST_MESSAGE("GPU " << worker.device << " evaluates " << candidate << " (worker pid "
                                          << worker.worker_pid << "): " << interruptions[g].what);
                interruptions[g].act(worker);
                interrupted_.push_back({worker, candidate, interruptions[g].what});
                handled.insert(candidate);
                std::ofstream(gate(static_cast<std::size_t>(g))) << "open\n";
            }
        }
        if (!code)
            optimize.stop();
    }
    output_ = read_all(dir() / "optimize.log");
    // What warpsmith said about its workers (the restarts), for the test's log.
    std::istringstream lines(output_);
    for (std::string line; std::getline(lines, line);)
        if (line.find("worker") != std::string::npos)
            BOOST_TEST_MESSAGE("warpsmith: " << line);
    BOOST_REQUIRE_MESSAGE(code, "warpsmith optimize did not finish within 300 s; its output:\n" << output_);
    BOOST_REQUIRE_MESSAGE(*code == 0,
                          "warpsmith optimize exited with " << *code << "; its output:\n"
                                                            << output_);
    BOOST_TEST(interrupted_.size() == gates_);
}

void scaleout_search::check_results() const
{
    const auto events = journal_events(run_dir());
    std::map<std::string, int> proposed, evaluated;
    std::map<std::string, json::object> result_of;
    for (const auto& e : events)
    {
        const auto type = e.at("event").as_string();
        const std::string id = e.contains("id") ? std::string(e.at("id").as_string()) : "";
        if (type == "proposed")
            ++proposed[id];
        else if (type == "evaluated")
        {
            ++evaluated[id];
            result_of[id] = e;
        }
    }

    // Every candidate evaluated exactly once, and none lost to a broken transport: all are valid.
    BOOST_TEST(proposed.size() == static_cast<std::size_t>(candidate_count));
    std::map<std::int64_t, int> per_gpu;
    for (const auto& [id, n] : proposed)
    {
        BOOST_TEST(n == 1, id);
        BOOST_TEST(evaluated[id] == 1, id);
        if (!result_of.count(id))
            continue;
        const auto& ev = result_of.at(id);
        BOOST_TEST(ev.at("valid").as_bool(), id << ": " << json::serialize(ev.at("failure")));
        ++per_gpu[ev.at("gpu").as_int64()];
    }
    // The search used both GPUs: each of them evaluated some candidates, on its own workers. (A
    // candidate takes the least busy free GPU, engine/search/resource_pool.hpp, so both get work.)
    BOOST_TEST_MESSAGE("candidates per GPU: " << per_gpu[0] << " and " << per_gpu[1]);
    BOOST_TEST(per_gpu[0] > 0);
    BOOST_TEST(per_gpu[1] > 0);
    for (int device : {0, 1})
        BOOST_TEST(!events_named(read_fake_log(worker_log(device)), "evaluate_end").empty(),
                   "GPU " << device);

    const auto summary = read_json_file(run_dir() / "summary.json");
    BOOST_TEST(summary.at("status").as_string() == "finished");
    BOOST_TEST(summary.at("candidates").at("evaluated").as_int64() == candidate_count);
    std::int64_t restarts = 0;
    for (const auto& g : summary.at("gpus").as_array())
        restarts += g.at("restarts").as_int64();
    BOOST_TEST(restarts == static_cast<std::int64_t>(interrupted_.size()));
    const auto hidden_seed = std::to_string(read_json_file(run_dir() / "run.json")
                                                .at("config")
                                                .at("search")
                                                .at("hidden_seed")
                                                .to_number<std::uint64_t>());

    for (const auto& ic : interrupted_)
    {
        BOOST_TEST_CONTEXT(ic.what << ", GPU " << ic.worker.device << ", " << ic.candidate)
        {
            // The journal: the candidate's result is the one its second worker measured.
            BOOST_REQUIRE(result_of.count(ic.candidate));
            const auto& ev = result_of.at(ic.candidate);
            BOOST_TEST(ev.at("gpu").as_int64() == ic.worker.device);
            BOOST_TEST(ev.at("valid").as_bool());
            BOOST_TEST(ev.at("worker_restarted").as_bool());
            BOOST_TEST(ev.at("restart_reason").as_string() == "worker_crash");

            // The worker's log: a new worker greeted after the interrupted one, loaded with the run's
            // hidden seed, and it evaluated the candidate to the end.
            const auto log = read_fake_log(worker_log(ic.worker.device));
            std::vector<int> hellos;
            for (const auto& h : events_named(log, "hello"))
                hellos.push_back(h.pid);
            const auto it = std::find(hellos.begin(), hellos.end(), ic.worker.worker_pid);
            BOOST_REQUIRE(it != hellos.end());
            BOOST_REQUIRE(it + 1 != hellos.end());
            const int successor = *(it + 1);
            bool reloaded = false, finished = false;
            for (const auto& e : log)
            {
                reloaded = reloaded || (e.pid == successor && e.event == "load" && e.name == hidden_seed);
                finished =
                    finished || (e.pid == successor && e.event == "evaluate_end" && e.name == ic.candidate);
            }
            BOOST_TEST(reloaded);
            BOOST_TEST(finished);
        }
    }
    BOOST_TEST(output_.find("evaluating it again on a new worker") != std::string::npos, output_);

    // Every load on either GPU used the run's hidden seed, and no worker outlives the run.
    std::set<int> workers;
    for (int device : {0, 1})
        for (const auto& e : read_fake_log(worker_log(device)))
        {
            workers.insert(e.pid);
            if (e.event == "load")
                BOOST_TEST(e.name == hidden_seed);
        }
    const bool all_exited = wait_until(
        [&]
        {
            for (int pid : workers)
                if (proc::alive(pid))
                    return false;
            return true;
        },
        30s);
    BOOST_TEST(all_exited, "a fake worker process still runs after the search");
}

scaleout_search::~scaleout_search()
{
    // A test that failed half-way may leave a worker holding a gate; open them all, then end every
    // fake worker of this search that still runs (found by pid in its own logs, and only while its
    // command line still names this search's directory).
    for (std::size_t g = 0; g < gates_; ++g)
        std::ofstream(gate(g)) << "open\n";
    for (int device : {0, 1})
        for (const auto& e : read_fake_log(worker_log(device)))
            if (proc::alive(e.pid) && proc::command_line_of(e.pid).find(dir().string()) != std::string::npos)
                ::kill(e.pid, SIGKILL);
}

void skip_unless_ready(std::string missing_programs)
{
    std::string why = std::move(missing_programs);
    if (why.empty() && !std::filesystem::exists(bin_dir() / "fake_worker"))
        why = (bin_dir() / "fake_worker").string() + " is not built";
    if (why.empty())
        return;
    std::printf("skipped: %s\n", why.c_str());
    std::fflush(stdout);
    std::_Exit(77);
}

}  // namespace warpsmith::test
