// Vendor baselines in the search loop (SPEC §6; docs/engine.md, "Before the search: baselines"):
// a workload that declares cuBLAS gets it timed in FP32 and TF32 once per run, on GPU 0, before the
// search; the results land in the journal ("vendor_baseline") and in summary.json "baselines"; a
// resumed run keeps them instead of timing them again; a backend without cuBLAS leaves the run
// intact and says why. Simulated backend on a virtual clock (GPU 0.2 s per request); and once the
// real executor backend with the fake worker (tests/engine/executors/fake_worker.cpp), whose
// `baseline` op answers with fixed numbers.

#include "engine/search/executor_backend.hpp"
#include "tests/engine/search/engine_test_support.hpp"

#include <boost/asio/detached.hpp>

using namespace warpsmith;
using namespace warpsmith::test;
namespace json = boost::json;

namespace
{

std::string gemm_kernel(const std::vector<std::string>& markers)
{
    std::string s;
    for (const auto& m : markers)
        s += "// FAKE: " + m + "\n";
    return s +
           "extern \"C\" __global__ void sgemm(int M, int N, int K, const float* A, const float* B, float* "
           "C) {}\n";
}

workload gemm_workload(bool with_baselines)
{
    json::object w{
        {"name", "gemm"},
        {"signature", json::parse(R"j({"entry": "sgemm", "params": [
            {"name": "M", "kind": "scalar", "type": "int32"},
            {"name": "N", "kind": "scalar", "type": "int32"},
            {"name": "K", "kind": "scalar", "type": "int32"},
            {"name": "A", "kind": "buffer", "type": "float32", "dir": "in", "count": "M*K"},
            {"name": "B", "kind": "buffer", "type": "float32", "dir": "in", "count": "K*N"},
            {"name": "C", "kind": "buffer", "type": "float32", "dir": "out", "count": "M*N"}]})j")},
        {"cases", json::parse(R"j([{"name": "odd", "values": {"M": 37, "N": 61, "K": 19}},
            {"name": "big", "role": "performance", "values": {"M": 1024, "N": 1024, "K": 1024}},
            {"name": "wide", "role": "performance", "values": {"M": 512, "N": 4096, "K": 256}}])j")},
        {"reference_source", gemm_kernel({"median_us=200"})},
        {"initial_source", gemm_kernel({"median_us=160"})},
        {"launch", json::parse(R"j({"grid": ["ceil_div(N,16)", "ceil_div(M,16)"], "block": [16, 16]})j")}};
    if (with_baselines)
        w["baselines"] = json::parse(
            R"j([{"name": "cublas", "kind": "cublas_sgemm", "m": "M", "n": "N", "k": "K", "a": "A", "b": "B", "c": "C"}])j");
    return workload::from_json(w, std::filesystem::current_path(), "gemm workload");
}

search_options one_iteration()
{
    search_options o;
    o.branches = 1;
    o.budgets.iterations = 1;
    o.confirm_top = 0;
    return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vendor_baselines_suite)

BOOST_FIXTURE_TEST_CASE(declared_baselines_are_timed_in_fp32_and_tf32_before_the_search, engine_fixture)
{
    work = gemm_workload(true);
    test_strategy strat(clock, work);
    strat.sources = {gemm_kernel({"median_us=100"})};
    const auto res = search(strat, one_iteration());
    BOOST_TEST(res.status == "finished");
    BOOST_TEST(backend->baseline_requests() == (std::vector<std::string>{"cublas/fp32", "cublas/tf32"}));
    // Reference and initial 0.2 -> 0.6, cuBLAS FP32 and TF32 0.6 -> 1.0 on GPU 0, then the search.
    BOOST_TEST(near(t_of("gpu_start", "cublas (fp32)"), 0.6));
    BOOST_TEST(near(t_of("gpu_start", "cublas (tf32)"), 0.8));
    BOOST_TEST(near(strat.calls.at(0).t, 1.0));
    BOOST_TEST(gpu_never_shared(backend->events()));

    const auto& b = res.summary.at("baselines").as_object();
    BOOST_TEST_REQUIRE(b.size() == 2u);
    const auto& fp32 = b.at("cublas").as_object();
    BOOST_TEST(fp32.at("math").as_string() == "fp32");
    BOOST_TEST(fp32.at("kind").as_string() == "cublas_sgemm");
    BOOST_TEST(fp32.at("case_median_us").at("big").to_number<double>() == 50.0);
    BOOST_TEST(fp32.at("case_median_us").at("wide").to_number<double>() == 50.0);
    BOOST_TEST(!fp32.at("case_median_us").as_object().contains("odd"));  // correctness cases are not timed
    BOOST_TEST(fp32.at("score_us").to_number<double>() == 50.0);
    BOOST_TEST(fp32.at("within_tolerance").as_bool());
    BOOST_TEST(fp32.at("cases").at("big").at("samples").to_number<int>() > 0);
    BOOST_TEST(fp32.at("gpu").as_int64() == 0);
    const auto& tf32 = b.at("cublas_tf32").as_object();
    BOOST_TEST(tf32.at("math").as_string() == "tf32");
    BOOST_TEST(tf32.at("case_median_us").at("big").to_number<double>() == 25.0);
    BOOST_TEST(!tf32.at("within_tolerance").as_bool());  // reported, not a failure
    BOOST_TEST(tf32.at("max_abs_error").to_number<double>() > fp32.at("max_abs_error").to_number<double>());
    BOOST_TEST(res.summary.at("baselines_unavailable").as_object().empty());

    // The journal holds them, with the worker's whole answer.
    const auto events = events_of("vendor_baseline");
    BOOST_TEST_REQUIRE(events.size() == 2u);
    BOOST_TEST(events[0].at("key").as_string() == "cublas");
    BOOST_TEST(events[1].at("key").as_string() == "cublas_tf32");
    BOOST_TEST(events[1].at("available").as_bool());
    BOOST_TEST(events[1].at("baseline").at("cases").as_array().size() == 3u);
    // summary.json on disk says the same.
    const auto on_disk = read_json_file(run->path() / "summary.json");
    BOOST_TEST(
        on_disk.at("baselines").at("cublas_tf32").at("case_median_us").at("wide").to_number<double>() ==
        25.0);
}

BOOST_FIXTURE_TEST_CASE(a_resumed_run_keeps_its_baselines, engine_fixture)
{
    work = gemm_workload(true);
    {
        test_strategy strat(clock, work);
        strat.sources = {gemm_kernel({"median_us=100"})};
        search(strat, one_iteration());
        BOOST_TEST(backend->baseline_requests().size() == 2u);
    }
    search_options o = one_iteration();
    o.budgets.iterations = 2;
    test_strategy strat(clock, work);
    strat.sources = {gemm_kernel({"median_us=90"})};
    auto replayed = replay_events(read_journal(run->journal_path()).events);
    const auto res = search(strat, o, std::move(replayed));
    BOOST_TEST(res.summary.at("resumed").as_bool());
    BOOST_TEST(backend->baseline_requests().empty());  // measured once per run
    BOOST_TEST(events_of("vendor_baseline").size() == 2u);
    const auto& b = res.summary.at("baselines").as_object();
    BOOST_TEST_REQUIRE(b.size() == 2u);
    BOOST_TEST(b.at("cublas").at("case_median_us").at("big").to_number<double>() == 50.0);
    BOOST_TEST(b.at("cublas_tf32").at("case_median_us").at("big").to_number<double>() == 25.0);
}

BOOST_FIXTURE_TEST_CASE(without_cublas_the_run_goes_on_and_says_why, engine_fixture)
{
    work = gemm_workload(true);
    backend_opts.baselines_available = false;
    test_strategy strat(clock, work);
    strat.sources = {gemm_kernel({"median_us=100"})};
    const auto res = search(strat, one_iteration());
    BOOST_TEST(res.status == "finished");
    BOOST_TEST(res.summary.at("candidates").at("valid").as_int64() == 1);
    BOOST_TEST(res.summary.at("baselines").as_object().empty());
    const auto& skipped = res.summary.at("baselines_unavailable").as_object();
    BOOST_TEST_REQUIRE(skipped.size() == 2u);
    BOOST_TEST(skipped.at("cublas").at("kind").as_string() == "no_baseline");
    BOOST_TEST(std::string(skipped.at("cublas_tf32").at("message").as_string()).find("cuBLAS") !=
               std::string::npos);
    const auto events = events_of("vendor_baseline");
    BOOST_TEST_REQUIRE(events.size() == 2u);
    BOOST_TEST(!events[0].at("available").as_bool());
    BOOST_TEST(events[0].at("error").at("kind").as_string() == "no_baseline");

    // Not timed before, so a resume tries again (cuBLAS may be installed by then).
    backend_opts.baselines_available = true;
    test_strategy again(clock, work);
    again.sources = {gemm_kernel({"median_us=90"})};
    search_options o = one_iteration();
    o.budgets.iterations = 2;
    const auto resumed = search(again, o, replay_events(read_journal(run->journal_path()).events));
    BOOST_TEST(backend->baseline_requests().size() == 2u);
    BOOST_TEST(resumed.summary.at("baselines").as_object().size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(workloads_without_baselines_ask_for_none, engine_fixture)
{
    work = gemm_workload(false);
    test_strategy strat(clock, work);
    strat.sources = {gemm_kernel({"median_us=100"})};
    const auto res = search(strat, one_iteration());
    BOOST_TEST(backend->baseline_requests().empty());
    BOOST_TEST(events_of("vendor_baseline").empty());
    BOOST_TEST(res.summary.at("baselines").as_object().empty());
    BOOST_TEST(near(strat.calls.at(0).t, 0.6));
}

BOOST_AUTO_TEST_CASE(through_the_executor_backend_a_workers_baseline_lands_in_the_summary)
{
    const auto fake = bin_dir() / "fake_worker";
    if (!std::filesystem::exists(fake))
    {
        BOOST_TEST_MESSAGE("skipped: " << fake << " is missing");
        return;
    }
    boost::asio::io_context ioc;
    temp_dir tmp{"warpsmith-vendor-exec"};
    const workload work = gemm_workload(true);
    executor_backend_options bo;
    bo.devices = {0};
    bo.launch.worker_binary = fake.string();
    bo.compile.workers = 1;
    bo.compile.cache_dir = (tmp.path() / "compile-cache").string();
    bo.measure = false;
    executor_backend backend(ioc, bo);
    steady_clock_source clock;
    test_strategy strat(clock, work);
    strat.sources = {gemm_kernel({"median_us=100"})};
    auto run = run_directory::create(tmp.path() / "results");
    journal_writer journal(run.journal_path(), 1);
    search_engine engine(ioc,
                         backend,
                         strat,
                         clock,
                         work,
                         one_iteration(),
                         run,
                         journal,
                         json::object{{"tool", "warpsmith-test"}});
    std::optional<search_result> result;
    std::exception_ptr error;
    auto body = [&]() -> boost::asio::awaitable<void>
    {
        try
        {
            result = co_await engine.run(std::nullopt);
        }
        catch (...)
        {
            error = std::current_exception();
        }
        co_await backend.stop();
    };
    boost::asio::co_spawn(ioc, body(), boost::asio::detached);
    ioc.run_for(std::chrono::seconds(60));
    if (error)
        std::rethrow_exception(error);
    BOOST_REQUIRE(result.has_value());
    BOOST_TEST(result->status == "finished");

    const auto& b = result->summary.at("baselines").as_object();
    BOOST_TEST_REQUIRE(b.size() == 2u);
    BOOST_TEST(b.at("cublas").at("case_median_us").at("big").to_number<double>() == 50.0);
    BOOST_TEST(b.at("cublas").at("within_tolerance").as_bool());
    BOOST_TEST(b.at("cublas").at("library").at("name").as_string() == "fake-cublas");
    BOOST_TEST(b.at("cublas").at("cases").at("wide").at("samples").to_number<int>() > 0);
    BOOST_TEST(b.at("cublas_tf32").at("case_median_us").at("wide").to_number<double>() == 25.0);
    BOOST_TEST(!b.at("cublas_tf32").at("within_tolerance").as_bool());
    BOOST_TEST(result->summary.at("baselines_unavailable").as_object().empty());
    const auto on_disk = read_json_file(run.path() / "summary.json");
    BOOST_TEST(on_disk.at("baselines").at("cublas").at("score_us").to_number<double>() == 50.0);
}

BOOST_AUTO_TEST_SUITE_END()
