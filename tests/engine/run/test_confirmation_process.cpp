// The final confirmation validates what it times, through the real `warpsmith optimize`, the
// executor backend and the fake worker (tests/engine/executors/fake_worker.cpp, marker
// `FAKE: confirm_invalid[=KIND]`: time_interleaved lists the entry in "invalid"):
//  (a) the fastest candidate is invalid in the confirmation: the next valid one is best.cu, the
//      invalid one is journaled (`invalidated`) and recorded invalid with the confirmation's kind;
//  (b) every candidate is invalid and there is no initial kernel: no best.cu, summary.json says so;
//  (c) --resume of such runs keeps the verdicts;
//  (d) `warpsmith report` shows them.
// A confirmation that fails as a whole (FAKE: confirm_crash) leaves an unconfirmed winner, said so.
// Skipped with a message when the warpsmith or fake_worker binary is missing.

#include "engine/run/journal.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/cli/cli_test_support.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdlib>

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

bool binaries_present()
{
    if (!fs::exists(bin_dir() / "warpsmith") || !fs::exists(bin_dir() / "fake_worker"))
    {
        BOOST_TEST_MESSAGE("skipped: warpsmith or fake_worker is not built in " << bin_dir());
        return false;
    }
    return true;
}

fs::path run_vadd_dir()
{
    return source_dir() / "tests" / "engine" / "run" / "data" / "vadd";
}

std::string kernel(const std::string& markers)
{
    return "// Confirmation test candidate.\n" + markers +
           "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
           "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n)\n        c[i] = a[i] + "
           "b[i];\n}\n";
}

/// A scripted candidate directory: name -> source.
fs::path candidates(const fs::path& dir, const std::vector<std::pair<std::string, std::string>>& files)
{
    fs::create_directories(dir);
    for (const auto& [name, src] : files)
        write_file_atomic(dir / name, src);
    return dir;
}

cli_result optimize(const fs::path& cwd, std::vector<std::string> extra)
{
    std::vector<std::string> a{"optimize",
                               "--worker",
                               (bin_dir() / "fake_worker").string(),
                               "--gpus",
                               "0",
                               "--compile-workers",
                               "2"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_warpsmith(a, cwd);
}

std::vector<json::object> events_of(const fs::path& run, std::string_view type)
{
    std::vector<json::object> out;
    for (auto& e : read_journal(run / "journal.jsonl").events)
        if (e.at("event").as_string() == type)
            out.push_back(e);
    return out;
}

const json::object& history_row(const json::value& history, const std::string& id)
{
    for (const auto& r : history.at("candidates").as_array())
        if (r.at("id").as_string() == id)
            return r.as_object();
    BOOST_FAIL("no history row " + id);
    throw std::logic_error("unreachable");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(confirmation_process_suite)

BOOST_AUTO_TEST_CASE(top_candidate_invalid_in_confirmation_the_next_valid_one_wins_resume_and_report_keep_it)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-confirm-invalid");
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    const auto cheat = kernel("// FAKE: median_us=60\n// FAKE: confirm_invalid=timed_output_mismatch\n");
    const auto honest = kernel("// FAKE: median_us=90\n");
    const auto slow = kernel("// FAKE: median_us=120\n");
    const auto cands = candidates(tmp.path() / "cands",
                                  {{"a_cheat.cu", cheat}, {"b_honest.cu", honest}, {"c_slow.cu", slow}});
    const fs::path run = tmp.path() / "results" / "run-001";

    // (a)
    auto r = optimize(tmp.path(),
                      {"--workload",
                       run_vadd_dir().string(),
                       "--candidates",
                       cands.string(),
                       "--branches",
                       "3",
                       "--max-iterations",
                       "1",
                       "--confirm-top",
                       "3"});
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    BOOST_TEST(read_text_file(run / "best.cu") == honest);
    auto summary = read_json_file(run / "summary.json");
    BOOST_TEST(summary.at("best").at("id").as_string() == "c0002");
    BOOST_TEST(summary.at("best").at("decided_by").as_string() == "confirmation");
    BOOST_TEST(summary.at("best").at("confirmed").as_bool());
    BOOST_TEST(summary.at("best_search").at("id").as_string() == "c0002");  // c0001 is no longer valid
    BOOST_TEST(summary.at("confirmation").at("invalidated").at("c0001").at("kind").as_string() ==
               "timed_output_mismatch");
    BOOST_TEST(summary.at("candidates").at("invalidated_by_confirmation").as_int64() == 1);
    auto inv = events_of(run, "invalidated");
    BOOST_REQUIRE_EQUAL(inv.size(), 1u);
    BOOST_TEST(inv[0].at("id").as_string() == "c0001");
    BOOST_TEST(inv[0].at("failure").at("kind").as_string() == "timed_output_mismatch");
    BOOST_TEST(inv[0].at("failure").at("case").as_string() == "1m");
    auto history = read_json_file(run / "history.json");
    BOOST_TEST(history_row(history, "c0001").at("status").as_string() == "invalid");
    BOOST_TEST(history_row(history, "c0001").at("failure").at("kind").as_string() == "timed_output_mismatch");
    const auto result = read_json_file(run / "candidates" / "c0001" / "result.json");
    BOOST_TEST(!result.at("valid").as_bool());
    BOOST_TEST(result.at("invalidated").at("stage").as_string() == "confirmation");
    BOOST_TEST(r.err.find("c0001 invalid in confirmation: timed_output_mismatch") != std::string::npos,
               r.err);

    // (c) --resume: nothing left to propose; confirmation again without c0001.
    r = optimize(tmp.path(), {"--resume", run.string(), "--candidates", (tmp.path() / "cands").string()});
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    BOOST_TEST(read_text_file(run / "best.cu") == honest);
    summary = read_json_file(run / "summary.json");
    BOOST_TEST(summary.at("resumed").as_bool());
    BOOST_TEST(summary.at("best").at("id").as_string() == "c0002");
    BOOST_TEST(summary.at("candidates").at("invalidated_by_confirmation").as_int64() == 1);
    BOOST_TEST(events_of(run, "invalidated").size() == 1u);
    const auto conf = events_of(run, "confirmation");
    BOOST_REQUIRE_EQUAL(conf.size(), 2u);
    for (const auto& e : conf.back().at("entries").as_array())
        BOOST_TEST(e.at("key").as_string() != "c0001");
    history = read_json_file(run / "history.json");
    BOOST_TEST(history_row(history, "c0001").at("status").as_string() == "invalid");

    // (d) the report shows c0001 invalid with the confirmation's kind, and the honest winner.
    r = run_warpsmith({"report", run.string()}, tmp.path());
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    const auto html = read_text_file(run / "report.html");
    BOOST_TEST(html.find("timed_output_mismatch") != std::string::npos);
    BOOST_TEST(html.find("c0002") != std::string::npos);
    BOOST_TEST(read_text_file(run / "heatmap.svg").find("data-failure=\"timed_output_mismatch\"") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_candidate_survives_confirmation_no_best_cu_and_the_summary_says_so)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-confirm-none");
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    // The vadd workload without its initial kernel, so that nothing can fall back.
    const fs::path w = tmp.path() / "vadd";
    fs::create_directories(w);
    auto wj = read_json_file(run_vadd_dir() / "workload.json").as_object();
    wj.erase("initial");
    write_json_file(w / "workload.json", wj);
    fs::copy_file(run_vadd_dir() / "reference.cu", w / "reference.cu");
    const auto cands = candidates(
        tmp.path() / "cands",
        {{"a.cu", kernel("// FAKE: median_us=60\n// FAKE: confirm_invalid=timing_inconsistent\n")},
         {"b.cu", kernel("// FAKE: median_us=70\n// FAKE: confirm_invalid=out_of_bounds_write\n")}});
    const fs::path run = tmp.path() / "results" / "run-001";

    // (b)
    auto r = optimize(tmp.path(),
                      {"--workload",
                       w.string(),
                       "--candidates",
                       cands.string(),
                       "--branches",
                       "2",
                       "--max-iterations",
                       "1",
                       "--confirm-top",
                       "3"});
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    BOOST_TEST(!fs::exists(run / "best.cu"));
    BOOST_TEST(!fs::exists(run / "best.json"));
    auto summary = read_json_file(run / "summary.json");
    BOOST_TEST(summary.at("best").is_null());
    BOOST_TEST(summary.at("best_note").as_string().find("no candidate survived confirmation") !=
               std::string::npos);
    BOOST_TEST(summary.at("confirmation").at("no_candidate_survived").as_bool());
    BOOST_TEST(summary.at("candidates").at("valid").as_int64() == 0);
    BOOST_TEST(summary.at("candidates").at("failures").at("out_of_bounds_write").as_int64() == 1);
    BOOST_TEST(r.out.find("no candidate survived confirmation") != std::string::npos, r.out);
    BOOST_TEST(events_of(run, "run_finished").back().at("winner").is_null());

    // (c)
    r = optimize(tmp.path(), {"--resume", run.string(), "--candidates", (tmp.path() / "cands").string()});
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    BOOST_TEST(!fs::exists(run / "best.cu"));
    summary = read_json_file(run / "summary.json");
    BOOST_TEST(summary.at("best").is_null());
    BOOST_TEST(summary.at("candidates").at("invalidated_by_confirmation").as_int64() == 2);
    BOOST_TEST(summary.at("best_note").as_string().find("c0001 (timing_inconsistent)") != std::string::npos);

    // (d)
    r = run_warpsmith({"report", run.string()}, tmp.path());
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    const auto html = read_text_file(run / "report.html");
    BOOST_TEST(html.find("timing_inconsistent") != std::string::npos);
    BOOST_TEST(html.find("out_of_bounds_write") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_confirmation_that_fails_as_a_whole_leaves_an_unconfirmed_winner_said_so)
{
    if (!binaries_present())
        return;
    temp_dir tmp("warpsmith-confirm-crash");
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    const auto crashing = kernel("// FAKE: median_us=60\n// FAKE: confirm_crash\n");
    const auto cands =
        candidates(tmp.path() / "cands", {{"a.cu", crashing}, {"b.cu", kernel("// FAKE: median_us=90\n")}});
    const fs::path run = tmp.path() / "results" / "run-001";
    auto r = optimize(tmp.path(),
                      {"--workload",
                       run_vadd_dir().string(),
                       "--candidates",
                       cands.string(),
                       "--branches",
                       "2",
                       "--max-iterations",
                       "1",
                       "--confirm-top",
                       "2"});
    BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
    const auto summary = read_json_file(run / "summary.json");
    BOOST_TEST(summary.at("confirmation").at("skipped").as_string().rfind("failed: ", 0) == 0u);
    BOOST_TEST(summary.at("best").at("decided_by").as_string() == "search");
    BOOST_TEST(!summary.at("best").at("confirmed").as_bool());
    BOOST_TEST(summary.at("best_note").as_string().find("not confirmed") != std::string::npos);
    BOOST_TEST(events_of(run, "invalidated").empty());
}

BOOST_AUTO_TEST_SUITE_END()
