// The CLI's sans-I/O parts: entry detection, the eval report, replay requests, output directories,
// the hidden seed of optimize and tune.

#include "engine/cli/cli_app.hpp"
#include "engine/cli/eval_report.hpp"
#include "engine/cli/kernel_entry.hpp"
#include "engine/cli/replay_request.hpp"
#include "engine/cli/search_session.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/input_generator.hpp"
#include "tests/engine/cli/cli_test_support.hpp"

#include <boost/json.hpp>

#include <CLI/CLI.hpp>

namespace json = boost::json;
using namespace warpsmith;
using namespace warpsmith::test;

BOOST_AUTO_TEST_SUITE(kernel_entry_suite)

BOOST_AUTO_TEST_CASE(finds_extern_c_kernels)
{
    const std::string src = R"(
// extern "C" __global__ void commented_out(int) {}
/* extern "C" __global__ void also_commented(int) {} */
extern "C" __device__ void helper(float* p) {}
extern "C" __global__ void first(int n, float* __restrict__ x) {}
extern "C" __global__ __launch_bounds__(256, 2) void second(int n) {}
extern "C"
__global__ void __launch_bounds__(128) third(
    int n) {}
__global__ void not_extern_c(int) {}
)";
    BOOST_TEST(find_extern_c_kernels(src) == (std::vector<std::string>{"first", "second", "third"}));
    // A 300 KB run of spaces overflowed std::regex's recursion; Boost.Regex reads it.
    const std::string spaces(300000, ' ');
    BOOST_TEST(find_extern_c_kernels("extern \"C\"" + spaces + "__global__" + spaces +
                                     "void k(float* y) {}") == (std::vector<std::string>{"k"}));
}

BOOST_AUTO_TEST_CASE(chooses_or_explains)
{
    const std::string one = "extern \"C\" __global__ void only(int n) {}";
    BOOST_TEST(choose_entry(one, std::nullopt, "k.cu") == "only");
    BOOST_TEST(choose_entry(one, std::string("other"), "k.cu") == "other");
    const std::string two = "extern \"C\" __global__ void a(int) {}\nextern \"C\" __global__ void b(int) {}";
    BOOST_TEST(choose_entry(two, std::nullopt, "k.cu", "b") == "b");
    BOOST_CHECK_EXCEPTION(
        choose_entry(two, std::nullopt, "k.cu"),
        user_error,
        [](const user_error& e)
        {
            return std::string(e.what()) ==
                   "k.cu: several extern \"C\" __global__ functions (a, b); choose one with --entry";
        });
    BOOST_CHECK_THROW(choose_entry("__global__ void k() {}", std::nullopt, "k.cu"), user_error);
}

BOOST_AUTO_TEST_SUITE_END()

namespace
{

protocol::evaluation_result result_with(std::vector<std::pair<std::string, double>> perf, bool valid = true)
{
    json::array cases;
    cases.emplace_back(json::object{{"name", "small"},
                                    {"role", "correctness"},
                                    {"validation", json::object{{"passed", valid}}},
                                    {"timing", nullptr}});
    for (auto& [name, median] : perf)
        cases.emplace_back(json::object{{"name", name},
                                        {"role", "performance"},
                                        {"validation", json::object{{"passed", true}}},
                                        {"timing",
                                         json::object{{"median_us", median},
                                                      {"p10_us", median * 0.9},
                                                      {"p90_us", median * 1.1},
                                                      {"samples", median > 30 ? 100 : 21},
                                                      {"stopped", median > 30 ? "ceiling" : "quiet"},
                                                      {"rel_noise", median > 30 ? 0.012 : 0.003}}}});
    json::object r{{"status", valid ? "valid" : "invalid"}, {"cases", std::move(cases)}};
    r["failure"] = valid ? json::value(nullptr)
                         : json::value(json::object{
                               {"kind", "mismatch"}, {"case", "small"}, {"message", "3 of 10 differ"}});
    r["score_us"] = valid ? json::value(20.0) : json::value(nullptr);
    return protocol::evaluation_result::from_json(r);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(eval_report_suite)

BOOST_AUTO_TEST_CASE(speedups_are_per_case_ratios_and_their_geomean)
{
    auto cand = result_with({{"p1", 10.0}, {"p2", 40.0}});
    auto ref = result_with({{"p1", 40.0}, {"p2", 40.0}});
    auto init = result_with({{"p1", 10.0}, {"p2", 80.0}});
    auto rep = make_eval_report("c1", cand, &ref, &init);
    BOOST_TEST(rep.status == "valid");
    BOOST_REQUIRE(rep.rows.size() == 3u);
    BOOST_TEST(rep.rows[0].status == "ok");
    BOOST_TEST(!rep.rows[0].vs_reference.has_value());
    BOOST_TEST(*rep.rows[1].vs_reference == 4.0);
    BOOST_TEST(*rep.rows[2].vs_reference == 1.0);
    BOOST_TEST(*rep.vs_reference == 2.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(*rep.vs_initial == std::sqrt(2.0), boost::test_tools::tolerance(1e-12));
    std::string table = render_eval_report(rep);
    BOOST_TEST(table.find("4.00x") != std::string::npos);
    BOOST_TEST(table.find("c1: valid, score 20.000 us") != std::string::npos);
    // How each case's timing stopped: 21 launches quiet at 0.30%, 100 at the ceiling at 1.20%.
    BOOST_TEST(rep.rows[1].samples.value_or(0) == 21.0);
    BOOST_TEST(rep.rows[1].stopped == "quiet");
    BOOST_TEST(table.find("0.30%  quiet") != std::string::npos, table);
    BOOST_TEST(table.find("100   1.20%  ceiling (never quiet)") != std::string::npos, table);
    auto sj = rep.speedup_json();
    BOOST_TEST(sj.at("cases").at("p1").at("vs_reference").as_double() == 4.0);
}

BOOST_AUTO_TEST_CASE(invalid_candidates_show_the_failure)
{
    auto cand = result_with({}, false);
    auto rep = make_eval_report("c2", cand, nullptr, nullptr);
    BOOST_TEST(rep.status == "invalid");
    BOOST_TEST(rep.rows[0].status == "FAIL");
    std::string table = render_eval_report(rep);
    BOOST_TEST(table.find("c2: INVALID (mismatch on case small): 3 of 10 differ") != std::string::npos);
    BOOST_TEST(table.find("vs init") == std::string::npos);
    BOOST_TEST(!rep.vs_reference.has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(replay_request_suite)

BOOST_AUTO_TEST_CASE(round_trips_through_json_and_a_file)
{
    temp_dir tmp;
    replay_request r;
    r.w = workload::load(vadd_dir());
    r.name = "c0042";
    r.case_name = "odd";
    r.validate_only = true;
    r.hidden_seed = 18446744073709551557ull;  // above INT64_MAX: must survive as unsigned
    r.timing.warmup = 3;
    r.timing.iterations = 7;
    r.timing.mode = timing_mode::hot;
    r.cand = candidate::from_kernel(*r.w.initial);
    r.cand.defines["UNROLL"] = 4;
    r.cand.options = {"--use_fast_math"};

    auto path = tmp.path() / "odd.json";
    write_json_file(path, r.to_json());
    auto back = replay_request::from_json(read_json_file(path), path.string(), tmp.path());
    BOOST_TEST(back.name == "c0042");
    BOOST_TEST(back.case_name == "odd");
    BOOST_TEST(back.validate_only);
    BOOST_TEST(back.hidden_seed == 18446744073709551557ull);
    BOOST_TEST(back.timing.warmup == 3);
    BOOST_TEST(back.timing.iterations == 7);
    BOOST_TEST((back.timing.mode == timing_mode::hot));
    BOOST_TEST(back.tool_version == WARPSMITH_VERSION);
    BOOST_TEST(back.cand.source == r.cand.source);
    BOOST_TEST(back.cand.entry == "vadd");
    BOOST_TEST(back.cand.defines.at("UNROLL") == 4);
    BOOST_TEST(back.cand.options == std::vector<std::string>{"--use_fast_math"});
    BOOST_TEST(back.w.name == "vadd");
    BOOST_TEST(back.w.cases.size() == 2u);
    BOOST_TEST(back.w.reference.source == r.w.reference.source);
    BOOST_TEST(json::serialize(back.w.to_json()) == json::serialize(r.w.to_json()));
}

BOOST_AUTO_TEST_CASE(bad_requests_name_the_problem)
{
    replay_request r;
    r.w = workload::load(vadd_dir());
    r.name = "c1";
    r.case_name = "odd";
    r.cand = candidate::from_kernel(r.w.reference);
    json::object good = r.to_json();

    auto error_of = [](json::object o)
    {
        try
        {
            replay_request::from_json(o, "req.json", ".");
        }
        catch (const user_error& e)
        {
            return std::string(e.what());
        }
        return std::string("<no error>");
    };
    json::object no_case = good;
    no_case["case"] = "nope";
    BOOST_TEST(error_of(no_case) == "req.json: case 'nope' is not in the workload");
    json::object bad_format = good;
    bad_format["format"] = "something";
    BOOST_TEST(error_of(bad_format).find("not a replay request") != std::string::npos);
    json::object no_seed = good;
    no_seed.erase("hidden_seed");
    BOOST_TEST(error_of(no_seed) == "req.json: 'hidden_seed' is missing");
    json::object bad_timing = good;
    bad_timing["timing"] = json::object{{"mode", "lukewarm"}};
    BOOST_TEST(error_of(bad_timing) == "req.json: 'timing.mode' must be \"cold\" or \"hot\"");

    // A replay request is a file people pass around: its workload must not make the receiver's
    // warpsmith read a host file (a reference by file name would be compiled, and its text shown
    // in the compile log and sent to the worker).
    json::object file_reference = good;
    auto& fw = file_reference["workload"].as_object();
    fw.erase("reference_source");
    fw["reference"] = "/home/someone/.env";
    const auto refused = error_of(file_reference);
    BOOST_TEST(refused.rfind("req.json: workload: reference: a self-contained workload", 0) == 0u, refused);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cli_app_suite)

BOOST_AUTO_TEST_CASE(errors_become_one_line)
{
    BOOST_TEST(one_line("a\nb") == "a; b");
    BOOST_TEST(one_line("log:\n  x\n\n") == "log: x");
    BOOST_TEST(one_line("plain") == "plain");
}

BOOST_AUTO_TEST_SUITE_END()

namespace
{

/// The seed flags of optimize and tune (and the two the search options need) on a bare command:
/// one object per session, as each warpsmith process has.
struct session_flags
{
    CLI::App app{"test"};
    search_session_args args;

    explicit session_flags(const std::string& command_line)
    {
        args.add_seed_flags(app, "Search", "Seed of the strategy");
        app.add_option("--branches", args.branches);
        app.add_option("--async", args.async);
        app.parse(command_line, false);
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(hidden_seed_suite)

BOOST_AUTO_TEST_CASE(seed_alone_does_not_determine_the_hidden_seed)
{
    // Two sessions with the same public seed: the hidden inputs differ, and neither is the value
    // the seed used to be mixed into.
    session_flags one("--seed 3");
    session_flags two("--seed 3");
    BOOST_TEST(one.args.seed == 3u);
    BOOST_TEST(one.args.hidden_seed() != two.args.hidden_seed());
    const std::uint64_t old_derivation = splitmix64_mix(std::uint64_t{3} ^ 0x68696464656e5eedULL);
    BOOST_TEST(one.args.hidden_seed() != old_derivation);
    BOOST_TEST(two.args.hidden_seed() != old_derivation);
    // One session chooses once: workload inference and the search load the same hidden inputs.
    BOOST_TEST(one.args.hidden_seed() == one.args.hidden_seed());
    session_flags none("");
    BOOST_TEST(none.args.hidden_seed() == none.args.hidden_seed());
}

BOOST_AUTO_TEST_CASE(hidden_seed_flag_fixes_it)
{
    session_flags one("--seed 3 --hidden-seed 4242");
    session_flags two("--hidden-seed 4242 --seed 9");
    BOOST_TEST(one.args.hidden_seed() == 4242u);
    BOOST_TEST(two.args.hidden_seed() == 4242u);
    session_flags big("--hidden-seed 18446744073709551557");
    BOOST_TEST(big.args.hidden_seed() == 18446744073709551557ull);
}

BOOST_AUTO_TEST_CASE(the_search_records_it_for_resume)
{
    // start_search puts it in the search options; run.json "config.search" is their JSON, which
    // --resume reads back (reopen_run: search_options::from_json).
    session_flags f("--seed 3 --hidden-seed 18446744073709551557");
    search_options s;
    start_search(s, f.args);
    BOOST_TEST(s.hidden_seed == 18446744073709551557ull);
    const search_options back = search_options::from_json(s.to_json(), "run.json");
    BOOST_TEST(back.hidden_seed == 18446744073709551557ull);

    session_flags random("--seed 3");
    search_options r;
    start_search(r, random.args);
    BOOST_TEST(r.hidden_seed == random.args.hidden_seed());
    BOOST_TEST(search_options::from_json(r.to_json(), "run.json").hidden_seed == r.hidden_seed);
}

BOOST_AUTO_TEST_CASE(a_malformed_search_config_names_the_field)
{
    // run.json is a record: a resume from a damaged one stops with the field at fault, and null
    // (an unset budget) reads as absent.
    auto message = [](json::object search)
    {
        try
        {
            (void)search_options::from_json(search, "run-001/run.json");
        }
        catch (const user_error& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    json::object o = search_options{}.to_json();
    o["branches"] = "two";
    BOOST_TEST(message(o) == "run-001/run.json: config.search.branches: must be an integer, got \"two\"");
    o = search_options{}.to_json();
    o["timing"].as_object()["mode"] = "warm";
    BOOST_TEST(message(o) ==
               "run-001/run.json: config.search.timing.mode: must be \"cold\" or \"hot\", got \"warm\"");
    o = search_options{}.to_json();
    o["nsight"].as_object()["sections"] = json::array{"SpeedOfLight", 3};
    BOOST_TEST(message(o) == "run-001/run.json: config.search.nsight.sections[1]: must be a string, got 3");
    o = search_options{}.to_json();
    o["budgets"].as_object()["max_candidates"] = nullptr;
    BOOST_TEST(message(o) == "accepted");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(resumed_path_suite)

BOOST_AUTO_TEST_CASE(a_recorded_folder_is_used_only_when_the_user_names_it_again)
{
    temp_dir tmp;
    std::filesystem::create_directories(tmp.path() / "cands");
    const auto recorded = tmp.path() / "cands";
    auto error_of = [&](const std::optional<std::filesystem::path>& given)
    {
        try
        {
            confirm_resumed_path("run-001/run.json", "provider.candidates", "--candidates", recorded, given);
        }
        catch (const user_error& e)
        {
            return std::string(e.what());
        }
        return std::string("<no error>");
    };
    BOOST_TEST(error_of(std::nullopt) ==
               "run-001/run.json: config.provider.candidates is '" + recorded.string() +
                   "'; --resume uses it only when you give --candidates " + recorded.string() +
                   " again (a run directory can come from anyone)");
    BOOST_TEST(error_of(recorded) == "<no error>");
    // The same folder by another spelling is the same folder.
    BOOST_TEST(error_of(tmp.path() / "cands" / ".." / "cands" / "") == "<no error>");
    BOOST_TEST(error_of(tmp.path()).find("cannot change it on --resume (start a new run instead)") !=
               std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(timing_flags_suite)

// eval, optimize and tune share the timing flags (engine/cli/timing_args): adaptive by default,
// --target-noise 0 for every launch, and the options reach the evaluate request's JSON.
BOOST_AUTO_TEST_CASE(timing_flags_default_to_adaptive_and_reach_the_request)
{
    const auto parse = [](const std::string& line)
    {
        CLI::App app{"test"};
        timing_args t;
        t.add_to(app, "Timing");
        app.parse(line, false);
        return t.options();
    };
    const timing_options d = parse("");
    BOOST_TEST(d.target_rel_noise == default_target_rel_noise);
    BOOST_TEST(d.iterations == default_timed_launches);
    BOOST_TEST(d.warmup == default_warmup_launches);
    BOOST_TEST((d.mode == timing_mode::cold));
    BOOST_TEST(d.to_json().at("target_rel_noise").to_number<double>() == default_target_rel_noise);
    BOOST_TEST(!d.to_json().contains("dominated_above_us"));

    const timing_options f = parse("--target-noise 0 --iterations 300 --warmup 3 --timing hot");
    BOOST_TEST(f.target_rel_noise == 0.0);
    BOOST_TEST(f.iterations == 300);
    BOOST_TEST(f.warmup == 3);
    BOOST_TEST((f.mode == timing_mode::hot));
    BOOST_CHECK_THROW(parse("--target-noise -0.1"), CLI::ParseError);
    BOOST_CHECK_THROW(parse("--timing lukewarm"), CLI::ParseError);

    timing_options with_threshold = d;
    with_threshold.dominated_above_us["perf"] = 12.5;
    BOOST_TEST(with_threshold.to_json().at("dominated_above_us").at("perf").to_number<double>() == 12.5);
}

BOOST_AUTO_TEST_SUITE_END()
