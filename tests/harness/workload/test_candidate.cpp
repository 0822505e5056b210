// Candidates: JSON round trip, per-case launch overrides, launch variables, validation against a
// workload, and candidates made from the workload's own kernels.

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/candidate.hpp"
#include "tests/harness/workload/workload_test_util.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using warpsmith::test::error_of;
using warpsmith::test::workload_data_dir;

namespace
{

const char* const tiled = R"j({
  "source": "extern \"C\" __global__ void sgemm_tiled() {}",
  "entry": "sgemm_tiled",
  "defines": {"BM": 64, "BN": 32},
  "options": ["--use_fast_math", "--maxrregcount=64"],
  "launch": {"grid": ["ceil_div(N,BN)", "ceil_div(M,BM)"], "block": [256], "shared_bytes": "BM*BN*4"},
  "overrides": {"odd-small": {"grid": [1], "block": [32, 32]}},
  "rationale": "other layers may add keys; they are ignored"
})j";

candidate parse(std::string_view text)
{
    return candidate::from_json(parse_json(text, "c"), "c.json");
}

workload sgemm()
{
    return workload::load(workload_data_dir() / "sgemm_rect");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(candidate_suite)

BOOST_AUTO_TEST_CASE(from_json_reads_every_field)
{
    const auto c = parse(tiled);
    BOOST_TEST(c.entry == "sgemm_tiled");
    BOOST_TEST(c.source.find("sgemm_tiled") != std::string::npos);
    BOOST_TEST(c.defines.at("BM") == 64);
    BOOST_TEST(c.defines.at("BN") == 32);
    BOOST_TEST(c.options == (std::vector<std::string>{"--use_fast_math", "--maxrregcount=64"}),
               boost::test_tools::per_element());
    BOOST_TEST(c.overrides.size() == 1u);
    BOOST_TEST(c.launch.shared_bytes.text() == "BM*BN*4");
}

BOOST_AUTO_TEST_CASE(json_round_trip)
{
    const auto c = parse(tiled);
    const auto j = c.to_json();
    BOOST_TEST(!j.as_object().contains("rationale"));
    const auto back = candidate::from_json(j, "again");
    BOOST_TEST(boost::json::serialize(back.to_json()) == boost::json::serialize(j));
    BOOST_TEST(back.source == c.source);
    BOOST_TEST(back.defines == c.defines);
}

BOOST_AUTO_TEST_CASE(plan_for_and_launch_variables)
{
    const auto w = sgemm();
    const auto c = parse(tiled);
    const auto& small = *w.find_case("odd-small");
    const auto& big = *w.find_case("4096x2048x1024");
    BOOST_TEST(&c.plan_for("odd-small") == &c.overrides.at("odd-small"));
    BOOST_TEST(&c.plan_for("4096x2048x1024") == &c.launch);
    BOOST_TEST(&c.plan_for("unknown") == &c.launch);
    const auto vars = c.launch_variables(big);
    BOOST_TEST(vars.at("M") == 4096);
    BOOST_TEST(vars.at("BM") == 64);
    BOOST_TEST((c.plan_for(big.name).evaluate(vars) == launch_dims{{64, 64, 1}, {256, 1, 1}, 64 * 32 * 4}));
    BOOST_TEST((c.plan_for(small.name).evaluate(c.launch_variables(small)) ==
                launch_dims{{1, 1, 1}, {32, 32, 1}, 0}));
}

BOOST_AUTO_TEST_CASE(validate_accepts_a_good_candidate)
{
    BOOST_TEST(parse(tiled).validate(sgemm()) == "");
}

BOOST_AUTO_TEST_CASE(validate_reports_the_first_problem)
{
    const auto w = sgemm();
    auto c = parse(tiled);
    c.overrides.emplace("huge", launch_plan{});
    BOOST_TEST(c.validate(w) == "overrides: 'huge' is not a case of workload 'sgemm_rect'");

    c = parse(tiled);
    c.defines["M"] = 3;
    BOOST_TEST(c.validate(w) == "defines.M: clashes with the parameter 'M' of the signature");

    // A case value that is not a parameter: a define of that name would shadow it.
    auto w2 = w;
    for (auto& wc : w2.cases)
        wc.values["TILE"] = 16;
    c = parse(tiled);
    c.defines["TILE"] = 8;
    BOOST_TEST(c.validate(w2) == "defines.TILE: clashes with the value 'TILE' of case 'odd-small'");

    c = parse(tiled);
    c.defines.erase("BN");
    BOOST_TEST(
        c.validate(w) ==
        "case '4096x2048x1024': launch.grid[0]: expression 'ceil_div(N,BN)': unknown identifier 'BN' at "
        "column 12");

    c = parse(tiled);
    c.overrides.at("odd-small").block[0] = expression::parse("M-37");
    BOOST_TEST(c.validate(w) ==
               "case 'odd-small' (override): launch.block[0]: 'M-37' evaluates to 0, must be positive");

    c = parse(tiled);
    c.entry.clear();
    BOOST_TEST(c.validate(w) == "entry: must not be empty");
}

BOOST_AUTO_TEST_CASE(from_json_errors)
{
    auto err = [](std::string_view text) { return error_of<user_error>([&] { (void)parse(text); }); };
    BOOST_TEST(err(R"j({"launch": {"grid": [1], "block": [1]}})j") == "c.json: 'entry' is missing");
    BOOST_TEST(err(R"j({"entry": "k"})j") == "c.json: 'launch' is missing");
    BOOST_TEST(err(R"j({"entry": "a b", "launch": {"grid": [1], "block": [1]}})j") ==
               "c.json: entry: 'a b' is not a C identifier");
    BOOST_TEST(err(R"j({"entry": "k", "source": 5, "launch": {"grid": [1], "block": [1]}})j") ==
               "c.json: source: must be a string, got 5");
    BOOST_TEST(err(R"j({"entry": "k", "defines": {"BM": 1.5}, "launch": {"grid": [1], "block": [1]}})j") ==
               "c.json: defines.BM: must be an integer, got 1.5");
    BOOST_TEST(err(R"j({"entry": "k", "defines": {"B-M": 1}, "launch": {"grid": [1], "block": [1]}})j") ==
               "c.json: defines: 'B-M' is not a valid macro name");
    BOOST_TEST(
        err(R"j({"entry": "k", "options": "--use_fast_math", "launch": {"grid": [1], "block": [1]}})j") ==
        "c.json: options: must be a JSON array, got \"--use_fast_math\"");
    BOOST_TEST(err(R"j({"entry": "k", "launch": {"grid": ["M*"], "block": [1]}})j") ==
               "c.json: launch.grid[0]: expression 'M*': unexpected end of expression at column 3");
    BOOST_TEST(err(R"j({"entry": "k", "launch": {"grid": [1], "block": [1]},
                 "overrides": {"a": {"grid": [1]}}})j") == "c.json: overrides.a: 'block' is missing");
    BOOST_TEST(err("[]") == "c.json: must be a JSON object, got []");
}

BOOST_AUTO_TEST_CASE(from_kernel_uses_the_kernels_entry_and_launch)
{
    const auto w = workload::load(workload_data_dir() / "vector_add");
    const auto c = candidate::from_kernel(*w.initial);
    BOOST_TEST(c.source == w.initial->source);
    BOOST_TEST(c.entry == "vector_add");
    BOOST_TEST(c.defines.empty());
    BOOST_TEST(c.options.empty());
    BOOST_TEST(c.overrides.empty());
    BOOST_TEST(c.validate(w) == "");
    BOOST_TEST((c.plan_for("big").evaluate(c.launch_variables(*w.find_case("big"))) ==
                launch_dims{{65536, 1, 1}, {256, 1, 1}, 0}));
}

BOOST_AUTO_TEST_SUITE_END()
