// The examples in docs/workload-format.md are loaded exactly as written, so the documentation can
// never drift from the parser.

#include "harness/core/json_file.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/input_generator.hpp"
#include "tests/harness/workload/workload_test_util.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <cstring>

using namespace warpsmith;
using warpsmith::test::workload_data_dir;

namespace
{

std::string doc_text()
{
    return read_text_file(warpsmith::test::source_dir() / "docs" / "workload-format.md");
}

// The first ```json block at or after `from`.
std::string json_block(const std::string& doc, std::size_t from = 0)
{
    const std::string open = "```json\n";
    const auto start = doc.find(open, from);
    BOOST_REQUIRE(start != std::string::npos);
    const auto body = start + open.size();
    const auto end = doc.find("```", body);
    BOOST_REQUIRE(end != std::string::npos);
    return doc.substr(body, end - body);
}

workload doc_workload()
{
    return workload::from_json(parse_json(json_block(doc_text()), "workload-format.md"),
                               workload_data_dir() / "doc_example",
                               "workload-format.md",
                               file_scope::workload_dir);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(workload_docs_suite)

BOOST_AUTO_TEST_CASE(complete_example_loads)
{
    const auto w = doc_workload();
    BOOST_TEST(w.name == "sgemm_alpha");
    BOOST_TEST(w.seed == 2024u);
    BOOST_TEST(w.sig.params.size() == 7u);
    BOOST_TEST(w.cases.size() == 3u);
    BOOST_TEST(w.performance_case_count() == 1u);
    BOOST_TEST(w.cases[0].seed == derived_case_seed(2024, "odd-small"));
    BOOST_TEST(w.cases[1].seed == 12345u);
    BOOST_TEST(w.cases[0].float_values.at("alpha") == 1.5);
    BOOST_TEST(w.reference.entry == "sgemm");
    BOOST_TEST(w.initial->entry == "sgemm_tiled");
    BOOST_TEST(w.initial->source.find("sgemm_tiled") != std::string::npos);
    BOOST_TEST(w.tunable->entry == "sgemm");
    BOOST_TEST(w.tunable->path == workload_data_dir() / "doc_example" / "tunable.cu");
    BOOST_TEST(w.tunables.size() == 4u);
    BOOST_TEST(w.restrictions.size() == 2u);
    variables point = w.cases[2].values;
    for (const auto& [name, values] : w.tunables)
        point[name] = values.back();  // BM=128, BN=128, TM=8, TN=8
    BOOST_TEST((w.tunable->launch.evaluate(point) == launch_dims{{16, 32, 1}, {256, 1, 1}, 0}));
    for (const auto& r : w.restrictions)
        BOOST_TEST(r.evaluate(point) == 1);
}

BOOST_AUTO_TEST_CASE(example_inputs_generate)
{
    const auto w = doc_workload();
    const auto& ramp = *w.find_case("ramp");
    const auto inputs = generate_case_inputs(w, ramp, ramp.seed);
    BOOST_TEST(inputs.size() == 2u);
    BOOST_TEST(inputs.at("A").size() == 64u * 64u * 4u);
    BOOST_TEST(inputs.at("A") == generate_input(dtype::float32, ramp.inputs.at("A"), 0, 64 * 64, "A"));
    float b0 = 0;
    std::memcpy(&b0, inputs.at("B").data(), 4);
    BOOST_TEST(b0 == 1.0f);
}

BOOST_AUTO_TEST_CASE(candidate_example_validates_against_the_workload)
{
    const auto doc = doc_text();
    const auto section = doc.find("## Candidates");
    BOOST_REQUIRE(section != std::string::npos);
    const auto c =
        candidate::from_json(parse_json(json_block(doc, section), "candidate example"), "candidate");
    BOOST_TEST(c.entry == "sgemm");
    BOOST_TEST(c.defines.at("BM") == 128);
    BOOST_TEST(c.validate(doc_workload()) == "");
}

BOOST_AUTO_TEST_CASE(round_trip_of_the_example)
{
    const auto w = doc_workload();
    const auto back = workload::from_json(w.to_json(), "/nowhere", "self-contained");
    BOOST_TEST(back.initial->source == w.initial->source);
    BOOST_TEST(back.tunable->source == w.tunable->source);
    BOOST_TEST(back.tunable->launch.block[0].text() == "(BM/TM)*(BN/TN)");
}

BOOST_AUTO_TEST_SUITE_END()
