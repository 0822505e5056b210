// results/run-NNN (and the eval-NNN / replay-NNN of other commands): numbering, refusing what is not a run,
// and every file a finished run leaves (docs/run-directory.md), checked after a simulated search.

#include "engine/run/run_directory.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/search/engine_test_support.hpp"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <thread>

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(run_directory_suite)

BOOST_AUTO_TEST_CASE(next_free_number_is_one_past_the_highest)
{
    temp_dir tmp;
    const auto results = tmp.path() / "results";
    BOOST_TEST(run_directory::create(results).name() == "run-001");
    fs::create_directories(results / "run-007");
    fs::create_directories(results / "notes");
    fs::create_directories(results / "run-x");
    BOOST_TEST(run_directory::create(results).name() == "run-008");
    const auto r = run_directory::create(results);
    BOOST_TEST(r.name() == "run-009");
    BOOST_TEST(fs::is_directory(r.path() / "candidates"));
    BOOST_TEST(fs::is_directory(r.path() / "llm"));
    BOOST_TEST(fs::is_directory(r.path() / "workload"));
}

BOOST_AUTO_TEST_CASE(numbered_directories_of_any_prefix_take_the_next_free_number)
{
    // The eval and run commands number their output directories the way runs are numbered.
    temp_dir tmp;
    const auto results = tmp.path() / "results";
    auto a = claim_numbered_dir(results, "eval");
    auto b = claim_numbered_dir(results, "eval");
    fs::create_directory(results / "eval-041");
    fs::create_directory(results / "run-090");
    auto c = claim_numbered_dir(results, "eval");
    BOOST_TEST(a.filename() == "eval-001");
    BOOST_TEST(b.filename() == "eval-002");
    BOOST_TEST(c.filename() == "eval-042");
    BOOST_TEST(claim_numbered_dir(results, "replay").filename() == "replay-001");
    BOOST_TEST(run_directory::create(results).name() == "run-091");
    write_file_atomic(tmp.path() / "a-file", "x");
    BOOST_CHECK_THROW(claim_numbered_dir(tmp.path() / "a-file", "eval"), user_error);
}

BOOST_AUTO_TEST_CASE(concurrent_creators_never_share_a_run)
{
    temp_dir tmp;
    const auto results = tmp.path() / "results";
    std::vector<std::string> names(8);
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&, i] { names[i] = run_directory::create(results).name(); });
    for (auto& t : threads)
        t.join();
    std::sort(names.begin(), names.end());
    BOOST_TEST((std::adjacent_find(names.begin(), names.end()) == names.end()));
}

BOOST_AUTO_TEST_CASE(open_refuses_what_is_not_a_run)
{
    temp_dir tmp;
    try
    {
        run_directory::open(tmp.path());
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("not a warpsmith run") != std::string::npos);
    }
    BOOST_CHECK_THROW(run_directory::open(tmp.path() / "missing"), user_error);
}

BOOST_AUTO_TEST_CASE(case_names_become_safe_file_names)
{
    BOOST_TEST(file_name_for_case("4096x2048x1024") == "4096x2048x1024");
    BOOST_TEST(file_name_for_case("a/b c") == "a_b_c");
    BOOST_TEST(file_name_for_case("..") == "_..");
}

BOOST_FIXTURE_TEST_CASE(a_finished_run_holds_every_documented_file, engine_fixture)
{
    test_strategy strat(clock, work);
    strat.sources = {
        kernel_with({"median_us=90"}), kernel_with({"invalid=mismatch"}), kernel_with({"median_us=70"})};
    search_options o;
    o.branches = 1;
    o.budgets.iterations = 3;
    o.hidden_seed = 4242;
    const auto res = search(strat, o);
    BOOST_TEST(res.status == "finished");
    const auto p = run->path();
    run->write_workload(work, std::string("supplied"));

    for (const char* f : {"run.json",
                          "journal.jsonl",
                          "history.json",
                          "summary.json",
                          "best.cu",
                          "best.json",
                          "workload/workload.json",
                          "workload/reference.cu",
                          "workload/initial.cu",
                          "workload/cases.json",
                          "workload/supplied-reference.cu"})
        BOOST_TEST(fs::exists(p / f), f);
    BOOST_TEST(fs::is_directory(p / "llm"));

    // run.json: devices and this session.
    const auto rj = read_json_file(p / "run.json");
    BOOST_TEST(rj.at("devices").as_array().size() == 1u);
    BOOST_TEST(rj.at("sessions").as_array().size() == 1u);
    BOOST_TEST(rj.at("status").as_string() == "finished");
    BOOST_TEST(!rj.at("sessions").at(0).at("ended").is_null());

    // The workload as used reloads to the same workload.
    const auto reloaded = workload::load(p / "workload" / "workload.json");
    BOOST_TEST(reloaded.name == "vadd");
    BOOST_TEST(reloaded.cases.size() == 3u);
    BOOST_TEST(reloaded.initial.has_value());

    for (const char* id : {"c0001", "c0002", "c0003"})
    {
        const auto d = run->candidate_dir(id);
        for (const char* f : {"kernel.cu",
                              "candidate.json",
                              "compile.log",
                              "result.json",
                              "requests/odd.json",
                              "requests/big.json",
                              "requests/huge.json"})
            BOOST_TEST(fs::exists(d / f), std::string(id) + "/" + f);
    }
    const auto cj = read_json_file(run->candidate_dir("c0002") / "candidate.json");
    BOOST_TEST(cj.at("id").as_string() == "c0002");
    BOOST_TEST(cj.at("iteration").as_int64() == 2);
    BOOST_TEST(cj.at("repair_of").is_null());
    BOOST_TEST(cj.at("entry").as_string() == "vadd");
    BOOST_TEST(cj.at("launch").is_object());
    BOOST_TEST(!cj.as_object().contains("source"));
    const auto rr = read_json_file(run->candidate_dir("c0002") / "result.json");
    BOOST_TEST(rr.at("valid").as_bool() == false);
    BOOST_TEST(rr.at("failure").at("kind").as_string() == "mismatch");

    // A replay request is self-contained: the workload, the case and the candidate with its source.
    const auto req = read_json_file(run->candidate_dir("c0003") / "requests" / "big.json");
    BOOST_TEST(req.at("format").as_string() == "warpsmith-replay-request");
    BOOST_TEST(req.at("case").as_string() == "big");
    BOOST_TEST(req.at("validate_only").as_bool() == false);
    BOOST_TEST(req.at("hidden_seed").to_number<std::uint64_t>() == 4242u);
    BOOST_TEST(req.at("candidate").at("source").as_string() == strat.sources[2]);
    BOOST_CHECK_NO_THROW(workload::from_json(req.at("workload"), p, "request"));
    BOOST_CHECK_NO_THROW(candidate::from_json(req.at("candidate"), "request"));
    BOOST_TEST(
        read_json_file(run->candidate_dir("c0003") / "requests" / "odd.json").at("validate_only").as_bool());

    const auto history = read_json_file(p / "history.json").at("candidates").as_array();
    BOOST_REQUIRE_EQUAL(history.size(), 3u);
    BOOST_TEST(history[1].at("status").as_string() == "invalid");
    BOOST_TEST(history[2].at("speedup_vs_reference").as_double() == 200.0 / 70,
               boost::test_tools::tolerance(1e-9));

    const auto summary = read_json_file(p / "summary.json");
    for (const char* k : {"best",
                          "reference",
                          "initial",
                          "candidates",
                          "budgets",
                          "tokens",
                          "cost_usd",
                          "wall_seconds",
                          "gpus",
                          "gpu_busy_fraction",
                          "confirmation",
                          "status",
                          "stop_reason"})
        BOOST_TEST(summary.as_object().contains(k), k);
    BOOST_TEST(summary.at("best").at("id").as_string() == "c0003");
    BOOST_TEST(summary.at("candidates").at("valid").as_int64() == 2);
    BOOST_TEST(summary.at("candidates").at("failures").at("mismatch").as_int64() == 1);
    BOOST_TEST(summary.at("gpu_busy_fraction").as_double() > 0.0);
    BOOST_TEST(summary.at("gpu_busy_fraction").as_double() <= 1.0);
    BOOST_TEST(read_json_file(p / "best.json").at("launch").is_object());
}

BOOST_AUTO_TEST_CASE(the_documented_journal_example_replays)
{
    // docs/run-directory.md carries a complete journal between these markers.
    const auto doc = read_text_file(source_dir() / "docs" / "run-directory.md");
    const std::string begin = "<!-- journal-example -->\n```jsonl\n";
    const auto b = doc.find(begin);
    BOOST_REQUIRE(b != std::string::npos);
    const auto e = doc.find("```", b + begin.size());
    const auto text = doc.substr(b + begin.size(), e - b - begin.size());
    const auto j = parse_journal(text, "docs/run-directory.md");
    BOOST_TEST(!j.torn_tail);
    const auto r = replay_events(j.events);
    BOOST_TEST(r.candidates.size() == 3u);
    BOOST_TEST(r.pending_ids().empty());
    BOOST_TEST(r.finished);
    BOOST_TEST(r.last_finished_iteration == 1);
}

BOOST_AUTO_TEST_SUITE_END()
