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

/// The user_error of assembling `s` ("no error" when it assembles).
std::string assembly_error(const llm::workload_sources& s)
{
    try
    {
        llm::assemble_workload(s, no_inference);
    }
    catch (const user_error& e)
    {
        return std::string(e.what());
    }
    return "no error";
}

/// vadd's cases and one more whose input `a` (4 floats) is read from the file `path`.
json::array cases_with_file_input(const std::string& path)
{
    auto cases = vadd_cases();
    cases.push_back(
        json::object{{"name", "from-file"},
                     {"values", json::object{{"n", 4}}},
                     {"inputs", json::object{{"a", json::object{{"gen", "file"}, {"path", path}}}}}});
    return cases;
}

BOOST_AUTO_TEST_CASE(file_names_in_a_signature_or_cases_file_stay_inside_its_directory)
{
    // A partial workload.json (--signature) or a cases file (--input-cases) someone hands over
    // names files the way a workload directory does: inside its own directory.
    temp_dir outside("warpsmith-assembly-outside");
    write(outside.path() / "secret.bin", std::string(16, 'S'));
    write(outside.path() / "secret.cu", vadd_source);
    const std::string up = "../" + outside.path().filename().string();

    for (const auto& [path, problem] : std::vector<std::pair<std::string, std::string>>{
             {(outside.path() / "secret.bin").string(), "is absolute"},
             {up + "/secret.bin", "leaves the directory"},
             {"link/secret.bin", "leads out of the directory through a symbolic link"}})
    {
        parts_fixture f;
        fs::create_directory_symlink(outside.path(), f.tmp.path() / "link");
        write(f.tmp.path() / "cases.json",
              json::serialize(json::object{{"cases", cases_with_file_input(path)}}));
        const auto e = assembly_error(f.sources);
        BOOST_TEST(e.find(f.sources.input_cases + ": cases[2].inputs.a.path: ") != std::string::npos, e);
        BOOST_TEST(e.find(problem) != std::string::npos, e);

        // The same cases inside a partial workload.json given with --signature.
        auto partial = vadd_signature();
        json::object whole{{"signature", json::object{{"entry", "vadd"}, {"params", partial.at("params")}}},
                           {"launch", partial.at("launch")},
                           {"cases", cases_with_file_input(path)}};
        write(f.tmp.path() / "partial.json", json::serialize(whole));
        f.sources.signature = (f.tmp.path() / "partial.json").string();
        f.sources.input_cases.clear();
        const auto p = assembly_error(f.sources);
        BOOST_TEST(p.find(f.sources.signature + ": cases[2].inputs.a.path: ") != std::string::npos, p);
        BOOST_TEST(p.find(problem) != std::string::npos, p);

        // A reference named by the partial workload.json.
        const std::string reference = path.substr(0, path.size() - 4) + ".cu";
        whole.erase("cases");
        whole["reference"] = reference;
        write(f.tmp.path() / "partial.json", json::serialize(whole));
        f.sources.input_cases = (f.tmp.path() / "cases.json").string();
        write(f.tmp.path() / "cases.json", json::serialize(json::object{{"cases", vadd_cases()}}));
        f.sources.reference.clear();
        const auto r = assembly_error(f.sources);
        BOOST_TEST(r.find(f.sources.signature + ": reference: ") != std::string::npos, r);
        BOOST_TEST(r.find(problem) != std::string::npos, r);
    }
}

BOOST_AUTO_TEST_CASE(each_file_names_files_relative_to_its_own_directory)
{
    // The partial workload.json in one directory names its reference, the cases file in another
    // names an input file: each resolves against its own file's directory.
    parts_fixture f;
    temp_dir cases_dir("warpsmith-assembly-cases");
    fs::create_directory(cases_dir.path() / "data");
    write(cases_dir.path() / "data" / "a.bin", std::string(16, '\0'));
    write(cases_dir.path() / "cases.json",
          json::serialize(json::object{{"cases", cases_with_file_input("data/a.bin")}}));
    auto sig = vadd_signature();
    json::object whole{{"signature", json::object{{"entry", "vadd"}, {"params", sig.at("params")}}},
                       {"launch", sig.at("launch")},
                       {"reference", "reference.cu"}};
    write(f.tmp.path() / "partial.json", json::serialize(whole));
    f.sources.signature = (f.tmp.path() / "partial.json").string();
    f.sources.input_cases = (cases_dir.path() / "cases.json").string();
    f.sources.reference.clear();
    const auto a = llm::assemble_workload(f.sources, no_inference);
    BOOST_TEST(a.work.reference.source == vadd_source);
    BOOST_REQUIRE(a.work.cases.size() == 3u);
    const auto input = a.work.to_json().at("cases").at(2).at("inputs").at("a").at("path");
    BOOST_TEST(json::value_to<std::string>(input) == (cases_dir.path() / "data" / "a.bin").string());
}

BOOST_AUTO_TEST_SUITE_END()
