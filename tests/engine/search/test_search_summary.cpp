// summary.json from a hand-made search state (search_summary.hpp; docs/run-directory.md): counts
// of candidates and failures, the search's best, per-GPU busy fractions, branches, baselines and
// vendor baselines, without running a search.

#include "engine/search/search_summary.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
namespace json = boost::json;

namespace
{

candidate_record record(
    const std::string& id, int branch, int iteration, bool evaluated, bool valid, double score)
{
    candidate_record r;
    r.ec.id = id;
    r.ec.branch = branch;
    r.ec.iteration = iteration;
    r.evaluated = evaluated;
    r.ec.valid = valid;
    r.ec.score_us = score;
    if (valid)
    {
        r.ec.case_median_us = {{"big", score}};
        r.ec.speedup_vs_reference = 100.0 / score;
        r.gpu = 0;
    }
    else if (evaluated)
        r.ec.failure_kind = "wrong_output";
    return r;
}

struct fixture
{
    std::string run_name = "run-1";
    std::string workload_name = "sgemm";
    search_options opts;
    std::deque<candidate_record> records;
    std::vector<kernel_baseline> reference{kernel_baseline{true, {{"big", 100.0}}, 100.0}};
    std::vector<kernel_baseline> initial{kernel_baseline{false, {}, std::nullopt}};
    std::map<std::string, json::object> vendor;
    json::object vendor_unavailable{
        {"cublas_tf32", json::object{{"kind", "unavailable"}, {"message", "no"}}}};
    budget_tracker budget{budget_limits{}};
    json::value best_json = nullptr;
    std::string best_note;
    json::object confirmation{{"skipped", "--confirm-top 0"}};

    fixture()
    {
        opts.branches = 2;
        records.push_back(record("c0001", 0, 1, true, true, 50));
        records.push_back(record("c0002", 1, 1, true, false, 0));
        records.push_back(record("c0003", 0, 2, true, true, 25));
        records.push_back(record("c0004", 1, 2, false, false, 0));
        records[1].invalidated = json::object{{"stage", "confirmation"}};
        vendor["cublas"] = json::object{
            {"name", "cublas"},
            {"kind", "cublas_sgemm"},
            {"math", "fp32"},
            {"gpu", 0},
            {"case_median_us", json::object{{"big", 20.0}}},
            {"score_us", 20.0},
            {"baseline",
             json::object{{"library", "cuBLAS 12"},
                          {"cases",
                           json::array{json::object{{"name", "big"},
                                                    {"timing", json::object{{"median_us", 20.0}}}}}}}}};
    }

    search_summary_state state() const
    {
        return search_summary_state{.run_name = run_name,
                                    .workload_name = workload_name,
                                    .opts = opts,
                                    .records = records,
                                    .evaluated = 3,
                                    .best = std::size_t{2},
                                    .reference = reference,
                                    .initial = initial,
                                    .has_initial = true,
                                    .vendor = vendor,
                                    .vendor_unavailable = vendor_unavailable,
                                    .budget = budget,
                                    .current_iteration = 3,
                                    .candidates_started = 4,
                                    .branch_stopped = {std::nullopt, std::string("exhausted")},
                                    .gpus = {gpu_summary{"H100", 5.0, 1}, gpu_summary{nullptr, 20.0, 0}},
                                    .resumed = true,
                                    .best_json = best_json,
                                    .best_note = best_note,
                                    .confirmation = confirmation};
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(search_summary_builder, fixture)

BOOST_AUTO_TEST_CASE(counts_candidates_and_failures)
{
    const auto s = summary(state(), search_outcome{"finished", "max_iterations", "", 0}, 10.0);
    BOOST_TEST(s.at("run").as_string() == "run-1");
    BOOST_TEST(s.at("workload").as_string() == "sgemm");
    BOOST_TEST(s.at("error").is_null());
    BOOST_TEST(s.at("resumed").as_bool());
    BOOST_TEST(s.at("best_note").is_null());
    const auto& c = s.at("candidates").as_object();
    BOOST_TEST(c.at("proposed").as_int64() == 4);
    BOOST_TEST(c.at("evaluated").as_int64() == 3);
    BOOST_TEST(c.at("valid").as_int64() == 2);
    BOOST_TEST(c.at("invalid").as_int64() == 1);
    BOOST_TEST(c.at("pending").as_int64() == 1);
    BOOST_TEST(c.at("invalidated_by_confirmation").as_int64() == 1);
    BOOST_TEST(c.at("failures").as_object().at("wrong_output").as_int64() == 1);
    BOOST_TEST(s.at("iterations_finished").as_int64() == 2);
    BOOST_TEST(s.at("best_search").as_object().at("id").as_string() == "c0003");
    BOOST_TEST(s.at("best_search").as_object().at("speedup_vs_reference").as_double() == 4.0);
}

BOOST_AUTO_TEST_CASE(gpus_branches_and_baselines)
{
    const auto s = summary(state(), search_outcome{"failed", "error", "boom", 1}, 10.0);
    BOOST_TEST(s.at("error").as_string() == "boom");
    const auto& gpus = s.at("gpus").as_array();
    BOOST_TEST(gpus.size() == 2u);
    BOOST_TEST(gpus[0].at("name").as_string() == "H100");
    BOOST_TEST(gpus[0].at("busy_fraction").as_double() == 0.5);
    BOOST_TEST(gpus[1].at("name").is_null());
    BOOST_TEST(gpus[1].at("busy_fraction").as_double() == 1.0);  // capped
    BOOST_TEST(s.at("gpu_busy_fraction").as_double() == 1.0);
    const auto& branches = s.at("branches").as_array();
    BOOST_TEST(branches[0].at("stopped").is_null());
    BOOST_TEST(branches[0].at("candidates").as_int64() == 2);
    BOOST_TEST(branches[1].at("stopped").as_string() == "exhausted");
    const auto& ref = s.at("reference").at("per_gpu").as_array();
    BOOST_TEST(ref[0].at("score_us").as_double() == 100.0);
    BOOST_TEST(s.at("initial").at("per_gpu").as_array()[0].at("score_us").is_null());
    const auto& cublas = s.at("baselines").at("cublas").as_object();
    BOOST_TEST(cublas.at("library").as_string() == "cuBLAS 12");
    BOOST_TEST(cublas.at("cases").at("big").at("median_us").as_double() == 20.0);
    BOOST_TEST(cublas.at("within_tolerance").is_null());
    BOOST_TEST(s.at("baselines_unavailable").as_object().contains("cublas_tf32"));
}

BOOST_AUTO_TEST_CASE(async_counts_rounds_and_no_initial)
{
    opts.async = true;
    auto st = state();
    st.has_initial = false;
    st.best = std::nullopt;
    const auto s = summary(st, search_outcome{"finished", "exhausted", "", 0}, 0.0);
    BOOST_TEST(s.at("iterations_finished").as_int64() == 2);
    BOOST_TEST(s.at("initial").is_null());
    BOOST_TEST(s.at("best_search").is_null());
    BOOST_TEST(s.at("gpu_busy_fraction").as_double() == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()
