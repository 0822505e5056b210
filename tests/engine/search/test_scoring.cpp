// Scores, speedups, ranking, the confirmation decision and token/cost budgets, as pure functions.

#include "engine/search/budget.hpp"
#include "engine/search/scoring.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>

using namespace warpsmith;
namespace json = boost::json;
namespace tt = boost::test_tools;

namespace
{

json::object timing(double median)
{
    return json::object{{"median_us", median}, {"mean_us", median}};
}

protocol::evaluation_result result(std::initializer_list<std::pair<const char*, double>> perf,
                                   bool with_correctness = true)
{
    json::array cases;
    if (with_correctness)
        cases.push_back(json::object{{"name", "odd"}, {"role", "correctness"}, {"timing", nullptr}});
    for (const auto& [name, m] : perf)
        cases.push_back(json::object{{"name", name}, {"role", "performance"}, {"timing", timing(m)}});
    return protocol::evaluation_result::from_json(
        json::object{{"status", "valid"}, {"cases", std::move(cases)}});
}

evaluated_candidate cand(std::string id, bool valid, double speedup, double score)
{
    evaluated_candidate c;
    c.id = std::move(id);
    c.valid = valid;
    c.speedup_vs_reference = speedup;
    c.score_us = score;
    return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scoring_suite)

BOOST_AUTO_TEST_CASE(score_is_the_geometric_mean_of_performance_medians)
{
    const auto m = result({{"a", 100}, {"b", 400}}).performance_medians();
    BOOST_TEST(m.size() == 2u);  // the correctness case is not scored
    BOOST_TEST(*score_of(m) == 200.0, tt::tolerance(1e-12));
    BOOST_TEST(!score_of({}).has_value());
}

BOOST_AUTO_TEST_CASE(speedup_is_the_geometric_mean_of_per_case_ratios)
{
    const case_medians ref{{"a", 100}, {"b", 400}};
    const case_medians c{{"a", 50}, {"b", 400}};
    // ratios 2 and 1 -> sqrt(2)
    BOOST_TEST(*geomean_speedup(ref, c) == std::sqrt(2.0), tt::tolerance(1e-12));
    // Only common cases count.
    BOOST_TEST(*geomean_speedup(ref, case_medians{{"a", 25}, {"z", 1}}) == 4.0, tt::tolerance(1e-12));
    BOOST_TEST(!geomean_speedup(ref, case_medians{{"z", 1}}).has_value());
}

BOOST_AUTO_TEST_CASE(ranking_prefers_speedup_then_score_then_id)
{
    std::vector<evaluated_candidate> h{cand("c0001", true, 1.5, 80),
                                       cand("c0002", false, 0, 0),
                                       cand("c0003", true, 2.0, 90),
                                       cand("c0004", true, 1.5, 70),
                                       cand("c0005", true, 1.5, 70)};
    BOOST_TEST(top_candidates(h, 3) == (std::vector<std::string>{"c0003", "c0004", "c0005"}));
    BOOST_TEST(top_candidates(h, 10).size() == 4u);
}

BOOST_AUTO_TEST_CASE(confirmation_decides_on_interleaved_numbers)
{
    json::object timings{{"reference", json::object{{"a", timing(200)}, {"b", timing(200)}}},
                         {"initial", json::object{{"a", timing(100)}, {"b", timing(100)}}},
                         {"c0001", json::object{{"a", timing(60)}, {"b", timing(60)}}},   // search said 50
                         {"c0002", json::object{{"a", timing(55)}, {"b", timing(55)}}}};  // search said 55
    json::object response{{"timings", timings}};
    std::vector<confirmation_input> in{
        {"reference", false, 200.0}, {"initial", true, 100.0}, {"c0001", true, 50.0}, {"c0002", true, 55.0}};
    const auto d = decide_confirmation(protocol::interleaved_result::from_json(response), in);
    BOOST_REQUIRE(d.winner.has_value());
    BOOST_TEST(*d.winner == "c0002");  // c0001 won the search, c0002 the confirmation
    BOOST_REQUIRE_EQUAL(d.entries.size(), 4u);
    BOOST_TEST(d.entries[0].key == "c0002");
    BOOST_TEST(d.entries[0].speedup_vs_reference == 200.0 / 55, tt::tolerance(1e-12));
    BOOST_TEST(d.entries[0].speedup_vs_initial == 100.0 / 55, tt::tolerance(1e-12));
    BOOST_TEST(d.max_abs_rel_diff == 0.2, tt::tolerance(1e-12));
    BOOST_TEST(d.mean_abs_rel_diff == 0.05, tt::tolerance(1e-12));
    const auto j = d.to_json();
    BOOST_TEST(j.at("winner").as_string() == "c0002");
}

BOOST_AUTO_TEST_CASE(the_reference_never_wins_a_confirmation)
{
    json::object response{{"timings",
                           json::object{{"reference", json::object{{"a", timing(10)}}},
                                        {"c0001", json::object{{"a", timing(20)}}}}}};
    const auto d = decide_confirmation(protocol::interleaved_result::from_json(response),
                                       {{"reference", false, 10.0}, {"c0001", true, 20.0}});
    BOOST_TEST(*d.winner == "c0001");
    BOOST_TEST(d.entries[0].key == "reference");
}

BOOST_AUTO_TEST_CASE(token_and_cost_budgets_report_once)
{
    budget_limits l;
    l.tokens = 1000;
    l.cost_usd = 0.5;
    budget_tracker b(l);
    token_usage u;
    u.input = 300;
    u.output = 100;
    u.reasoning = 50;  // part of output, not counted twice
    u.cost_usd = 0.1;
    BOOST_TEST(!b.add_usage(u).has_value());
    BOOST_TEST(!b.add_usage(u).has_value());
    BOOST_TEST(*b.add_usage(u) == "max_tokens");  // 1200 tokens
    BOOST_TEST(b.usage_exhausted());
    BOOST_TEST(!b.add_usage(u).has_value());  // reported once
    const auto j = b.to_json(2, 7, 12.5);
    BOOST_TEST(j.at("used").at("tokens").as_int64() == 1600);
    BOOST_TEST(j.at("limits").at("max_tokens").as_int64() == 1000);

    budget_limits lc;
    lc.cost_usd = 0.25;
    budget_tracker c(lc);
    BOOST_TEST(!c.add_usage(u).has_value());
    BOOST_TEST(!c.add_usage(u).has_value());
    BOOST_TEST(*c.add_usage(u) == "max_cost");
}

BOOST_AUTO_TEST_SUITE_END()

#include "engine/search/progress.hpp"

#include <cstdio>

BOOST_AUTO_TEST_SUITE(progress_suite)

BOOST_AUTO_TEST_CASE(status_line_and_event_lines)
{
    progress_snapshot s;
    s.iteration = 3;
    s.max_iterations = 5;
    s.proposing = 2;
    s.timing = 1;
    s.evaluated = 12;
    s.valid = 10;
    s.best_speedup = 1.84;
    s.best_id = "c0007";
    s.usage.input = 10000;
    s.usage.output = 2300;
    s.usage.cost_usd = 0.04;
    s.gpu_busy_fraction = 0.87;
    s.elapsed_seconds = 42;
    BOOST_TEST(s.line() ==
               "it 3/5 | model 2 compile 0 queued 0 timing 1 | 12 evaluated, 10 valid | best 1.84x c0007 | "
               "12.3k tok $0.04 | GPU 87% | 42 s");
    json::object ev{
        {"event", "evaluated"},
        {"id", "c0002"},
        {"valid", false},
        {"failure", json::object{{"kind", "mismatch"}, {"message", "case odd: 3 mismatches\nmore"}}}};
    BOOST_TEST(describe_event(ev) == "c0002 invalid  mismatch: case odd: 3 mismatches");
    BOOST_TEST(describe_event(json::object{{"event", "status"}}).empty());

    // Vendor baselines get a line like the reference's, timed or not.
    json::object timed{{"event", "vendor_baseline"},
                       {"key", "cublas"},
                       {"gpu", 0},
                       {"available", true},
                       {"score_us", 241.8},
                       {"within_tolerance", true}};
    BOOST_TEST(describe_event(timed) == "cublas on GPU 0: 241.80 us");
    timed["key"] = "cublas_tf32";
    timed["within_tolerance"] = false;
    BOOST_TEST(describe_event(timed) == "cublas_tf32 on GPU 0: 241.80 us (outside the workload's tolerance)");
    json::object missing{{"event", "vendor_baseline"},
                         {"key", "cublas"},
                         {"gpu", 0},
                         {"available", false},
                         {"error", json::object{{"kind", "no_baseline"}, {"message", "cuBLAS not found"}}}};
    BOOST_TEST(describe_event(missing) == "cublas on GPU 0: not timed (no_baseline: cuBLAS not found)");
}

BOOST_AUTO_TEST_CASE(event_lines_show_control_characters_instead_of_sending_them)
{
    // A failure message quotes the compile log, which quotes the model's source: `#error` followed
    // by ESC ] 0 ; ... BEL would retitle the user's terminal, ESC [ 2 J clear it.
    std::FILE* f = std::tmpfile();
    progress_reporter r(progress_mode::plain, f);
    progress_snapshot s;
    r.event(json::object{{"event", "evaluated"},
                         {"id", "c0002"},
                         {"valid", false},
                         {"failure",
                          json::object{{"kind", "compile_error"},
                                       {"message", "kernel.cu(1): error: #error \x1b]0;PWNED\x07\x1b[2J"}}}},
            s);
    std::rewind(f);
    std::string out(4096, '\0');
    out.resize(std::fread(out.data(), 1, out.size(), f));
    std::fclose(f);
    BOOST_TEST(out.find('\x1b') == std::string::npos, out);
    BOOST_TEST(out.find('\x07') == std::string::npos, out);
    BOOST_TEST(out.find("#error \\x1b]0;PWNED\\x07\\x1b[2J") != std::string::npos, out);
}

BOOST_AUTO_TEST_CASE(json_progress_is_one_object_per_line_without_results)
{
    std::FILE* f = std::tmpfile();
    progress_reporter r(progress_mode::json, f);
    progress_snapshot s;
    r.event(json::object{{"event", "evaluated"}, {"id", "c0001"}, {"result", json::object{{"big", 1}}}}, s);
    r.event(json::object{{"event", "status"}}, s);
    std::rewind(f);
    char buf[4096];
    int lines = 0;
    while (std::fgets(buf, sizeof buf, f))
    {
        const auto v = json::parse(buf);
        BOOST_TEST(v.at("type").as_string() == "progress");
        BOOST_TEST(!v.at("event").as_object().contains("result"));
        BOOST_TEST(v.at("status").at("evaluated").as_int64() == 0);
        ++lines;
    }
    BOOST_TEST(lines == 2);
    std::fclose(f);
}

BOOST_AUTO_TEST_SUITE_END()
