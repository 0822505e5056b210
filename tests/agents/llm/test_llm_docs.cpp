// The documentation stays true: docs/prompts.md shows every fixed prompt text exactly as the code
// sends it, and the file-format examples of docs/agents.md (price table, llm/ record) load.

#include "agents/llm/llm_records.hpp"
#include "agents/llm/price_table.hpp"
#include "agents/llm/prompts.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>

using namespace warpsmith;
using namespace warpsmith::llm;

namespace
{

std::string doc(const char* name)
{
    return read_text_file(test::source_dir() / "docs" / name);
}

/// The fenced json block after an HTML comment marker.
std::string example_after(const std::string& text, const std::string& marker)
{
    const auto m = text.find(marker);
    BOOST_REQUIRE_MESSAGE(m != std::string::npos, "marker not found: " << marker);
    const auto open = text.find("```json\n", m);
    const auto close = text.find("\n```", open + 8);
    return text.substr(open + 8, close - open - 8);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(llm_docs_suite)

BOOST_AUTO_TEST_CASE(prompts_md_matches_the_code)
{
    const auto md = doc("prompts.md");
    for (auto text : {prompts::system_role(),
                      prompts::contract(),
                      prompts::answer_json(),
                      prompts::answer_fenced(),
                      prompts::tools_note(),
                      prompts::task_start(),
                      prompts::task_improve(),
                      prompts::task_repair(),
                      prompts::task_crossover(),
                      prompts::answer_repair(),
                      prompts::inference_system(),
                      prompts::inference_task(),
                      prompts::inference_repair()})
        BOOST_TEST(md.find(std::string(text)) != std::string::npos,
                   "docs/prompts.md lacks: " << text.substr(0, 60));
}

BOOST_AUTO_TEST_CASE(agents_md_examples_load)
{
    const auto md = doc("agents.md");
    auto table = price_table::defaults();
    table.apply(parse_json(example_after(md, "<!-- price-table example"), "docs/agents.md"),
                "docs/agents.md");
    BOOST_TEST(table.find("qwen2.5-coder-32b").has_value());
    BOOST_TEST(table.find("gpt-5-mini")->output_per_mtok == 2.0);

    test::temp_dir tmp;
    std::ofstream(tmp.path() / "0007-b2-i3-improve.json") << example_after(md, "<!-- llm record example");
    const auto recs = read_records(tmp.path());
    BOOST_REQUIRE_EQUAL(recs.size(), 1u);
    BOOST_TEST(recs[0].ok);
    BOOST_TEST(recs[0].branch == 2);
    BOOST_TEST(recs[0].response.tool_calls.size() == 1u);
    BOOST_TEST(recs[0].response.usage.reasoning == 1536);
}

BOOST_AUTO_TEST_SUITE_END()
