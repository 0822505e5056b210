// The evaluation cache: keys, round trip through the file, later lines winning, torn lines, and
// concurrent appends from several processes.

#include "agents/autotune/evaluation_cache.hpp"
#include "harness/core/error.hpp"
#include "tests/agents/autotune/autotune_test_support.hpp"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <iterator>
#include <sys/wait.h>
#include <unistd.h>

using namespace warpsmith;
using namespace warpsmith::autotune;

namespace
{

boost::json::object cold_timing()
{
    return boost::json::object{{"warmup", 10}, {"iterations", 100}, {"mode", "cold"}};
}

candidate point_candidate(const workload& w, std::int64_t threads, std::int64_t items, std::int64_t stage)
{
    auto c = candidate::from_kernel(*w.tunable);
    c.defines = {{"ITEMS", items}, {"STAGE", stage}, {"THREADS", threads}};
    return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(evaluation_cache_suite)

BOOST_AUTO_TEST_CASE(keys_depend_on_what_changes_a_result)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    evaluation_cache cache(w, test::h200_device(), cold_timing(), dir.path());
    const auto c = point_candidate(w, 256, 2, 0);
    const auto k = cache.key(c);
    BOOST_TEST(k.size() == 64u);
    BOOST_TEST(cache.key(c) == k);
    BOOST_TEST(cache.key(point_candidate(w, 256, 4, 0)) != k);  // the point

    auto other_device = test::h200_device();
    other_device["name"] = "NVIDIA H100";
    BOOST_TEST(evaluation_cache(w, other_device, cold_timing(), dir.path()).key(c) != k);
    auto hot = cold_timing();
    hot["mode"] = "hot";
    BOOST_TEST(evaluation_cache(w, test::h200_device(), hot, dir.path()).key(c) != k);

    // Another tunable source is another kernel.
    auto c2 = c;
    c2.source += "\n// changed\n";
    BOOST_TEST(cache.key(c2) != k);

    // The description, the tunables' lists and the restrictions cannot change a point's result.
    auto w2 = w;
    w2.description = "something else";
    w2.tunables["THREADS"].push_back(4096);
    w2.restrictions.clear();
    evaluation_cache same(w2, test::h200_device(), cold_timing(), dir.path());
    BOOST_TEST(same.key(c) == k);
    BOOST_TEST(same.file() == cache.file());
    // Nor can the vendor baselines and the roofline it is compared with.
    auto w4 = w;
    w4.baselines.push_back(baseline_spec{"cublas",
                                         "cublas_sgemm",
                                         expression::parse("n"),
                                         expression::constant(1),
                                         expression::constant(1),
                                         "x",
                                         "x",
                                         "y"});
    w4.roofline = roofline_work{expression::parse("8*n"), expression::parse("n"), "one read, one write"};
    BOOST_TEST(workload_identity(w4) == workload_identity(w));
    evaluation_cache compared(w4, test::h200_device(), cold_timing(), dir.path());
    BOOST_TEST(compared.key(c) == k);
    BOOST_TEST(compared.file() == cache.file());
    // The tolerance can.
    auto w3 = w;
    w3.tol.atol = 1e-2;
    BOOST_TEST(evaluation_cache(w3, test::h200_device(), cold_timing(), dir.path()).key(c) != k);

    // An input file counts by its bytes (their sha256), not by where it lies: new bytes under the
    // same name are another workload, the same bytes moved elsewhere are not.
    auto with_file = [&](const std::string& path, const std::string& sha256)
    {
        auto wf = w;
        input_spec s;
        s.kind = input_kind::file;
        s.path = path;
        s.sha256 = sha256;
        wf.cases.front().inputs[w.sig.params[1].name] = s;
        return workload_identity(wf);
    };
    const auto file_identity = with_file("/data/x.bin", std::string(64, 'a'));
    BOOST_TEST(file_identity != workload_identity(w));
    BOOST_TEST(with_file("/data/x.bin", std::string(64, 'b')) != file_identity);
    BOOST_TEST(with_file("/moved/x.bin", std::string(64, 'a')) == file_identity);
}

BOOST_AUTO_TEST_CASE(a_cache_file_that_is_a_link_is_neither_read_nor_written)
{
    // A results folder can come from anyone: eval-cache/<name>-<hash>.jsonl -> ~/.bashrc would have
    // every evaluation appended to the user's shell profile.
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    const auto cache_dir = dir.path() / "eval-cache";
    std::filesystem::path file;
    {
        evaluation_cache probe(w, test::h200_device(), cold_timing(), cache_dir);
        file = probe.file();
    }
    std::filesystem::create_directories(cache_dir);
    std::ofstream(dir.path() / "profile") << "export PATH\n";
    std::filesystem::create_symlink(dir.path() / "profile", file);
    try
    {
        evaluation_cache cache(w, test::h200_device(), cold_timing(), cache_dir);
        BOOST_FAIL("a linked cache file was opened");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("is a symbolic link; it is neither read nor written through") !=
                       std::string::npos,
                   e.what());
    }
    std::ifstream in(dir.path() / "profile");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    BOOST_TEST(text == "export PATH\n");
}

BOOST_AUTO_TEST_CASE(round_trip_through_the_file)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    const auto cache_dir = evaluation_cache::default_dir(dir.path());
    BOOST_TEST(cache_dir == dir.path() / "eval-cache");
    {
        evaluation_cache cache(w, test::h200_device(), cold_timing(), cache_dir);
        BOOST_TEST(cache.size() == 0u);
        const auto a = point_candidate(w, 256, 2, 0);
        const auto b = point_candidate(w, 512, 1, 16);
        cache.store(make_cache_entry(cache.key(a), a, test::fake_result(w, 12.5), "c0001", "run-001"));
        cache.store(
            make_cache_entry(cache.key(b), b, test::fake_result(w, std::nullopt), "c0002", "run-001"));
        BOOST_TEST(cache.size() == 2u);
        BOOST_TEST(cache.file().parent_path() == cache_dir);
        BOOST_TEST(cache.file().filename().string().rfind("vscale-", 0) == 0u);
    }
    evaluation_cache cache(w, test::h200_device(), cold_timing(), cache_dir);
    BOOST_TEST(cache.size() == 2u);
    const auto a = cache.lookup(cache.key(point_candidate(w, 256, 2, 0)));
    BOOST_TEST_REQUIRE(a.has_value());
    BOOST_TEST(a->valid);
    BOOST_TEST(*a->score_us == 12.5);
    BOOST_TEST(a->case_median_us.at("big") == 12.5);
    BOOST_TEST(a->point.at("THREADS").as_int64() == 256);
    BOOST_TEST(a->candidate == "c0001");
    BOOST_TEST(a->result.valid());
    const auto b = cache.lookup(cache.key(point_candidate(w, 512, 1, 16)));
    BOOST_TEST_REQUIRE(b.has_value());
    BOOST_TEST(!b->valid);
    BOOST_TEST(b->failure_kind == "mismatch");
    BOOST_TEST(!cache.lookup(cache.key(point_candidate(w, 64, 1, 0))));

    // An offline replay finds the file and the device it was measured on without a GPU.
    const auto files = evaluation_cache::files_for(w, cache_dir);
    BOOST_TEST_REQUIRE(files.size() == 1u);
    BOOST_TEST(files[0] == cache.file());
    const auto dev = evaluation_cache::device_of(files[0]);
    BOOST_TEST_REQUIRE(dev.has_value());
    BOOST_TEST(dev->at("name").as_string() == "NVIDIA H200");
    BOOST_TEST(dev->at("max_threads_per_block").as_int64() == 1024);
    BOOST_TEST(evaluation_cache(w, *dev, cold_timing(), cache_dir).file() == cache.file());
    BOOST_TEST(evaluation_cache::files_for(w, dir.path() / "nowhere").empty());
}

BOOST_AUTO_TEST_CASE(a_long_workload_name_still_makes_a_file_name)
{
    // The workload name is free text; <name>-<16 hex>.jsonl must stay under 255 bytes, or tune
    // stops with "cannot open the evaluation cache" (File name too long).
    test::temp_dir dir;
    auto w = test::vscale_workload();
    w.name = std::string(300, 'w') + "/../x";
    evaluation_cache cache(w, test::h200_device(), cold_timing(), dir.path());
    const auto a = point_candidate(w, 256, 2, 0);
    cache.store(make_cache_entry(cache.key(a), a, test::fake_result(w, 12.5), "c0001", "run-001"));
    BOOST_TEST(cache.file().parent_path() == dir.path());
    BOOST_TEST(cache.file().filename().string().size() <= 128u);
    BOOST_TEST(evaluation_cache::files_for(w, dir.path()) ==
               std::vector<std::filesystem::path>{cache.file()});
}

BOOST_AUTO_TEST_CASE(later_entries_win_and_torn_lines_are_skipped)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    evaluation_cache cache(w, test::h200_device(), cold_timing(), dir.path());
    const auto a = point_candidate(w, 256, 2, 0);
    cache.store(make_cache_entry(cache.key(a), a, test::fake_result(w, 20.0), "c0001", "run-001"));
    {
        // A crash in the middle of a line, and a line of another format.
        std::ofstream f(cache.file(), std::ios::app);
        f << "{\"format\": \"something-else\", \"key\": \"x\"}\n";
        f << "{\"format\": \"warpsmith-eval-cache-1\", \"key\": \"ab";
    }
    // The next store starts on a fresh line, so neither line is damaged further.
    cache.store(make_cache_entry(cache.key(a), a, test::fake_result(w, 10.0), "c0009", "run-002"));
    evaluation_cache again(w, test::h200_device(), cold_timing(), dir.path());
    BOOST_TEST(again.size() == 1u);
    BOOST_TEST(again.skipped_lines() == 2u);
    BOOST_TEST(*again.lookup(again.key(a))->score_us == 10.0);
    BOOST_TEST(again.lookup(again.key(a))->candidate == "c0009");
}

BOOST_AUTO_TEST_CASE(lookups_see_what_other_writers_appended)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    evaluation_cache reader(w, test::h200_device(), cold_timing(), dir.path());
    evaluation_cache writer(w, test::h200_device(), cold_timing(), dir.path());
    const auto a = point_candidate(w, 128, 1, 0);
    BOOST_TEST(!reader.lookup(reader.key(a)));
    writer.store(make_cache_entry(writer.key(a), a, test::fake_result(w, 7.0), "c0001", "run-001"));
    const auto hit = reader.lookup(reader.key(a));
    BOOST_TEST_REQUIRE(hit.has_value());
    BOOST_TEST(*hit->score_us == 7.0);
}

BOOST_AUTO_TEST_CASE(concurrent_appends_from_processes_never_tear)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    const int processes = 6, per_process = 40;
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p)
    {
        const pid_t pid = ::fork();
        BOOST_TEST_REQUIRE(pid >= 0);
        if (pid == 0)
        {
            int code = 0;
            try
            {
                evaluation_cache cache(w, test::h200_device(), cold_timing(), dir.path());
                for (int i = 0; i < per_process; ++i)
                {
                    auto c = point_candidate(w, 64, 1, 0);
                    c.defines["ITEMS"] = p * 1000 + i;  // a distinct key per entry
                    // Large results make torn writes likely if appends were not atomic.
                    auto result = test::fake_result(w, 1.0 + i);
                    result.environment = protocol::environment_info{};
                    result.environment->gpu = std::string(20000, static_cast<char>('a' + p));
                    cache.store(make_cache_entry(cache.key(c), c, result, "c", "run"));
                }
            }
            catch (...)
            {
                code = 1;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children)
    {
        int status = 0;
        ::waitpid(pid, &status, 0);
        BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    evaluation_cache cache(w, test::h200_device(), cold_timing(), dir.path());
    BOOST_TEST(cache.size() == static_cast<std::size_t>(processes * per_process));
    BOOST_TEST(cache.skipped_lines() == 0u);
}

BOOST_AUTO_TEST_CASE(only_deterministic_outcomes_are_cacheable)
{
    const auto w = test::vscale_workload();
    BOOST_TEST(cacheable_result(test::fake_result(w, 3.0)));
    BOOST_TEST(cacheable_result(test::fake_result(w, std::nullopt, "mismatch")));
    BOOST_TEST(cacheable_result(test::fake_result(w, std::nullopt, "fault")));
    BOOST_TEST(!cacheable_result(test::fake_result(w, std::nullopt, "worker_crash")));
    BOOST_TEST(!cacheable_result(test::fake_result(w, std::nullopt, "timing_inconsistent")));
    BOOST_TEST(!cacheable_result(protocol::evaluation_result{}));
}

BOOST_AUTO_TEST_SUITE_END()
