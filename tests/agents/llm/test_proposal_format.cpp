// The proposal schema, answer parsing (bare JSON, fenced blocks) and validation with precise
// reasons, and the kernel contract checks (tests of agents/llm/proposal_format.hpp and
// kernel_contract.hpp), against the real sgemm workload and its real candidate kernels.

#include "agents/llm/kernel_contract.hpp"
#include "agents/llm/proposal_format.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using namespace warpsmith::llm;
namespace json = boost::json;

namespace
{

const workload& sgemm()
{
    static const workload w = workload::load(test::source_dir() / "bench" / "workloads" / "sgemm");
    return w;
}

std::string kernel(const std::string& stem)
{
    return read_text_file(test::source_dir() / "bench" / "workloads" / "sgemm" / "candidates" /
                          (stem + ".cu"));
}

json::object good_doc()
{
    return json::object{{"rationale", "coalesced"},
                        {"kernel_source", kernel("02-coalesced")},
                        {"entry", "sgemm"},
                        {"launch",
                         json::object{{"grid", json::array{"ceil_div(N,32)", "ceil_div(M,8)", "1"}},
                                      {"block", json::array{"32", "8", "1"}},
                                      {"shared_bytes", "0"}}},
                        {"per_case_overrides", json::array{}},
                        {"compile_options", json::array{}},
                        {"defines", json::array{}}};
}

bool has_problem(const proposal_check& c, const std::string& needle)
{
    for (const auto& p : c.problems)
        if (p.find(needle) != std::string::npos)
            return true;
    return false;
}

std::string all(const proposal_check& c)
{
    std::string out;
    for (const auto& p : c.problems)
        out += p + " | ";
    return out;
}

/// Every object in the schema is closed and requires all its properties (OpenAI strict mode).
void check_strict(const json::value& s, const std::string& where)
{
    if (!s.is_object())
        return;
    const auto& o = s.get_object();
    if (o.contains("properties"))
    {
        BOOST_TEST_CONTEXT(where)
        {
            BOOST_TEST(o.at("additionalProperties") == false);
            BOOST_TEST(o.at("required").as_array().size() == o.at("properties").as_object().size());
        }
        for (const auto& kv : o.at("properties").as_object())
            check_strict(kv.value(), where + "." + std::string(kv.key()));
    }
    if (const auto* items = o.if_contains("items"))
        check_strict(*items, where + "[]");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(proposal_format_suite)

BOOST_AUTO_TEST_CASE(schema_is_strict_mode_compatible)
{
    check_strict(proposal_json_schema(), "proposal");
    const auto s = proposal_json_schema();
    for (const char* k : {"rationale",
                          "kernel_source",
                          "entry",
                          "launch",
                          "per_case_overrides",
                          "compile_options",
                          "defines"})
        BOOST_TEST(s.at("properties").as_object().contains(k));
}

BOOST_AUTO_TEST_CASE(a_valid_document_maps_to_a_proposal)
{
    auto doc = good_doc();
    doc["defines"] = json::array{json::object{{"name", "TILE"}, {"value", 32}}};
    doc["compile_options"] = json::array{"--use_fast_math"};
    doc["per_case_overrides"] =
        json::array{json::object{{"case", "37x61x19"},
                                 {"launch",
                                  json::object{{"grid", json::array{"ceil_div(N,32)", "ceil_div(M,8)"}},
                                               {"block", json::array{32, 8}}}}}};
    const auto c = validate_proposal(doc, sgemm());
    BOOST_REQUIRE_MESSAGE(c.prop, all(c));
    BOOST_TEST(c.prop->rationale == "coalesced");
    BOOST_TEST(c.prop->cand.entry == "sgemm");
    BOOST_TEST(c.prop->cand.defines.at("TILE") == 32);
    BOOST_TEST(c.prop->cand.options.size() == 1u);
    BOOST_TEST(c.prop->cand.overrides.count("37x61x19") == 1u);
    BOOST_TEST(c.prop->cand.launch.block[0].text() == "32");
}

BOOST_AUTO_TEST_CASE(every_real_candidate_round_trips)
{
    for (const char* stem : {"01-naive",
                             "03-smem-tiled",
                             "05-2d-blocktiling",
                             "06-vectorized",
                             "07-warptile-128x128x8-t8x16",
                             "09-invalid-compile-error"})
    {
        auto side = read_json_file(test::source_dir() / "bench" / "workloads" / "sgemm" / "candidates" /
                                   (std::string(stem) + ".json"));
        candidate cand = candidate::from_json(side, stem);
        cand.source = kernel(stem);
        const auto c = validate_proposal(proposal_document(cand, "r"), sgemm());
        // The compile-error kernel is still a well-formed proposal: NVRTC judges it, not the schema.
        BOOST_TEST_CONTEXT(stem)
        {
            BOOST_TEST(c.prop.has_value(), all(c));
        }
    }
}

BOOST_AUTO_TEST_CASE(precise_reasons_for_broken_documents)
{
    auto doc = good_doc();
    doc.erase("launch");
    doc["kernel_source"] = 42;
    auto c = validate_proposal(doc, sgemm());
    BOOST_TEST(!c.prop);
    BOOST_TEST(has_problem(c, "kernel_source: must be a string, got a number"), all(c));
    BOOST_TEST(has_problem(c, "launch: missing"), all(c));

    doc = good_doc();
    doc["launch"].as_object()["grid"] = json::array{"1", "2", "3", "4"};
    doc["launch"].as_object()["block"] = json::array{true};
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(has_problem(c, "launch.grid: expected 1 to 3 expressions, got 4"), all(c));
    BOOST_TEST(has_problem(c, "launch.block[0]: must be an integer expression"), all(c));

    doc = good_doc();
    doc["launch"].as_object()["grid"] = json::array{"ceil_div(N,"};
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(has_problem(c, "launch.grid[0]"), all(c));

    doc = good_doc();
    doc["compile_options"] = json::array{"-rdc=true"};
    doc["defines"] = json::array{json::object{{"name", "2bad"}, {"value", 1}},
                                 json::object{{"name", "X"}, {"value", "abc"}}};
    doc["per_case_overrides"] =
        json::array{json::object{{"case", "no-such-case"}, {"launch", doc["launch"]}}};
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(has_problem(c, "compile_options:"), all(c));
    BOOST_TEST(has_problem(c, "defines[0]: '2bad' is not a valid macro name"), all(c));
    BOOST_TEST(has_problem(c, "defines[1]: the value of X must be an integer"), all(c));
    BOOST_TEST(has_problem(c, "there is no case named 'no-such-case'"), all(c));

    // Names the journal could not read back, or that would ride along in every request.
    doc = good_doc();
    doc["defines"] = json::array{json::object{{"name", "virtual"}, {"value", 1}},
                                 json::object{{"name", std::string(200, 'D')}, {"value", 1}}};
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(has_problem(c, "defines[0]: 'virtual' is not a valid macro name"), all(c));
    BOOST_TEST(has_problem(c, "defines[1]: '" + std::string(200, 'D') + "' is not a valid macro name"),
               all(c));
    doc = good_doc();
    doc["compile_options"] = json::array{"-D" + std::string(200, 'D') + "=1"};
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(has_problem(c, "a macro name of 200 characters (at most 128)"), all(c));

    doc = good_doc();
    doc["entry"] = "gemm";
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(has_problem(c, "defines no __global__ function named 'gemm'"), all(c));

    doc = good_doc();
    doc["defines"] = json::array{json::object{{"name", "M"}, {"value", 3}}};
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(has_problem(c, "clashes"), all(c));

    doc = good_doc();
    doc["launch"].as_object()["block"] = json::array{"0"};
    c = validate_proposal(doc, sgemm());
    BOOST_TEST(!c.prop);  // a launch plan that does not evaluate to a positive block for the cases

    c = validate_proposal(json::value("just a string"), sgemm());
    BOOST_TEST(has_problem(c, "must be a JSON object, got a string"), all(c));
}

BOOST_AUTO_TEST_CASE(lenient_representations_are_accepted)
{
    auto doc = good_doc();
    doc["launch"] = json::object{{"grid", json::array{"ceil_div(N,32)", "ceil_div(M,8)", 1}},
                                 {"block", json::array{32, 8}}};
    doc["defines"] = json::object{{"TILE", 32}};
    doc.erase("per_case_overrides");
    doc.erase("compile_options");
    doc["extra_key_from_a_chatty_model"] = "ignored";
    const auto c = validate_proposal(doc, sgemm());
    BOOST_TEST(c.prop.has_value(), all(c));
}

BOOST_AUTO_TEST_CASE(fenced_answers)
{
    const std::string text =
        "I swapped the mapping.\n\n```cuda\n" + kernel("02-coalesced") +
        "\n```\n\nLaunch:\n```json\n{\"entry\": \"sgemm\", \"launch\": {\"grid\": "
        "[\"ceil_div(N,32)\", \"ceil_div(M,8)\", \"1\"], \"block\": [\"32\", \"8\", \"1\"], "
        "\"shared_bytes\": \"0\"}}\n```\n";
    const auto parsed = parse_answer_text(text);
    BOOST_REQUIRE(parsed.document);
    BOOST_TEST(parsed.form == "fenced");
    BOOST_TEST(parsed.document->at("rationale").as_string().find("I swapped the mapping.") == 0u);
    const auto c = read_proposal(text, sgemm());
    BOOST_TEST(c.prop.has_value(), all(c));

    // A bare JSON object, and JSON inside a ```json block.
    BOOST_TEST(read_proposal(json::serialize(good_doc()), sgemm()).prop.has_value());
    BOOST_TEST(
        read_proposal("Here:\n```json\n" + json::serialize(good_doc()) + "\n```", sgemm()).prop.has_value());

    // Broken forms, each with its reason.
    BOOST_TEST(parse_answer_text("").problem == "the answer is empty");
    BOOST_TEST(parse_answer_text("{\"a\": ").problem.find("not valid JSON") != std::string::npos);
    BOOST_TEST(parse_answer_text("```cuda\nx\n```").problem.find("no ```json block") != std::string::npos);
    BOOST_TEST(parse_answer_text("prose only").problem.find("neither a JSON object") != std::string::npos);
    BOOST_TEST(parse_answer_text("```cuda\nx\n```\n```json\n{oops\n```").problem.find("not valid JSON") !=
               std::string::npos);
    // An unterminated block is ignored.
    BOOST_TEST(fenced_blocks("```cuda\nint x;\n").empty());
    const auto blocks = fenced_blocks("a\n```CUDA\nk1\n```\nb\n```json\n{}\n```\n");
    BOOST_REQUIRE_EQUAL(blocks.size(), 2u);
    BOOST_TEST(blocks[0].first == "cuda");
    BOOST_TEST(blocks[0].second == "k1\n");
}

BOOST_AUTO_TEST_CASE(kernel_contract)
{
    const std::string ok =
        R"(extern "C" __global__ void __launch_bounds__(256) k(int n, float* y) { y[0] = n; })";
    BOOST_TEST(check_kernel_contract(ok, "k").empty());
    const std::string block = "extern \"C\" {\n__global__ void k(float* y) { y[0] = 1; }\n}\n";
    BOOST_TEST(check_kernel_contract(block, "k").empty());
    BOOST_TEST(find_kernel_entries(block) == std::vector<std::string>{"k"});

    auto p = check_kernel_contract("__global__ void k(float* y) {}", "k");
    BOOST_REQUIRE_EQUAL(p.size(), 1u);
    BOOST_TEST(p[0].find("not declared extern \"C\"") != std::string::npos);

    p = check_kernel_contract(R"(extern "C" __global__ void k(float* y) { other<<<1,1>>>(y); })", "k");
    BOOST_TEST(p.size() == 1u);
    BOOST_TEST(p[0].find("dynamic parallelism") != std::string::npos);

    p = check_kernel_contract(R"(extern "C" __global__ void k(float* y) {}
int main() { float* d; cudaMalloc(&d, 4); })",
                              "k");
    BOOST_TEST(p.size() == 2u);

    // Comments do not count.
    BOOST_TEST(check_kernel_contract("// int main() <<<\n" + ok, "k").empty());
    BOOST_TEST(check_kernel_contract("   \n// nothing", "k").front() == "kernel_source is empty");
    BOOST_TEST(strip_comments("a /* b */ c // d\n\"//e\"") == "a         c     \n\"//e\"");
}

BOOST_AUTO_TEST_SUITE_END()
