// `warpsmith eval --sanitize` on a GPU with compute-sanitizer (ctest label gpu): the out-of-bounds
// cheat under memcheck reports an invalid write in its kernel, the racy split-K cheat under racecheck
// reports a race in its kernel, and the valid control is clean under memcheck, racecheck and
// initcheck, with no reports from the worker's own kernels either. Each run's table is printed.
// Without a device, or without compute-sanitizer (even on a GPU host), the executable prints why
// and exits 77 before any test runs: ctest reports it as skipped, never as passed.

#include "bench/support/cheat_manifest.hpp"
#include "engine/executors/sanitizer.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/gpu_probe.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;
using namespace warpsmith::cheats;
using namespace warpsmith::test;

namespace
{

/// Exits 77 (skipped) when the tool is missing. Test preconditions would only disable the test
/// cases, and an executable whose every case is disabled exits 0: ctest would count it as passed.
/// Without a device it leaves the reason to gpu_test_main.cpp's fixture (also exit 77).
struct require_sanitizer
{
    require_sanitizer()
    {
        std::string why;
        if (!gpu_available(why))
            return;
        if (!find_compute_sanitizer(sanitizer_search_dirs()))
        {
            std::printf(
                "skipped: compute-sanitizer not found (looked on PATH, in $CUDA_HOME/bin, "
                "$CUDA_HOME/compute-sanitizer, /usr/local/cuda/bin and /usr/local/cuda/compute-sanitizer)\n");
            std::fflush(stdout);
            std::_Exit(77);
        }
    }
};

const cheat_entry& entry_named(const std::vector<cheat_entry>& all, const std::string& name)
{
    for (const cheat_entry& e : all)
        if (e.name == name)
            return e;
    throw std::runtime_error("no cheat named " + name);
}

struct eval_outcome
{
    int exit_code = -1;
    json::object result;
    std::string output;
};

/// Runs warpsmith eval on a manifest entry with the given --sanitize value; prints its output.
eval_outcome eval_sanitized(const cheat_entry& e, const std::string& tools, const fs::path& dir)
{
    const fs::path launch = dir / (e.name + "-launch.json");
    write_json_file(launch, e.cand.launch.to_json());
    const fs::path out = dir / e.name;
    const fs::path log = dir / (e.name + ".txt");
    // Built with append: GCC 12 warns falsely (-Wrestrict) about "'" + std::string.
    std::string cmd(1, '\'');
    cmd.append((bin_dir() / "warpsmith").string()).append("' eval '").append(e.workload.string());
    cmd.append("' --kernel '").append(e.file.string()).append("' --launch '").append(launch.string());
    cmd.append("' --sanitize=").append(tools);
    cmd.append(" --warmup 1 --iterations 5 --launch-timeout-ms 5000 --no-cache --out '").append(out.string());
    cmd.append("' >'").append(log.string()).append("' 2>&1");
    const int status = std::system(cmd.c_str());
    eval_outcome r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.output = read_text_file(log);
    std::printf("--- warpsmith eval %s --sanitize=%s (exit %d)\n%s\n",
                e.name.c_str(),
                tools.c_str(),
                r.exit_code,
                r.output.c_str());
    std::fflush(stdout);
    if (fs::exists(out / "result.json"))
        r.result = read_json_file(out / "result.json").as_object();
    return r;
}

const json::object& tool_result(const eval_outcome& r, const std::string& tool)
{
    BOOST_REQUIRE_MESSAGE(r.result.contains("sanitizer"),
                          "result.json has no sanitizer object:\n" + r.output);
    const json::value* t = r.result.at("sanitizer").as_object().if_contains(tool);
    BOOST_REQUIRE_MESSAGE(t && t->is_object(), "result.json has no sanitizer." + tool);
    BOOST_REQUIRE_MESSAGE(t->at("ran").as_bool(), tool + " did not run: " + json::serialize(*t));
    return t->as_object();
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(require_sanitizer);

BOOST_AUTO_TEST_SUITE(sanitizer_gpu)

BOOST_AUTO_TEST_CASE(memcheck_finds_the_out_of_bounds_write)
{
    temp_dir tmp;
    const auto all = load_all_cheats(source_dir());
    const eval_outcome r = eval_sanitized(entry_named(all, "sgemm-oob-write"), "memcheck", tmp.path());
    BOOST_TEST(r.exit_code == 1);
    const json::object& m = tool_result(r, "memcheck");
    BOOST_TEST(m.at("errors").to_number<std::uint64_t>() >= 1u, json::serialize(m));
    BOOST_REQUIRE(!m.at("reports").as_array().empty());
    const json::object& first = m.at("reports").as_array()[0].as_object();
    BOOST_TEST(first.at("kernel").as_string() == "sgemm");
    BOOST_TEST(std::string(first.at("kind").as_string()).find("Invalid __global__ write") == 0u,
               json::serialize(first));
    BOOST_TEST(r.output.find("Invalid __global__ write") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(racecheck_finds_the_shared_memory_race)
{
    temp_dir tmp;
    const auto all = load_all_cheats(source_dir());
    const eval_outcome r = eval_sanitized(entry_named(all, "sgemm-smem-race"), "racecheck", tmp.path());
    BOOST_TEST(r.exit_code == 1);
    const json::object& rc = tool_result(r, "racecheck");
    BOOST_TEST(
        rc.at("errors").to_number<std::uint64_t>() + rc.at("warnings").to_number<std::uint64_t>() >= 1u,
        json::serialize(rc));
    if (!rc.at("reports").as_array().empty())
        BOOST_TEST(rc.at("reports").as_array()[0].at("kernel").as_string() == "sgemm");
}

BOOST_AUTO_TEST_CASE(the_valid_control_is_clean_under_every_tool)
{
    temp_dir tmp;
    const auto all = load_all_cheats(source_dir());
    const eval_outcome r =
        eval_sanitized(entry_named(all, "valid-sgemm-tiled"), "memcheck,racecheck,initcheck", tmp.path());
    BOOST_TEST(r.exit_code == 0);
    for (const char* tool : {"memcheck", "racecheck", "initcheck"})
    {
        const json::object& t = tool_result(r, tool);
        BOOST_TEST(t.at("errors").to_number<std::uint64_t>() == 0u, tool << ": " << json::serialize(t));
        // Nothing from the worker's own kernels (comparators, scrubber) or host calls either.
        BOOST_TEST(t.at("other").to_number<std::uint64_t>() == 0u, tool << ": " << json::serialize(t));
        BOOST_TEST(t.at("status").as_string() == "valid", tool << ": " << json::serialize(t));
    }
}

BOOST_AUTO_TEST_SUITE_END()
