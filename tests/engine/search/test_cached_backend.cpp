// The evaluation cache in front of a backend (engine/search/cached_backend.hpp), with the simulated
// backend as the inner one on a virtual clock: hits cost no inner evaluation, misses are forwarded
// and stored, results that say more about the machine than the candidate (a crashed or restarted
// worker, an inconsistent timing) are not stored, and the session's baselines, validation-only and
// some-cases requests always reach the inner backend.

#include "engine/search/cached_backend.hpp"
#include "engine/search/clock.hpp"
#include "engine/search/simulated_backend.hpp"
#include "tests/engine/search/engine_test_support.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <exception>
#include <functional>
#include <optional>

using namespace warpsmith;
using namespace warpsmith::test;
namespace asio = boost::asio;
namespace json = boost::json;

namespace
{

/// A simulated GPU behind a cached_backend whose cache lives in a temporary directory.
struct cache_fixture
{
    asio::io_context ioc;
    virtual_clock clock{ioc};
    temp_dir tmp{"warpsmith-cached-backend-test"};
    workload work = vadd_workload();
    simulated_backend inner{ioc, clock, engine_fixture::default_backend_options()};
    std::optional<std::filesystem::path> cache_dir = tmp.path() / "eval-cache";
    std::optional<cached_backend> backend;

    /// A started cached_backend over `inner` (a new one each call, sharing the cache directory).
    cached_backend& start_cache(const std::string& run = "run-001")
    {
        backend.emplace(inner, cache_dir, run, json::object{{"target_noise", 0.01}});
        run_to_end([this]() -> asio::awaitable<void> { co_await backend->start(work, 7); });
        return *backend;
    }

    void run_to_end(std::function<asio::awaitable<void>()> body)
    {
        bool done = false;
        std::exception_ptr error;
        asio::co_spawn(ioc,
                       body(),
                       [&](std::exception_ptr e)
                       {
                           error = e;
                           done = true;
                       });
        BOOST_REQUIRE(clock.run_until([&] { return done; }));
        ioc.restart();
        if (error)
            std::rethrow_exception(error);
    }

    /// Evaluates a candidate whose simulated result the markers choose, on GPU 0.
    gpu_evaluation evaluate(const std::vector<std::string>& markers,
                            const std::function<void(evaluate_request&)>& adjust = {})
    {
        evaluate_request r;
        r.name = "c0001";
        r.cand = candidate::from_kernel(work.reference);
        r.cand.source = kernel_with(markers);
        if (adjust)
            adjust(r);
        gpu_evaluation out;
        run_to_end([&]() -> asio::awaitable<void> { out = co_await backend->evaluate(0, r); });
        return out;
    }

    std::int64_t stat(const char* key) const { return backend->stats().at(key).as_int64(); }
};

bool is_cache_hit(const gpu_evaluation& ev)
{
    return ev.result.eval_cache.has_value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cached_backend_suite)

BOOST_AUTO_TEST_CASE(a_miss_is_forwarded_and_stored_and_the_same_candidate_then_costs_no_evaluation)
{
    cache_fixture f;
    auto& b = f.start_cache();
    const auto first = f.evaluate({"median_us=80"});
    BOOST_TEST(f.inner.evaluations() == 1);
    BOOST_TEST(!is_cache_hit(first));
    BOOST_TEST(f.stat("misses") == 1);
    BOOST_TEST(f.stat("stored") == 1);

    const auto second = f.evaluate({"median_us=80"});
    BOOST_TEST(f.inner.evaluations() == 1);  // answered from the cache
    BOOST_TEST(is_cache_hit(second));
    BOOST_TEST(second.result.valid());
    BOOST_TEST(second.result.score_us.value_or(0) == first.result.score_us.value_or(0));
    BOOST_TEST(second.result.eval_cache->candidate == "c0001");
    BOOST_TEST(second.result.eval_cache->run == "run-001");
    BOOST_TEST(f.stat("hits") == 1);

    // Another candidate is another key.
    f.evaluate({"median_us=90"});
    BOOST_TEST(f.inner.evaluations() == 2);
    const auto stats = b.stats();
    BOOST_TEST(stats.at("enabled").as_bool());
    BOOST_TEST(stats.at("files").as_array().size() == 1u);
}

BOOST_AUTO_TEST_CASE(stored_results_outlive_the_backend_that_measured_them)
{
    cache_fixture f;
    f.start_cache("run-001");
    f.evaluate({"median_us=80"});
    f.start_cache("run-002");
    const auto again = f.evaluate({"median_us=80"});
    BOOST_TEST(f.inner.evaluations() == 1);
    BOOST_TEST(is_cache_hit(again));
    BOOST_TEST(again.result.eval_cache->run == "run-001");
}

BOOST_AUTO_TEST_CASE(deterministic_failures_are_stored)
{
    cache_fixture f;
    f.start_cache();
    f.evaluate({"invalid=output_mismatch"});
    const auto again = f.evaluate({"invalid=output_mismatch"});
    BOOST_TEST(f.inner.evaluations() == 1);
    BOOST_TEST(is_cache_hit(again));
    BOOST_TEST(again.result.failure_kind() == "output_mismatch");
}

BOOST_AUTO_TEST_CASE(results_that_describe_the_machine_are_not_stored)
{
    // A crashed worker and an inconsistent timing (cacheable_result), and any evaluation that
    // restarted the worker, even with a failure kind that would be cached otherwise (a fault).
    for (const auto* marker : {"invalid=worker_crash", "invalid=timing_inconsistent", "crash", "fault"})
    {
        BOOST_TEST_CONTEXT(marker)
        {
            cache_fixture f;
            f.start_cache();
            f.evaluate({marker});
            const auto again = f.evaluate({marker});
            BOOST_TEST(f.inner.evaluations() == 2);
            BOOST_TEST(!is_cache_hit(again));
            BOOST_TEST(f.stat("stored") == 0);
            BOOST_TEST(f.stat("misses") == 2);
        }
    }
}

BOOST_AUTO_TEST_CASE(session_baselines_validation_and_some_cases_always_reach_the_inner_backend)
{
    const std::vector<std::function<void(evaluate_request&)>> uncached{
        [](evaluate_request& r) { r.session_baseline = true; },
        [](evaluate_request& r) { r.validate_only = true; },
        [](evaluate_request& r) { r.cases = {"big"}; }};
    for (std::size_t i = 0; i < uncached.size(); ++i)
    {
        BOOST_TEST_CONTEXT("request kind " << i)
        {
            cache_fixture f;
            f.start_cache();
            f.evaluate({"median_us=80"}, uncached[i]);
            const auto again = f.evaluate({"median_us=80"}, uncached[i]);
            BOOST_TEST(f.inner.evaluations() == 2);
            BOOST_TEST(!is_cache_hit(again));
            BOOST_TEST(f.stat("stored") == 0);
            BOOST_TEST(f.stat("misses") == 0);
        }
    }
    // A session baseline is not answered from a candidate's stored result either.
    cache_fixture f;
    f.start_cache();
    f.evaluate({"median_us=80"});
    f.evaluate({"median_us=80"}, uncached[0]);
    BOOST_TEST(f.inner.evaluations() == 2);
}

BOOST_AUTO_TEST_CASE(without_a_cache_directory_everything_is_forwarded)
{
    cache_fixture f;
    f.cache_dir.reset();
    f.start_cache();
    f.evaluate({"median_us=80"});
    f.evaluate({"median_us=80"});
    BOOST_TEST(f.inner.evaluations() == 2);
    const auto stats = f.backend->stats();
    BOOST_TEST(!stats.at("enabled").as_bool());
    BOOST_TEST(stats.at("files").as_array().empty());
    BOOST_TEST(!std::filesystem::exists(f.tmp.path() / "eval-cache"));
}

BOOST_AUTO_TEST_SUITE_END()
