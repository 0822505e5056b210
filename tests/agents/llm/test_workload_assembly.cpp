// The workload of a new optimize run from its sources (agents/llm/workload_assembly.hpp): a
// signature file with cases and a reference, an initial kernel with its sidecar, inference only
// when a model provider may fill missing parts, and the user errors naming the missing flag.

#include "agents/llm/workload_assembly.hpp"
#include "harness/core/error.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>

using namespace warpsmith;
using namespace warpsmith::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

const char* vadd_source =
    "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
    "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n";

json::object vadd_signature()
{
    json::array params{
        json::object{{"name", "n"}, {"kind", "scalar"}, {"type", "int32"}},
        json::object{{"name", "a"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "in"}, {"count", "n"}},
        json::object{{"name", "b"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "in"}, {"count", "n"}},
        json::object{{"name", "c"}, {"kind", "buffer"}, {"type", "float32"}, {"dir", "out"}, {"count", "n"}}};
    return json::object{
        {"entry", "vadd"},
        {"params", std::move(params)},
        {"launch", json::object{{"grid", json::array{"ceil_div(n,256)"}}, {"block", json::array{256}}}}};
}

json::array vadd_cases()
{
    return json::array{
        json::object{{"name", "odd"}, {"role", "correctness"}, {"values", json::object{{"n", 37}}}},
        json::object{{"name", "big"}, {"role", "performance"}, {"values", json::object{{"n", 1048576}}}}};
}

void write(const fs::path& p, const std::string& text)
{
    std::ofstream(p) << text;
}

/// A directory with signature.json, cases.json, reference.cu, initial.cu (+ initial.json).
struct parts_fixture
{
    temp_dir tmp{"warpsmith-workload-assembly-test"};
    llm::workload_sources sources;

    parts_fixture()
    {
        write(tmp.path() / "signature.json", json::serialize(vadd_signature()));
        write(tmp.path() / "cases.json", json::serialize(json::object{{"cases", vadd_cases()}}));
        write(tmp.path() / "reference.cu", vadd_source);
        write(tmp.path() / "initial.cu", std::string("// initial\n") + vadd_source);
        sources.signature = (tmp.path() / "signature.json").string();
        sources.input_cases = (tmp.path() / "cases.json").string();
        sources.reference = (tmp.path() / "reference.cu").string();
    }
};

const llm::infer_parts_function no_inference = [](json::object, const fs::path&) -> json::object
{
    BOOST_FAIL("inference was not expected");
    return {};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(workload_assembly_suite)

BOOST_AUTO_TEST_CASE(a_signature_file_cases_and_a_reference_make_a_workload)
{
    parts_fixture f;
    f.sources.description = "c = a + b";
    // Without a model provider nothing is inferred (with one, the missing initial kernel would be).
    const auto a = llm::assemble_workload(f.sources, no_inference);
    BOOST_TEST(a.work.name == "workload");
    BOOST_TEST(a.work.description == "c = a + b");
    BOOST_TEST(a.work.cases.size() == 2u);
    BOOST_REQUIRE(a.supplied_reference.has_value());
    BOOST_TEST(*a.supplied_reference == vadd_source);
    BOOST_TEST(!a.work.initial.has_value());
}

BOOST_AUTO_TEST_CASE(an_initial_kernel_takes_entry_and_launch_from_its_sidecar)
{
    parts_fixture f;
    write(f.tmp.path() / "initial.json",
          json::serialize(json::object{
              {"entry", "vadd"},
              {"launch",
               json::object{{"grid", json::array{"ceil_div(n,128)"}}, {"block", json::array{128}}}}}));
    f.sources.initial_kernel = (f.tmp.path() / "initial.cu").string();
    const auto a = llm::assemble_workload(f.sources, no_inference);
    BOOST_REQUIRE(a.work.initial.has_value());
    BOOST_TEST(a.work.initial->source.rfind("// initial\n", 0) == 0u);
    const auto launch = json::serialize(a.work.to_json().at("initial_launch"));
    BOOST_TEST(launch.find("128") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(missing_parts_are_inferred_only_with_a_model_provider_and_a_description)
{
    parts_fixture f;
    f.sources.reference.clear();
    f.sources.description = "c = a + b";
    BOOST_CHECK_THROW(llm::assemble_workload(f.sources, no_inference), user_error);  // no model

    f.sources.model_provider = true;
    int calls = 0;
    const auto a = llm::assemble_workload(f.sources,
                                          [&](json::object given, const fs::path& dir)
                                          {
                                              ++calls;
                                              BOOST_TEST(!given.contains("reference_source"));
                                              BOOST_TEST(given.at("description").as_string() == "c = a + b");
                                              BOOST_TEST(dir == fs::absolute(f.tmp.path()));
                                              given["reference_source"] = vadd_source;
                                              return given;
                                          });
    BOOST_TEST(calls == 1);
    BOOST_TEST(!a.supplied_reference.has_value());
    BOOST_TEST(a.work.reference.source == vadd_source);
}

BOOST_AUTO_TEST_CASE(what_cannot_make_a_workload_is_a_user_error_naming_the_flag)
{
    auto message_of = [](const llm::workload_sources& s)
    {
        try
        {
            llm::assemble_workload(s, no_inference);
        }
        catch (const user_error& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    llm::workload_sources nothing;
    BOOST_TEST(message_of(nothing).find("nothing to optimize") != std::string::npos);
    llm::workload_sources description_only;
    description_only.description = "c = a + b";
    BOOST_TEST(message_of(description_only).find("requires a model provider") != std::string::npos);

    parts_fixture f;
    f.sources.input_cases.clear();
    BOOST_TEST(message_of(f.sources).find("--input-cases") != std::string::npos);
    parts_fixture g;
    g.sources.reference.clear();
    BOOST_TEST(message_of(g.sources).find("--reference") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
