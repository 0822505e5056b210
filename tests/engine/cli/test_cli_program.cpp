// The warpsmith program end to end on a CPU: the error contract, compile with real NVRTC, and
// device-info / eval / run against the fake worker (tests/engine/executors/fake_worker.cpp).

#include "harness/core/json_file.hpp"
#include "tests/engine/cli/cli_test_support.hpp"

#include <boost/json.hpp>

#include <fstream>

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

std::string fake()
{
    return (bin_dir() / "fake_worker").string();
}

std::string vadd(const std::string& file = "")
{
    return (file.empty() ? vadd_dir() : vadd_dir() / file).string();
}

// The GPU the committed demo cache was measured on, as its context file names it: the cache is
// re-recorded on whichever GPU a session is lent, and the replay must name that one.
std::string demo_cache_device(const fs::path& cache)
{
    for (const auto& entry : fs::directory_iterator(cache))
        if (entry.path().string().ends_with(".context.json"))
            return std::string(read_json_file(entry.path()).at("device").at("name").as_string());
    BOOST_FAIL("no .context.json in " + cache.string());
    return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_program_suite)

BOOST_AUTO_TEST_CASE(version_help_and_bad_flags)
{
    temp_dir cwd;
    auto v = run_warpsmith({"--version"}, cwd.path());
    BOOST_TEST(v.rc == 0);
    // The version and commit, then the worker and data this binary uses: in the build tree, the
    // worker beside it and build/share/warpsmith (links into the source tree).
    const std::string first_line = std::string("warpsmith ") + WARPSMITH_VERSION + " (commit ";
    BOOST_TEST(v.out.starts_with(first_line), v.out);
    const auto line_after = [&](const std::string& label)
    {
        const auto at = v.out.find("\n" + label);
        return at == std::string::npos
                   ? std::string{}
                   : v.out.substr(at + 1 + label.size(), v.out.find('\n', at + 1) - (at + 1 + label.size()));
    };
    const fs::path worker = line_after("worker: ");
    const fs::path data = line_after("data: ");
    BOOST_TEST(fs::equivalent(worker, bin_dir() / "warpsmith-worker"), v.out);
    BOOST_TEST(fs::equivalent(data / "workloads", source_dir() / "bench" / "workloads"), v.out);

    for (const char* cmd : {"device-info", "compile", "eval", "run"})
    {
        auto h = run_warpsmith({cmd, "--help"}, cwd.path());
        BOOST_TEST(h.rc == 0);
        BOOST_TEST(h.out.find("Example:") != std::string::npos, cmd);
    }

    auto unknown = run_warpsmith({"compile", "k.cu", "--no-such-flag"}, cwd.path());
    BOOST_TEST(unknown.rc == 2);
    BOOST_TEST(one_error_line(unknown.err), unknown.err);
    BOOST_TEST(unknown.err.find("--no-such-flag") != std::string::npos);

    auto no_cmd = run_warpsmith({}, cwd.path());
    BOOST_TEST(no_cmd.rc == 2);
    BOOST_TEST(one_error_line(no_cmd.err), no_cmd.err);

    // A bare name that is no path here is one of the bundled workloads, from any directory.
    auto bundled = run_warpsmith({"tune",
                                  "sgemm",
                                  "--offline",
                                  "--strategy",
                                  "random",
                                  "--budget",
                                  "2",
                                  "--eval-cache",
                                  (source_dir() / "bench/workloads/sgemm/demo-eval-cache").string()},
                                 cwd.path());
    BOOST_TEST(bundled.rc == 0, bundled.err);
    BOOST_TEST(bundled.out.find("offline replay of measurements taken on NVIDIA") != std::string::npos,
               bundled.out);
    BOOST_TEST(bundled.out.find("random seed 1: 2 evaluations") != std::string::npos, bundled.out);

    auto missing = run_warpsmith({"eval", "no-such-workload", "--kernel", "k.cu"}, cwd.path());
    BOOST_TEST(missing.rc == 2);
    BOOST_TEST(one_error_line(missing.err), missing.err);
    BOOST_TEST(missing.err.find("no-such-workload") != std::string::npos);

    auto bad_value =
        run_warpsmith({"eval", vadd(), "--kernel", vadd("vec4.cu"), "--timing", "warm"}, cwd.path());
    BOOST_TEST(bad_value.rc == 2);
    BOOST_TEST(one_error_line(bad_value.err), bad_value.err);
}

BOOST_AUTO_TEST_CASE(errors_show_control_characters_instead_of_sending_them)
{
    // A downloaded workload whose case name is a terminal escape: the error quotes the name, and
    // printed raw it would clear the screen and retitle the terminal.
    temp_dir cwd;
    fs::create_directories(cwd.path() / "w");
    std::ofstream(cwd.path() / "w" / "workload.json") << R"j({"name": "w",
      "signature": {"entry": "k", "params": [{"name": "n", "kind": "scalar", "type": "int32"},
        {"name": "y", "kind": "buffer", "type": "float32", "dir": "out", "count": "n"}]},
      "cases": [{"name": "\u001b[2J\u001b]0;pwned\u0007", "values": {"n": 4}}],
      "reference_source": "x", "launch": {"grid": [1], "block": [32]}})j";
    auto r = run_warpsmith({"eval", "w", "--kernel", vadd("vec4.cu")}, cwd.path());
    BOOST_TEST(r.rc == 2);
    BOOST_TEST(one_error_line(r.err), r.err);
    BOOST_TEST(r.err.find('\x1b') == std::string::npos);
    BOOST_TEST(r.err.find('\x07') == std::string::npos);
    BOOST_TEST(r.err.find("'\\x1b[2J\\x1b]0;pwned\\x07' is not a valid case name") != std::string::npos,
               r.err);
}

BOOST_AUTO_TEST_CASE(compile_reports_resources_and_failures)
{
    temp_dir cwd;
    auto ok = run_warpsmith(
        {"compile", vadd("vec4.cu"), "--no-cache", "-o", (cwd.path() / "k.cubin").string()}, cwd.path());
    BOOST_TEST(ok.rc == 0, ok.err);
    BOOST_TEST(ok.out.find("compiled 'vadd' for sm_90") != std::string::npos, ok.out);
    BOOST_TEST(ok.out.find("registers") != std::string::npos);
    BOOST_TEST(slurp(cwd.path() / "k.cubin")
                   .rfind("\x7f"
                          "ELF",
                          0) == 0u);

    auto js = run_warpsmith(
        {"compile", vadd("vec4.cu"), "--json", "--cache-dir", (cwd.path() / "cache").string()}, cwd.path());
    BOOST_TEST(js.rc == 0);
    json::value doc = json::parse(js.out);
    BOOST_TEST(doc.at("compiled").as_bool());
    BOOST_TEST(doc.at("entry").as_string() == "vadd");
    BOOST_TEST(!doc.as_object().contains("cubin_b64"));
    BOOST_TEST(doc.at("resources").at("registers").as_int64() > 0);

    std::ofstream(cwd.path() / "bad.cu")
        << "extern \"C\" __global__ void k(float* x) { x[0] = undefined_name; }\n";
    auto bad = run_warpsmith({"compile", "bad.cu", "--no-cache"}, cwd.path());
    BOOST_TEST(bad.rc == 1);
    BOOST_TEST(bad.out.find("undefined_name") != std::string::npos);
    // Control characters in a source are refused before NVRTC (the include policy), and nothing of
    // them reaches the terminal.
    std::ofstream(cwd.path() / "esc.cu") << "#error \x1b]0;pwned\x07\x1b[2J\n";
    auto esc = run_warpsmith({"compile", "esc.cu", "--entry", "k", "--no-cache"}, cwd.path());
    BOOST_TEST(esc.rc == 1);
    BOOST_TEST(esc.out.find('\x1b') == std::string::npos, esc.out);
    BOOST_TEST(esc.out.find('\x07') == std::string::npos, esc.out);
    BOOST_TEST(esc.out.find("the control character 0x1B is refused") != std::string::npos, esc.out);

    auto refused = run_warpsmith({"compile", vadd("vec4.cu"), "--option=-I/etc"}, cwd.path());
    BOOST_TEST(refused.rc == 2);
    BOOST_TEST(one_error_line(refused.err), refused.err);

    auto two = run_warpsmith({"compile", (source_dir() / "tests/engine/cli/data/two_kernels.cu").string()},
                             cwd.path());
    BOOST_TEST(two.rc == 2);
    BOOST_TEST(two.err.find("choose one with --entry") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(device_info_through_a_worker)
{
    temp_dir cwd;
    auto table = run_warpsmith({"device-info", "--worker", fake()}, cwd.path());
    BOOST_TEST(table.rc == 0, table.err);
    BOOST_TEST(table.out.find("Fake GPU") != std::string::npos);
    BOOST_TEST(table.out.find("SMs:") != std::string::npos);

    auto js = run_warpsmith({"device-info", "--json", "--measure", "--device", "3", "--worker", fake()},
                            cwd.path());
    BOOST_TEST(js.rc == 0, js.err);
    json::value dev = json::parse(js.out);
    BOOST_TEST(dev.at("index").as_int64() == 3);
    BOOST_TEST(dev.at("measured").at("copy_bandwidth_gbps").to_number<double>() > 0);

    auto none = run_warpsmith({"device-info", "--worker", fake(), "--worker-arg=--no-device"}, cwd.path());
    BOOST_TEST(none.rc == 2);
    BOOST_TEST(one_error_line(none.err), none.err);
    BOOST_TEST(none.err.find("no_device") != std::string::npos);

    // A launcher template reaches the worker through /bin/sh.
    auto via_cmd =
        run_warpsmith({"device-info", "--json", "--worker-cmd", fake() + " --device {device}"}, cwd.path());
    BOOST_TEST(via_cmd.rc == 0, via_cmd.err);

    auto missing = run_warpsmith({"device-info", "--worker", "/nonexistent/warpsmith-worker"}, cwd.path());
    BOOST_TEST(missing.rc == 2);
    BOOST_TEST(one_error_line(missing.err), missing.err);
}

BOOST_AUTO_TEST_CASE(eval_writes_results_and_requests_that_run_replays)
{
    temp_dir cwd;
    auto log = cwd.path() / "fake.log";
    std::ofstream(cwd.path() / "launch.json") << R"J({"grid": ["ceil_div(n,1024)"], "block": [256]})J";
    auto ev = run_warpsmith({"eval",
                             vadd(),
                             "--kernel",
                             vadd("vec4.cu"),
                             "--launch",
                             "launch.json",
                             "--hidden-seed",
                             "4242",
                             "--iterations",
                             "17",
                             "--worker",
                             fake(),
                             "--worker-arg=--log",
                             "--worker-arg=" + log.string()},
                            cwd.path());
    BOOST_TEST(ev.rc == 0, ev.err);
    BOOST_TEST(ev.out.find("vec4: valid") != std::string::npos, ev.out);
    BOOST_TEST(ev.out.find("vs init") != std::string::npos);
    fs::path out = cwd.path() / "results" / "eval-001";
    BOOST_REQUIRE(fs::exists(out / "result.json"));
    json::value doc = read_json_file(out / "result.json");
    BOOST_TEST(doc.at("status").as_string() == "valid");
    BOOST_TEST(doc.at("hidden_seed").to_number<std::uint64_t>() == 4242u);
    BOOST_TEST(doc.at("timing").at("iterations").as_int64() == 17);
    BOOST_TEST(!doc.at("compile").as_object().contains("cubin_b64"));
    BOOST_TEST(doc.at("reference").at("result").at("status").as_string() == "valid");
    BOOST_TEST(doc.at("initial").at("result").at("status").as_string() == "valid");
    BOOST_TEST(doc.at("candidate").at("launch").at("grid").at(0).as_string() == "ceil_div(n,1024)");
    BOOST_TEST(fs::exists(out / "requests" / "odd.json"));
    BOOST_TEST(fs::exists(out / "requests" / "1m.json"));
    BOOST_TEST(slurp(log).find(" load 4242") != std::string::npos);

    auto rerun = run_warpsmith({"run",
                                (out / "requests" / "1m.json").string(),
                                "--out",
                                "replayed",
                                "--worker",
                                fake(),
                                "--worker-arg=--log",
                                "--worker-arg=" + log.string()},
                               cwd.path());
    BOOST_TEST(rerun.rc == 0, rerun.err);
    json::value again = read_json_file(cwd.path() / "replayed" / "result.json");
    BOOST_TEST(again.at("case").as_string() == "1m");
    BOOST_TEST(again.at("status").as_string() == "valid");
    BOOST_TEST(again.at("result").at("cases").as_array().size() == 1u);
    BOOST_TEST(again.at("candidate").at("source").as_string() ==
               doc.at("candidate").at("source").as_string());
    // The replay loads the workload with the recorded hidden seed again.
    auto events = slurp(log);
    BOOST_TEST(events.find(" load 4242") != events.rfind(" load 4242"));

    // A second eval takes the next number.
    auto ev2 = run_warpsmith({"eval", vadd(), "--kernel", vadd("initial.cu"), "--json", "--worker", fake()},
                             cwd.path());
    BOOST_TEST(ev2.rc == 0, ev2.err);
    // "initial" and "reference" name the workload's own kernels; a file called so is "candidate".
    BOOST_TEST(json::parse(ev2.out).at("name").as_string() == "candidate");
    BOOST_TEST(fs::exists(cwd.path() / "results" / "eval-002" / "result.json"));
}

BOOST_AUTO_TEST_CASE(eval_and_a_search_share_compile_cache_entries)
{
    // One compile request per candidate (compile_request_for): a kernel evaluated with `eval` is
    // not compiled again when a search proposes it, and the two name the same cache key. (The
    // search compiles in process here: with --worker fake_worker its compile workers would be the
    // fake, whose outputs are not NVRTC's; real compile workers run the same nvrtc_compiler.)
    temp_dir cwd;
    const fs::path cache = cwd.path() / "compile-cache";
    ::setenv("WARPSMITH_CACHE_DIR", cache.c_str(), 1);
    auto ev = run_warpsmith({"eval", vadd(), "--kernel", vadd("vec4.cu"), "--worker", fake()}, cwd.path());
    BOOST_TEST(ev.rc == 0, ev.err);
    const json::value eval_doc = read_json_file(cwd.path() / "results" / "eval-001" / "result.json");
    const std::string eval_key(eval_doc.at("compile").at("key").as_string());
    BOOST_TEST(!eval_key.empty());

    const fs::path candidates = cwd.path() / "candidates";
    fs::create_directories(candidates);
    fs::copy_file(vadd("vec4.cu"), candidates / "vec4.cu");
    auto opt = run_warpsmith({"optimize",
                              "--workload",
                              vadd(),
                              "--provider",
                              "scripted",
                              "--candidates",
                              candidates.string(),
                              "--worker",
                              fake(),
                              "--gpus",
                              "0",
                              "--confirm-top",
                              "0",
                              "--in-process-compile"},
                             cwd.path());
    ::unsetenv("WARPSMITH_CACHE_DIR");
    BOOST_TEST(opt.rc == 0, opt.err);
    const json::value search_doc =
        read_json_file(cwd.path() / "results" / "run-001" / "candidates" / "c0001" / "result.json");
    BOOST_TEST(search_doc.at("compile").at("key").as_string() == eval_key);
    BOOST_TEST(search_doc.at("compile").at("cache_hit").as_bool());
}

BOOST_AUTO_TEST_CASE(eval_exits_1_for_invalid_kernels)
{
    temp_dir cwd;
    // The fake worker finds markers in a real cubin's initialized device data.
    std::ofstream(cwd.path() / "wrong.cu") << R"(
extern "C" __device__ char fake_marker[] = "FAKE: invalid=mismatch";
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] - b[i] + (fake_marker[n & 7] == 1);
}
)";
    auto wrong =
        run_warpsmith({"eval", vadd(), "--kernel", "wrong.cu", "--out", "w", "--worker", fake()}, cwd.path());
    BOOST_TEST(wrong.rc == 1, wrong.err);
    BOOST_TEST(wrong.out.find("INVALID (mismatch on case odd)") != std::string::npos, wrong.out);
    json::value doc = read_json_file(cwd.path() / "w" / "result.json");
    BOOST_TEST(doc.at("result").at("failure").at("kind").as_string() == "mismatch");

    std::ofstream(cwd.path() / "broken.cu") << "extern \"C\" __global__ void vadd(int n) { nope; }\n";
    auto broken = run_warpsmith({"eval", vadd(), "--kernel", "broken.cu", "--out", "b", "--worker", fake()},
                                cwd.path());
    BOOST_TEST(broken.rc == 1, broken.err);
    BOOST_TEST(broken.out.find("INVALID (compile_error)") != std::string::npos, broken.out);
    json::value bdoc = read_json_file(cwd.path() / "b" / "result.json");
    BOOST_TEST(!bdoc.at("compile").at("compiled").as_bool());
    BOOST_TEST(bdoc.at("compile").at("log").as_string().find("nope") != std::string::npos);

    std::ofstream(cwd.path() / "crash.cu") << R"(
extern "C" __device__ char fake_marker[] = "FAKE: crash";
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] + (fake_marker[n & 7] == 1);
}
)";
    auto crash =
        run_warpsmith({"eval", vadd(), "--kernel", "crash.cu", "--out", "c", "--worker", fake()}, cwd.path());
    BOOST_TEST(crash.rc == 1, crash.err);
    json::value cdoc = read_json_file(cwd.path() / "c" / "result.json");
    BOOST_TEST(cdoc.at("result").at("failure").at("kind").as_string() == "worker_crash");
    BOOST_TEST(cdoc.at("worker").at("restarted").as_bool());
}

BOOST_AUTO_TEST_CASE(the_demo_replays_the_committed_evaluations_without_a_gpu)
{
    // scripts/demo without a GPU: the README's main job replayed from the committed evaluation
    // cache. A change to the sgemm workload or its tunable kernel changes the cache key and leaves
    // the demo with nothing to replay; this test says so instead of the README going stale.
    temp_dir cwd;
    const auto cache = source_dir() / "bench/workloads/sgemm/demo-eval-cache";
    const auto device = demo_cache_device(cache);
    BOOST_TEST(device.starts_with("NVIDIA "), device);
    auto replay = [&](const std::string& strategy, const std::string& seed)
    {
        return run_warpsmith({"tune",
                              (source_dir() / "bench/workloads/sgemm").string(),
                              "--strategy",
                              strategy,
                              "--seed",
                              seed,
                              "--budget",
                              "80",
                              "--branches",
                              "4",
                              "--offline",
                              "--eval-cache",
                              cache.string()},
                             cwd.path());
    };
    // The demo's own search (anneal seed 1) and the cache's second tune (seed 2) replay exactly:
    // every point they ask was measured, and the table carries the tune's baselines.
    std::string bests;
    for (const char* seed : {"1", "2"})
    {
        auto r = replay("anneal", seed);
        BOOST_TEST(r.rc == 0, r.err);
        BOOST_TEST(r.out.find("offline replay of measurements taken on " + device) != std::string::npos,
                   r.out);
        BOOST_TEST(r.out.find("anneal seed " + std::string(seed) +
                              ": 80 evaluations, 80 with a measurement\n") != std::string::npos,
                   r.out);
        for (const char* c : {"4096x4096x4096", "4096x2048x1024", "2048x8192x512", "geomean"})
            BOOST_TEST(r.out.find("  " + std::string(c)) != std::string::npos, c);
        for (const char* column : {"ref (us)", "initial", "cublas", "roofline"})
            BOOST_TEST(r.out.find(column) != std::string::npos, column);
        bests +=
            r.out.substr(r.out.find("best "), r.out.find('\n', r.out.find("best ")) - r.out.find("best ")) +
            "\n";
    }
    // Different seeds, different searches: their best points differ.
    const auto first = bests.substr(0, bests.find('\n'));
    BOOST_TEST(bests.substr(first.size() + 1).find(first) == std::string::npos, bests);
    // A seed nobody measured runs too, and counts what the cache could not score.
    auto other = replay("genetic", "1");
    BOOST_TEST(other.rc == 0, other.err);
    BOOST_TEST(other.out.find("without one (told +inf") != std::string::npos, other.out);
}

BOOST_AUTO_TEST_CASE(a_suite_dry_run_shows_control_characters_instead_of_sending_them)
{
    // --dry-run is what a careful user runs first on a suite someone sent; its option values are
    // the author's text.
    temp_dir tmp;
    std::ofstream(tmp.path() / "s.json")
        << R"({"name": "s", "workloads": [")" << (source_dir() / "bench/suites/smoke/vadd").string()
        << R"("], "seeds": [1], "budget": {"candidates": 2},
        "options": {"base-url": "http://127.0.0.1:8000/v1", "model": "qwen\u001b]0;PWNED\u0007\u001b[2J"},
        "strategies": [{"name": "refine", "provider": "openai-chat", "strategy": "refine"}]})";
    const auto r = run_warpsmith({"bench-strategies", "s.json", "--dry-run"}, tmp.path());
    BOOST_TEST(r.rc == 0, r.err);
    BOOST_TEST(r.out.find('\x1b') == std::string::npos, r.out);
    BOOST_TEST(r.out.find('\x07') == std::string::npos, r.out);
    BOOST_TEST(r.out.find("qwen\\x1b]0;PWNED\\x07") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(a_resumed_run_names_no_program_folder_or_link_the_user_did_not_give_again)
{
    // A run directory can come from anyone. run.json names a program (config.search.nsight.ncu)
    // and folders outside the run (here config.tune.eval_cache); --resume runs or opens them only
    // when the command line names them again, and a symbolic link inside the run stops --resume
    // and report before they read anything.
    temp_dir tmp("warpsmith-resume-trust");
    const auto vscale = (source_dir() / "tests/agents/autotune/data/vscale").string();
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    const fs::path elsewhere = tmp.path() / "elsewhere-cache";
    auto tune = [&](std::vector<std::string> extra)
    {
        std::vector<std::string> args{"tune", "--gpus", "0", "--worker", fake(), "--confirm-top", "0"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_warpsmith(args, tmp.path());
    };
    const auto first =
        tune({vscale, "--strategy", "random", "--budget", "2", "--eval-cache", elsewhere.string()});
    BOOST_TEST_REQUIRE(first.rc == 0, first.err);
    const fs::path run = tmp.path() / "results" / "run-001";

    // An ncu planted in run.json is not what the resumed run would start.
    auto rj = read_json_file(run / "run.json");
    rj.at("config").at("search").as_object()["nsight"].as_object()["ncu"] =
        (tmp.path() / "evil-ncu").string();
    write_json_file(run / "run.json", rj);

    const auto unconfirmed = tune({"--resume", run.string(), "--budget", "3"});
    BOOST_TEST(unconfirmed.rc == 2, unconfirmed.err);
    BOOST_TEST(one_error_line(unconfirmed.err), unconfirmed.err);
    BOOST_TEST(
        unconfirmed.err.find("config.tune.eval_cache is '" + elsewhere.string() +
                             "'; --resume uses it only when you give --eval-cache") != std::string::npos,
        unconfirmed.err);
    const auto confirmed =
        tune({"--resume", run.string(), "--budget", "3", "--eval-cache", elsewhere.string()});
    BOOST_TEST(confirmed.rc == 0, confirmed.err);
    const auto after = read_json_file(run / "run.json");
    const auto* ncu = after.at("config").at("search").at("nsight").as_object().if_contains("ncu");
    BOOST_TEST((!ncu || !ncu->is_string() || ncu->as_string() != (tmp.path() / "evil-ncu").string()),
               json::serialize(after.at("config").at("search")));

    // A link inside the run: neither --resume nor report reads through it.
    std::ofstream(tmp.path() / "victim.env") << "GITHUB_PAT=ghp_VICTIMSECRET42\n";
    fs::remove(run / "best.cu");
    fs::create_symlink(tmp.path() / "victim.env", run / "best.cu");
    const auto report = run_warpsmith({"report", run.string()}, tmp.path());
    BOOST_TEST(report.rc == 2, report.err);
    BOOST_TEST(report.err.find("holds a symbolic link (best.cu)") != std::string::npos, report.err);
    const bool leaked = fs::exists(run / "report.html") &&
                        slurp(run / "report.html").find("VICTIMSECRET") != std::string::npos;
    BOOST_TEST(!leaked);
    const auto linked = tune({"--resume", run.string(), "--budget", "4", "--eval-cache", elsewhere.string()});
    BOOST_TEST(linked.rc == 2, linked.err);
    BOOST_TEST(linked.err.find("holds a symbolic link (best.cu)") != std::string::npos, linked.err);
    // Nor does --initial-kernel RUN/best.cu, the way docs/run-directory.md suggests to start from
    // an earlier run: the file would go to the model.
    const auto initial = run_warpsmith({"optimize",
                                        "--workload",
                                        vscale,
                                        "--initial-kernel",
                                        (run / "best.cu").string(),
                                        "--provider",
                                        "scripted",
                                        "--candidates",
                                        (source_dir() / "bench/suites/smoke/candidates").string(),
                                        "--gpus",
                                        "0",
                                        "--worker",
                                        fake()},
                                       tmp.path());
    BOOST_TEST(initial.rc == 2, initial.err);
    BOOST_TEST(initial.err.find("is a symbolic link; give the file it points at") != std::string::npos,
               initial.err);
    BOOST_TEST(initial.err.find("VICTIMSECRET") == std::string::npos, initial.err);

    // The usual cache beside the run needs no confirmation, unless that folder is a link.
    const auto second = tune({vscale, "--strategy", "random", "--budget", "2"});
    BOOST_TEST_REQUIRE(second.rc == 0, second.err);
    const fs::path run2 = tmp.path() / "results" / "run-002";
    const auto usual = tune({"--resume", run2.string(), "--budget", "3"});
    BOOST_TEST(usual.rc == 0, usual.err);
    fs::rename(tmp.path() / "results" / "eval-cache", tmp.path() / "moved-cache");
    fs::create_directory_symlink(tmp.path() / "moved-cache", tmp.path() / "results" / "eval-cache");
    const auto via_link = tune({"--resume", run2.string(), "--budget", "4"});
    BOOST_TEST(via_link.rc == 2, via_link.err);
    BOOST_TEST(via_link.err.find("--resume uses it only when you give --eval-cache") != std::string::npos,
               via_link.err);
    ::unsetenv("WARPSMITH_CACHE_DIR");
}

BOOST_AUTO_TEST_CASE(a_runs_own_cases_start_a_new_run_and_others_name_files_inside_their_directory)
{
    // A run of a workload with a file input; its workload/cases.json names that file by absolute
    // path (docs/run-directory.md), and --input-cases of it starts a new run (a run's own files are
    // read as --resume reads them). The same cases copied elsewhere are refused: a cases file from
    // someone else names files inside its own directory only.
    temp_dir tmp("warpsmith-run-cases");
    const fs::path data = source_dir() / "tests" / "engine" / "run" / "data";
    const fs::path w = tmp.path() / "w";
    fs::create_directories(w);
    fs::copy_file(data / "vadd" / "reference.cu", w / "reference.cu");
    fs::copy_file(data / "vadd" / "initial.cu", w / "initial.cu");
    auto wj = read_json_file(data / "vadd" / "workload.json");
    wj.as_object()["cases"].as_array().push_back(json::parse(
        R"({"name": "from-file", "values": {"n": 4}, "inputs": {"a": {"gen": "file", "path": "a4.bin"}}})"));
    write_json_file(w / "workload.json", wj);
    std::ofstream(w / "a4.bin", std::ios::binary) << std::string(16, '\0');
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    auto optimize = [&](std::vector<std::string> parts)
    {
        std::vector<std::string> args{"optimize",
                                      "--worker",
                                      fake(),
                                      "--in-process-compile",
                                      "--gpus",
                                      "0",
                                      "--candidates",
                                      (data / "candidates").string(),
                                      "--branches",
                                      "1",
                                      "--max-iterations",
                                      "1",
                                      "--confirm-top",
                                      "1"};
        args.insert(args.end(), parts.begin(), parts.end());
        return run_warpsmith(args, tmp.path());
    };
    const auto first = optimize({"--workload", w.string()});
    BOOST_TEST_REQUIRE(first.rc == 0, first.err);
    const fs::path run = tmp.path() / "results" / "run-001" / "workload";
    const auto cases = slurp(run / "cases.json");
    BOOST_TEST(cases.find((w / "a4.bin").string()) != std::string::npos, cases);

    const auto again = optimize({"--signature",
                                 (run / "workload.json").string(),
                                 "--input-cases",
                                 (run / "cases.json").string(),
                                 "--reference",
                                 (run / "reference.cu").string()});
    BOOST_TEST(again.rc == 0, again.err);
    BOOST_TEST(fs::exists(tmp.path() / "results" / "run-002" / "workload" / "cases.json"));

    fs::create_directories(tmp.path() / "elsewhere");
    fs::copy_file(run / "cases.json", tmp.path() / "elsewhere" / "cases.json");
    fs::copy_file(run / "workload.json", tmp.path() / "elsewhere" / "workload.json");
    for (const auto& flag : {"--input-cases", "--signature"})
    {
        std::vector<std::string> parts{"--reference", (run / "reference.cu").string()};
        if (std::string(flag) == "--input-cases")
            parts.insert(parts.end(),
                         {"--signature",
                          (run / "workload.json").string(),
                          "--input-cases",
                          (tmp.path() / "elsewhere" / "cases.json").string()});
        else
            parts.insert(parts.end(),
                         {"--signature",
                          (tmp.path() / "elsewhere" / "workload.json").string(),
                          "--input-cases",
                          (run / "cases.json").string()});
        const auto foreign = optimize(parts);
        BOOST_TEST(foreign.rc == 2, flag << ": " << foreign.err);
        BOOST_TEST(one_error_line(foreign.err), foreign.err);
        BOOST_TEST(foreign.err.find("elsewhere/") != std::string::npos, foreign.err);
        BOOST_TEST(foreign.err.find("a4.bin' is absolute") != std::string::npos, foreign.err);
    }

    // Two marker files make any folder look like a run, and its workload/ files are then read as a
    // run's own: self-contained, so they name no kernel file and no input file without the sha256
    // of its bytes. A "run" someone hands over thus reads no host file either.
    const fs::path pkg = tmp.path() / "pkg";
    fs::create_directories(pkg / "workload");
    std::ofstream(pkg / "run.json") << "{}";
    std::ofstream(pkg / "journal.jsonl").flush();
    std::ofstream(tmp.path() / "victim.env") << "GITHUB_PAT=ghp_VICTIMSECRET42\n";
    auto hostile = read_json_file(run / "workload.json");
    hostile.as_object().erase("reference_source");
    hostile.as_object()["reference"] = (tmp.path() / "victim.env").string();
    write_json_file(pkg / "workload" / "workload.json", hostile);
    const auto leak = optimize({"--signature", (pkg / "workload" / "workload.json").string()});
    BOOST_TEST(leak.rc == 2, leak.err);
    BOOST_TEST(one_error_line(leak.err), leak.err);
    BOOST_TEST(leak.err.find("carries its kernels inline") != std::string::npos, leak.err);
    BOOST_TEST(leak.err.find("VICTIMSECRET") == std::string::npos, leak.err);
    hostile = read_json_file(run / "workload.json");
    for (auto& c : hostile.as_object()["cases"].as_array())
        if (auto* a = c.as_object()["inputs"].if_object(); a && a->contains("a"))
            (*a)["a"] = json::object{{"gen", "file"}, {"path", (tmp.path() / "victim.env").string()}};
    write_json_file(pkg / "workload" / "workload.json", hostile);
    const auto probe = optimize({"--signature", (pkg / "workload" / "workload.json").string()});
    BOOST_TEST(probe.rc == 2, probe.err);
    BOOST_TEST(probe.err.find("only with the sha256 of its bytes") != std::string::npos, probe.err);
    BOOST_TEST(probe.err.find("bytes, expected") == std::string::npos, probe.err);
    ::unsetenv("WARPSMITH_CACHE_DIR");
}

BOOST_AUTO_TEST_SUITE_END()
