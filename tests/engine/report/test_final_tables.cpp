// The final tables of optimize and tune (engine/report/search_table.hpp, tune_table.hpp) from
// summaries written by hand, and tune --offline's refusals (engine/report/offline_tune.hpp).

#include "engine/report/offline_tune.hpp"
#include "engine/report/search_table.hpp"
#include "engine/report/tune_table.hpp"
#include "harness/core/error.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;

namespace
{

bool has(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

json::object search_summary()
{
    return json::parse(R"j({
      "status": "finished", "stop_reason": "budget",
      "candidates": {"proposed": 3, "valid": 2, "invalid": 1, "pending": 0},
      "wall_seconds": 12.5, "gpu_busy_fraction": 0.5,
      "reference": {"per_gpu": [{"score_us": 100.0}]},
      "initial": {"per_gpu": [{"valid": true, "score_us": 50.0}]},
      "best": {"id": "c0002", "decided_by": "confirmation"},
      "confirmation": {"entries": [{"key": "c0002", "score_us": 24.5}],
                       "max_abs_rel_diff_vs_search": 0.02, "mean_abs_rel_diff_vs_search": 0.01},
      "tokens": {"input": 1000, "output": 200, "cost_usd": 0.0123}
    })j")
        .as_object();
}

json::value search_history()
{
    return json::parse(R"j({"candidates": [
      {"id": "c0001", "status": "valid", "score_us": 40.0, "speedup_vs_reference": 2.5,
       "speedup_vs_initial": 1.25},
      {"id": "c0002", "status": "valid", "score_us": 25.0, "speedup_vs_reference": 4.0,
       "speedup_vs_initial": 2.0},
      {"id": "c0003", "status": "invalid"}]})j");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(final_tables_suite)

BOOST_AUTO_TEST_CASE(search_table_lists_the_run_and_the_best_candidates)
{
    const std::string t = report::search_table(search_summary(), "/tmp/run-001", search_history());
    BOOST_TEST(has(
        t, "run /tmp/run-001: finished (budget), 3 candidates (2 valid, 1 invalid), 12.5 s, GPU busy 50%\n"));
    BOOST_TEST(has(t, "c0002 *"));
    BOOST_TEST(has(t, "24.50"));  // its confirmation
    BOOST_TEST(has(t, "4.00x"));
    // The best by speedup comes first.
    BOOST_TEST(t.find("c0002 *") < t.find("c0001"));
    BOOST_TEST(has(t, "best: c0002 -> /tmp/run-001/best.cu (decided by confirmation)\n"));
    BOOST_TEST(has(t, "up to 2.0% apart (mean 1.0%)"));
    BOOST_TEST(has(t, "tokens: 1000 in, 200 out, $0.0123\n"));
}

BOOST_AUTO_TEST_CASE(search_table_without_a_winner_or_history)
{
    json::object s = search_summary();
    s.erase("best");
    const std::string t = report::search_table(s, "/tmp/run-002", nullptr);
    BOOST_TEST(has(t, "no valid kernel\n"));
    BOOST_TEST(has(t, "reference"));
    BOOST_TEST(!has(t, "c0001"));
}

BOOST_AUTO_TEST_CASE(tune_table_without_a_valid_point)
{
    const json::object s = json::parse(R"j({
      "status": "finished", "stop_reason": "budget", "candidates": {"evaluated": 4, "valid": 0},
      "wall_seconds": 2.0, "gpu_busy_fraction": 0.25})j")
                               .as_object();
    const json::object tune =
        json::parse(R"j({"strategy": "anneal", "seed": 7, "pruned": {"count": 3}})j").as_object();
    const workload w = workload::load(test::source_dir() / "bench/workloads/sgemm");
    const std::string t = report::tune_table(s, tune, "/tmp/run-003", w, std::nullopt);
    BOOST_TEST(t ==
               "tune /tmp/run-003: finished (budget), anneal seed 7, 4 evaluated (0 valid), 3 pruned after "
               "compile, 2.0 s, GPU busy 25%\nno valid kernel was found\n");
}

BOOST_AUTO_TEST_CASE(offline_tune_needs_a_cache_of_the_workload)
{
    test::temp_dir empty("warpsmith-offline-tune");
    report::offline_tune_options o;
    o.workload = test::source_dir() / "bench/workloads/sgemm";
    o.cache_dir = empty.path();
    o.tune.strategy = "grid";
    try
    {
        report::run_offline_tune(o);
        BOOST_FAIL("an empty cache directory was accepted");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(has(e.what(), "--offline: no evaluation cache of workload"));
    }
}

BOOST_AUTO_TEST_SUITE_END()
