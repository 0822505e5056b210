#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;

namespace
{

// The ```json blocks of docs/compile.md's "Example" section, in order.
std::vector<std::string> example_blocks()
{
    std::string doc = read_text_file(test::source_dir() / "docs" / "compile.md");
    std::string_view rest = doc;
    rest = rest.substr(rest.find("## Example"));
    rest = rest.substr(0, rest.find("\n## ", 1));
    std::vector<std::string> blocks;
    for (auto at = rest.find("```json\n"); at != std::string_view::npos; at = rest.find("```json\n"))
    {
        rest.remove_prefix(at + 8);
        auto end = rest.find("```");
        blocks.emplace_back(rest.substr(0, end));
        rest.remove_prefix(end + 3);
    }
    return blocks;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compile_docs)

BOOST_AUTO_TEST_CASE(documented_example_compiles_and_matches_the_output_format)
{
    auto blocks = example_blocks();
    BOOST_TEST_REQUIRE(blocks.size() == 2u);
    compile_request request = compile_request::from_json(parse_json(blocks[0], "docs/compile.md request"));
    compile_output out = nvrtc_compiler().compile(request);
    BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
    BOOST_TEST(out.entries == (std::vector<std::string>{"scale"}), boost::test_tools::per_element());

    // The documented output has exactly the keys a real output has.
    auto documented = parse_json(blocks[1], "docs/compile.md output").as_object();
    auto real = out.to_json().as_object();
    BOOST_TEST(documented.size() == real.size());
    for (const auto& kv : real)
        BOOST_TEST(documented.contains(kv.key()), kv.key());
    BOOST_TEST(documented.at("resources").as_object().size() == real.at("resources").as_object().size());
}

BOOST_AUTO_TEST_SUITE_END()
