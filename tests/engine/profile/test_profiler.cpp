// Profiles end to end without a GPU: run_profile drives fake_ncu, which runs fake_worker as its
// application and serves the H200-era CSV captures under data/ (tests/engine/profile/fake_ncu.cpp).
// Every way a profile can fail is one line and an outcome; and in a search with --use-nsight the
// profiles never overlap a timing on the GPU and never change a score.

#include "engine/profile/profiler.hpp"
#include "engine/search/executor_backend.hpp"
#include "engine/search/search_engine.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/executors/executor_test_support.hpp"
#include "tests/engine/search/engine_test_support.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

fs::path fake_ncu()
{
    return bin_dir() / "fake_ncu";
}

/// Sets the fake's environment for one test and clears it afterwards.
struct fake_ncu_env
{
    explicit fake_ncu_env(const std::string& mode = "", const fs::path& log = {})
    {
        ::setenv("FAKE_NCU_DATA", (source_dir() / "tests/engine/profile/data").c_str(), 1);
        ::setenv("FAKE_NCU_FIXTURE", "sgemm", 1);
        ::setenv("FAKE_NCU_MODE", mode.c_str(), 1);
        ::setenv("FAKE_NCU_LOG", log.c_str(), 1);
    }
    ~fake_ncu_env()
    {
        for (const char* n :
             {"FAKE_NCU_DATA", "FAKE_NCU_FIXTURE", "FAKE_NCU_MODE", "FAKE_NCU_LOG", "FAKE_NCU_SLEEP_MS"})
            ::unsetenv(n);
    }
};

struct profile_fixture
{
    boost::asio::io_context ioc;
    temp_dir tmp{"warpsmith-profile"};
    workload work = vadd_workload(false);

    profile_outcome profile(const std::string& source,
                            profiler_options opts = {},
                            std::string case_name = "",
                            std::vector<std::string> worker_extra = {})
    {
        if (!opts.ncu)
            opts.ncu = fake_ncu().string();
        profile_job job;
        job.w = &work;
        job.hidden_seed = 7;
        job.request.name = "c0001";
        job.request.cand = candidate::from_kernel(work.reference);
        job.request.cand.source = source;
        job.case_name = std::move(case_name);
        job.launch.worker_binary = fake_worker_path();
        job.launch.extra_args = std::move(worker_extra);
        job.output_base = tmp.path() / "profiles" / "c0001-big";
        job.spill_stores_bytes = 0;
        std::optional<profile_outcome> out;
        auto body = [&]() -> boost::asio::awaitable<void>
        { out = co_await run_profile(ioc.get_executor(), opts, std::move(job)); };
        run_coro(ioc, body(), std::chrono::seconds(60));
        return *out;
    }
};

bool have_fakes()
{
    return fs::exists(fake_ncu()) && fs::exists(fake_worker_path());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(profiler_suite)

BOOST_FIXTURE_TEST_CASE(a_profile_validates_profiles_the_repeat_launch_and_writes_its_files, profile_fixture)
{
    BOOST_REQUIRE(have_fakes());
    const fs::path log = tmp.path() / "events.log";
    fake_ncu_env env("", log);
    BOOST_TEST(largest_performance_case(work) == "huge");
    profile_outcome p = profile(kernel_with({}), {}, "", {"--log", log.string()});
    BOOST_TEST_REQUIRE(p.ok, p.message);
    BOOST_TEST(p.case_name == "huge");
    BOOST_TEST(p.ncu_version == "2025.3.1.0");
    BOOST_TEST(p.summary->kernel == "sgemm");
    BOOST_TEST(fs::exists(p.report_path));
    const json::value doc = read_json_file(p.json_path);
    BOOST_TEST(doc.at("ok").as_bool());
    BOOST_TEST(doc.at("case").as_string() == "huge");
    BOOST_TEST(doc.at("ncu_version").as_string() == "2025.3.1.0");
    BOOST_TEST(doc.at("summary").at("kernel").as_string() == "sgemm");
    BOOST_TEST(doc.at("sections").as_array().size() == 7u);
    // The worker under ncu saw exactly one profiled case, inside ncu's run.
    const auto events = read_fake_log(log);
    const auto launches = events_named(events, "profiled_launch");
    BOOST_TEST_REQUIRE(launches.size() == 1u);
    BOOST_TEST(launches[0].name == "c0001/huge");
    BOOST_TEST(events_named(events, "profile_begin").at(0).ns < launches[0].ns);
    BOOST_TEST(launches[0].ns < events_named(events, "profile_end").at(0).ns);
}

BOOST_FIXTURE_TEST_CASE(every_failure_is_one_line, profile_fixture)
{
    BOOST_REQUIRE(have_fakes());
    auto one_line = [](const profile_outcome& p)
    { return !p.ok && !p.message.empty() && p.message.find('\n') == std::string::npos; };
    {
        fake_ncu_env env("perm");
        profile_outcome p = profile(kernel_with({}));
        BOOST_TEST(p.error_kind == "not_permitted");
        BOOST_TEST(p.message.find("ERR_NVGPUCTRPERM") != std::string::npos);
        BOOST_TEST(one_line(p));
    }
    {
        fake_ncu_env env("garbage");
        profile_outcome p = profile(kernel_with({}));
        BOOST_TEST(p.error_kind == "unparsable");
        BOOST_TEST(p.message.find("2025.3.1.0") != std::string::npos);
        BOOST_TEST(one_line(p));
    }
    {
        fake_ncu_env env("hang");
        profiler_options o;
        o.timeout = std::chrono::milliseconds(1500);
        profile_outcome p = profile(kernel_with({}), o);
        BOOST_TEST(p.error_kind == "timeout");
        BOOST_TEST(p.message.find("--profile-timeout-ms") != std::string::npos);
        BOOST_TEST(one_line(p));
    }
    {
        fake_ncu_env env;
        profiler_options o;
        o.ncu = (tmp.path() / "no-ncu-here").string();
        profile_outcome p = profile(kernel_with({}), o);
        BOOST_TEST(p.error_kind == "ncu_missing");
        BOOST_TEST(p.message.find("--ncu PATH sets it") != std::string::npos);
        BOOST_TEST(one_line(p));
    }
    {
        fake_ncu_env env;
        profile_outcome p = profile(kernel_with({"invalid=mismatch"}));
        BOOST_TEST(p.error_kind == "invalid");
        BOOST_TEST(p.message.find("failed validation on case huge") != std::string::npos);
        BOOST_TEST(!p.summary.has_value());
        BOOST_TEST(one_line(p));
    }
    {
        fake_ncu_env env;
        profile_outcome p = profile(kernel_with({}), {}, "no-such-case");
        BOOST_TEST(p.error_kind == "failed");
        BOOST_TEST(one_line(p));
    }
}

/// A search over the fake worker (30 ms per evaluation) whose strategy proposes ever faster
/// kernels; `feedback` collects, per proposal, the candidate whose profile the model was shown.
std::pair<search_result, fs::path> fake_search(const workload& work,
                                               search_options o,
                                               const fs::path& dir,
                                               const fs::path& log,
                                               std::vector<std::string>* feedback)
{
    boost::asio::io_context ioc;
    executor_backend_options bo;
    bo.devices = {0};
    bo.launch.worker_binary = fake_worker_path();
    bo.launch.extra_args = {"--log", log.string(), "--evaluate-ms", "30"};
    bo.compile.workers = 1;
    bo.compile.cache_dir = (dir / "compile-cache").string();
    bo.measure = false;
    executor_backend backend(ioc, bo);
    steady_clock_source clock;
    test_strategy strat(clock, work);
    strat.source_for = [feedback](const proposal_context& ctx, int call) -> std::optional<std::string>
    {
        if (feedback)
            feedback->push_back(ctx.view.best_profile ? ctx.view.best_profile->candidate_id : "-");
        return kernel_with({"median_us=" + std::to_string(150 - 10 * call)});
    };
    o.nsight.profiler.ncu = fake_ncu().string();
    auto run = run_directory::create(dir / "results");
    journal_writer journal(run.journal_path(), 1);
    search_engine engine(ioc, backend, strat, clock, work, o, run, journal, json::object{{"tool", "test"}});
    std::optional<search_result> result;
    auto body = [&]() -> boost::asio::awaitable<void>
    {
        result = co_await engine.run(std::nullopt);
        co_await backend.stop();
    };
    boost::asio::co_spawn(ioc, body(), boost::asio::detached);
    ioc.run_for(std::chrono::seconds(120));
    BOOST_REQUIRE(result.has_value());
    BOOST_TEST(result->status == "finished");
    return std::make_pair(*result, run.path());
}

BOOST_AUTO_TEST_CASE(a_search_with_profiles_never_overlaps_timings_nor_changes_scores)
{
    BOOST_REQUIRE(have_fakes());
    const workload work = vadd_workload(true);
    auto search =
        [&](bool nsight, const fs::path& dir, const fs::path& log, std::vector<std::string>* feedback)
    {
        // Without iteration barriers, so that evaluations are in flight whenever a branch's
        // proposal asks for the best's profile.
        search_options o;
        o.branches = 2;
        o.async = true;
        o.budgets.candidates = 8;
        o.confirm_top = 0;
        o.nsight.enabled = nsight;
        return fake_search(work, o, dir, log, feedback);
    };

    temp_dir tmp{"warpsmith-profile-search"};
    const fs::path log_with = tmp.path() / "with.log";
    fake_ncu_env env("", log_with);
    ::setenv("FAKE_NCU_SLEEP_MS", "60", 1);
    std::vector<std::string> feedback;
    auto [with, run_with] = search(true, tmp.path() / "with", log_with, &feedback);
    auto [without, run_without] = search(false, tmp.path() / "without", tmp.path() / "without.log", nullptr);

    // Scores are the evaluations' own, with or without profiles.
    BOOST_TEST(with.summary.at("best").at("score_us") == without.summary.at("best").at("score_us"));
    BOOST_TEST(with.winner.value_or("-") == without.winner.value_or("-"));
    BOOST_TEST(!without.summary.contains("profiles"));
    const json::object& profiles = with.summary.at("profiles").as_object();
    BOOST_TEST(profiles.at("taken").to_number<int>() >= 2);
    BOOST_TEST(profiles.at("failed").to_number<int>() == 0);
    for (const json::value& item : profiles.at("items").as_array())
    {
        BOOST_TEST(fs::exists(run_with / "profiles" / std::string(item.at("report").as_string())));
        BOOST_TEST(fs::exists(run_with / "profiles" / std::string(item.at("summary").as_string())));
    }
    // Later proposals see a profile of the best (or of an earlier best, when it changed meanwhile).
    BOOST_TEST(feedback.front() == "-");
    BOOST_TEST(feedback.back() != "-");

    // No evaluation of the search's worker runs while a profile (ncu and its own worker) does.
    const auto events = read_fake_log(log_with);
    const auto begins = events_named(events, "profile_begin");
    const auto ends = events_named(events, "profile_end");
    BOOST_TEST_REQUIRE(begins.size() == ends.size());
    BOOST_TEST_REQUIRE(!begins.empty());
    int evaluations_of_the_search = 0;
    std::set<int> profiled_workers;
    for (const auto& e : events_named(events, "profiled_launch"))
        profiled_workers.insert(e.pid);
    for (std::size_t i = 0; i < begins.size(); ++i)
        for (const auto& e : events)
        {
            if (e.event != "evaluate_begin" && e.event != "evaluate_end")
                continue;
            if (profiled_workers.count(e.pid))
                continue;  // the worker under ncu
            evaluations_of_the_search += i == 0 ? 1 : 0;
            BOOST_TEST(!(e.ns > begins[i].ns && e.ns < ends[i].ns),
                       e.event << " of " << e.name << " inside a profile");
        }
    BOOST_TEST(evaluations_of_the_search >= 16);  // 8 candidates + reference + initial, begin and end
}

BOOST_AUTO_TEST_CASE(tune_profiles_its_winner_once_after_the_confirmation)
{
    // tune --use-nsight: no profile while the search runs (no model reads one), one profile of the
    // winner after the confirmation, outside the profile budget, never overlapping a timing.
    BOOST_REQUIRE(have_fakes());
    const workload work = vadd_workload(true);
    temp_dir tmp{"warpsmith-profile-winner"};
    const fs::path log = tmp.path() / "tune.log";
    fake_ncu_env env("", log);
    search_options o;
    o.branches = 2;
    o.budgets.candidates = 6;
    o.confirm_top = 2;
    o.confirm_rounds = 2;
    o.nsight.enabled = true;
    o.nsight.each_round = false;
    o.nsight.profile_winner = true;
    o.nsight.budget = 0;  // the winner's profile is not counted against it
    std::vector<std::string> feedback;
    auto [result, run] = fake_search(work, o, tmp.path() / "tune", log, &feedback);

    BOOST_TEST_REQUIRE(result.winner.has_value());
    for (const std::string& f : feedback)
        BOOST_TEST(f == "-");  // no proposal saw a profile
    const json::object& profiles = result.summary.at("profiles").as_object();
    BOOST_TEST(profiles.at("taken").to_number<int>() == 1);
    const json::array& items = profiles.at("items").as_array();
    BOOST_TEST_REQUIRE(items.size() == 1u);
    BOOST_TEST(items[0].at("candidate").as_string() == *result.winner);
    BOOST_TEST(items[0].at("ok").as_bool());
    BOOST_TEST(fs::exists(run / "profiles" / std::string(items[0].at("report").as_string())));

    // After every evaluation and interleaved timing of the search's own worker.
    const auto events = read_fake_log(log);
    const auto begins = events_named(events, "profile_begin");
    BOOST_TEST_REQUIRE(begins.size() == 1u);
    std::set<int> profiled_workers;
    for (const auto& e : events_named(events, "profiled_launch"))
        profiled_workers.insert(e.pid);
    int timed = 0;
    for (const auto& e : events)
        if (!profiled_workers.count(e.pid) && (e.event.rfind("evaluate", 0) == 0 || e.event == "interleaved"))
        {
            ++timed;
            BOOST_TEST(e.ns < begins[0].ns, e.event << " of " << e.name << " after the winner's profile");
        }
    BOOST_TEST(timed >= 16);
    // The journal books it after the confirmation.
    std::string order;
    std::ifstream journal(run / "journal.jsonl");
    for (std::string line; std::getline(journal, line);)
    {
        const json::value ev = json::parse(line);
        const auto kind = ev.at("event").as_string();
        if (kind == "confirmation" || kind == "profile")
            order += std::string(kind) + " ";
    }
    BOOST_TEST(order == "confirmation profile ");
}

BOOST_AUTO_TEST_SUITE_END()
