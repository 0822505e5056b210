// The executors with the real warpsmith-worker on a GPU (ctest label "gpu"; skipped without one):
// start, load a small workload, evaluate, time interleaved, and the fault / hang restart cycles.

#include "engine/executors/compile_pool.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/candidate.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/json.hpp>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

struct gpu_fixture : io_fixture
{
    temp_dir tmp;
    workload w = workload::load(source_dir() / "tests/engine/executors/data/vadd");

    worker_launch launch() const
    {
        worker_launch l;
        l.worker_binary = (bin_dir() / "warpsmith-worker").string();
        return l;
    }

    compile_pool_options pool_options() const
    {
        compile_pool_options o;
        o.workers = 2;
        o.in_process = true;
        o.cache_dir = (tmp.path() / "cache").string();
        return o;
    }

    candidate kernel(const std::string& file, bool quarter_grid = false) const
    {
        candidate c = candidate::from_kernel(w.reference);
        c.source = read_text_file(source_dir() / "tests/engine/executors/data/vadd" / file);
        if (quarter_grid)
            c.launch.grid[0] = expression::parse("ceil_div(n,1024)");
        return c;
    }
};

asio::awaitable<evaluate_request> compiled(compile_pool& pool,
                                           std::string name,
                                           candidate c,
                                           std::string arch)
{
    compile_request r;
    r.source = c.source;
    r.entry = c.entry;
    r.arch = arch;
    r.name = name + ".cu";
    compile_output out = co_await pool.compile(r);
    BOOST_REQUIRE_MESSAGE(out.compiled, name + ": " + out.error + "\n" + out.log);
    evaluate_request e;
    e.name = std::move(name);
    e.cand = std::move(c);
    e.cubin = out.cubin;
    e.local_memory = out.local_memory;
    e.timing.warmup = 2;
    e.timing.iterations = 10;
    co_return e;
}

std::string status_of(const gpu_evaluation& e)
{
    return std::string(e.result.valid() ? "valid" : "invalid");
}

std::string kind_of(const gpu_evaluation& e)
{
    return e.result.failure_kind();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(executors_gpu_suite, gpu_fixture)

BOOST_AUTO_TEST_CASE(evaluate_time_and_restart_after_a_fault)
{
    gpu_executor gpu(ioc, launch(), 0, {});
    compile_pool pool(ioc, worker_launch{}, pool_options());
    auto body = [&]() -> asio::awaitable<void>
    {
        json::object hello = co_await gpu.start();
        std::string arch(hello.at("device").at("arch").as_string());
        json::object loaded = co_await gpu.load(w, 77);
        BOOST_TEST(loaded.at("cases").as_array().size() == 2u);

        auto ref_req = co_await compiled(pool, "reference", kernel("reference.cu"), arch);
        auto ref = co_await gpu.evaluate(std::move(ref_req));
        BOOST_TEST(status_of(ref) == "valid", json::serialize(ref.result.to_json()));
        BOOST_TEST(ref.result.score_us.value_or(0) > 0);

        auto vec4_req = co_await compiled(pool, "vec4", kernel("vec4.cu", true), arch);
        auto vec4 = co_await gpu.evaluate(std::move(vec4_req));
        BOOST_TEST(status_of(vec4) == "valid", json::serialize(vec4.result.to_json()));

        auto fault_req = co_await compiled(pool, "fault", kernel("fault.cu"), arch);
        auto fault = co_await gpu.evaluate(std::move(fault_req));
        BOOST_TEST(status_of(fault) == "invalid");
        BOOST_TEST(kind_of(fault) == "fault", json::serialize(fault.result.to_json()));
        BOOST_TEST(fault.worker_restarted);
        BOOST_TEST(fault.restart_reason == "fault");

        // The restarted worker has the workload again: the next candidate evaluates normally.
        auto after_req = co_await compiled(pool, "reference2", kernel("reference.cu"), arch);
        auto after = co_await gpu.evaluate(std::move(after_req));
        BOOST_TEST(status_of(after) == "valid", json::serialize(after.result.to_json()));
        BOOST_TEST(gpu.restarts() == 1);

        std::vector<std::pair<std::string, evaluate_request>> entries;
        auto ref_entry = co_await compiled(pool, "reference", kernel("reference.cu"), arch);
        auto vec4_entry = co_await compiled(pool, "vec4", kernel("vec4.cu", true), arch);
        entries.emplace_back("reference", std::move(ref_entry));
        entries.emplace_back("vec4", std::move(vec4_entry));
        const protocol::interleaved_result timings = co_await gpu.time_interleaved(entries, 5);
        BOOST_TEST(timings.timings.at("vec4").at("1m").median_us().value_or(0) > 0);
        BOOST_TEST(timings.invalid.empty());

        json::object dev = co_await gpu.device_info(true);
        BOOST_TEST(dev.at("sm_count").as_int64() > 0);
        BOOST_TEST(dev.at("measured").at("copy_bandwidth_gbps").to_number<double>() > 0);

        co_await pool.stop();
        co_await gpu.stop();
    };
    run_coro(ioc, body(), 300s);
    BOOST_TEST(gpu.busy_seconds() > 0);
}

BOOST_AUTO_TEST_CASE(restart_after_a_hang)
{
    gpu_executor_options opts;
    opts.launch_timeout = 1000ms;
    gpu_executor gpu(ioc, launch(), 0, opts);
    compile_pool pool(ioc, worker_launch{}, pool_options());
    auto body = [&]() -> asio::awaitable<void>
    {
        json::object hello = co_await gpu.start();
        std::string arch(hello.at("device").at("arch").as_string());
        co_await gpu.load(w, 5);
        auto hang_req = co_await compiled(pool, "hang", kernel("hang.cu"), arch);
        auto hang = co_await gpu.evaluate(std::move(hang_req));
        BOOST_TEST(status_of(hang) == "invalid");
        BOOST_TEST(kind_of(hang) == "hang", json::serialize(hang.result.to_json()));
        BOOST_TEST(hang.worker_restarted);
        auto after_req = co_await compiled(pool, "reference", kernel("reference.cu"), arch);
        auto after = co_await gpu.evaluate(std::move(after_req));
        BOOST_TEST(status_of(after) == "valid", json::serialize(after.result.to_json()));
        co_await pool.stop();
        co_await gpu.stop();
    };
    run_coro(ioc, body(), 300s);
}

BOOST_AUTO_TEST_SUITE_END()
