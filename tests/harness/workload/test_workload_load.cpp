// Loading valid workloads: the SPEC §2 example verbatim, the vector-add test workload, defaults,
// kernels given as files or inline, the tunable kernel forms, and the to_json round trip.

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/input_generator.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/workload/workload_test_util.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using warpsmith::test::workload_data_dir;

namespace
{

// A small valid workload as JSON text, with inline sources so it needs no files.
const char* const inline_workload = R"j({
  "name": "scale",
  "seed": 11,
  "signature": {"entry": "scale", "params": [
    {"name": "n", "kind": "scalar", "type": "int64"},
    {"name": "alpha", "kind": "scalar", "type": "float32"},
    {"name": "x", "kind": "buffer", "type": "float16", "dir": "inout", "count": "n"},
    {"name": "idx", "kind": "buffer", "type": "uint8", "dir": "in", "count": "ceil_div(n, 2)"},
    {"name": "y", "kind": "buffer", "type": "bfloat16", "dir": "out", "count": "n*PAD"}]},
  "cases": [
    {"name": "a", "values": {"n": 10, "PAD": 2}, "float_values": {"alpha": 0.5}},
    {"name": "b", "role": "performance", "values": {"n": 1000, "PAD": 1}, "float_values": {"alpha": -3},
     "seed": 18446744073709551615,
     "inputs": {"x": {"gen": "normal", "mean": 1, "stddev": 0.25},
                "idx": {"gen": "iota", "start": 3, "step": 0}}}
  ],
  "reference_source": "extern \"C\" __global__ void scale() {}",
  "reference_entry": "scale_ref",
  "initial_source": "extern \"C\" __global__ void scale_v1() {}",
  "initial_entry": "scale_v1",
  "initial_launch": {"grid": ["ceil_div(n, 512)"], "block": [512]},
  "tunable_source": "extern \"C\" __global__ void scale() {}",
  "tunable_launch": {"grid": ["ceil_div(n, BLOCK)"], "block": ["BLOCK"]},
  "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]},
  "tunables": {"BLOCK": [128, 256, 512]},
  "restrictions": ["BLOCK % 128 == 0", "BLOCK <= 4 * n"]
})j";

workload inline_w()
{
    return workload::from_json(parse_json(inline_workload, "inline"), "/work/dir", "inline.json");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(workload_load_suite)

BOOST_AUTO_TEST_CASE(spec_example_loads_exactly)
{
    const auto w = workload::load(workload_data_dir() / "sgemm_rect");
    BOOST_TEST(w.name == "sgemm_rect");
    BOOST_TEST(w.description == "Single-precision GEMM, C = A*B, row-major, rectangular matrices.");
    BOOST_TEST(w.sig.entry == "sgemm");
    BOOST_REQUIRE(w.sig.params.size() == 6u);
    const param* a = w.sig.find("A");
    BOOST_REQUIRE(a);
    BOOST_TEST((a->kind == param_kind::buffer && a->dir == buffer_dir::in && a->type == dtype::float32));
    BOOST_TEST(a->count.text() == "M*K");
    BOOST_TEST(a->is_input());
    BOOST_TEST(!a->is_output());
    BOOST_TEST(w.sig.find("C")->is_output());
    BOOST_TEST((w.sig.find("M")->kind == param_kind::scalar));
    BOOST_TEST(!w.sig.find("Z"));
    BOOST_TEST(w.tol.rtol == 1e-4);
    BOOST_TEST(w.tol.atol == 1e-4);
    BOOST_REQUIRE(w.cases.size() == 2u);
    BOOST_TEST(w.cases[0].name == "odd-small");
    BOOST_TEST((w.cases[0].role == case_role::correctness));
    BOOST_TEST((w.cases[1].role == case_role::performance));
    BOOST_TEST(w.performance_case_count() == 1u);
    BOOST_TEST(w.buffer_count(*a, w.cases[0]) == 37 * 19);
    BOOST_TEST(w.buffer_bytes(*w.sig.find("C"), w.cases[1]) == std::int64_t{4096} * 2048 * 4);
    BOOST_TEST((w.cases[1].input_for(*a).kind == input_kind::uniform));
    BOOST_TEST(w.seed == 0u);
    BOOST_TEST(w.cases[0].seed == derived_case_seed(0, "odd-small"));
    BOOST_TEST(w.reference.entry == "sgemm");
    BOOST_TEST(w.reference.source.find("extern \"C\" __global__ void sgemm") != std::string::npos);
    BOOST_TEST(w.reference.path == (workload_data_dir() / "sgemm_rect" / "reference.cu"));
    BOOST_REQUIRE(w.initial.has_value());
    BOOST_TEST(w.initial->entry == "sgemm");
    BOOST_TEST(!w.tunable.has_value());
    BOOST_TEST((w.reference.launch.evaluate(w.cases[0].values) == launch_dims{{4, 3, 1}, {16, 16, 1}, 0}));
    BOOST_TEST(w.tunables.at("BM") == (std::vector<std::int64_t>{64, 128}), boost::test_tools::per_element());
    BOOST_REQUIRE(w.restrictions.size() == 1u);
    BOOST_TEST(w.restrictions[0].evaluate({{"BM", 128}, {"BN", 128}, {"TM", 4}}) == 1);
    BOOST_TEST(w.dir == workload_data_dir() / "sgemm_rect");
    BOOST_TEST(w.find_case("4096x2048x1024") == &w.cases[1]);
    BOOST_TEST(!w.find_case("nope"));
}

BOOST_AUTO_TEST_CASE(vector_add_loads_from_dir_or_file)
{
    const auto by_dir = workload::load(workload_data_dir() / "vector_add");
    const auto by_file = workload::load(workload_data_dir() / "vector_add" / "workload.json");
    BOOST_TEST(boost::json::serialize(by_dir.to_json()) == boost::json::serialize(by_file.to_json()));
    const auto& w = by_dir;
    BOOST_TEST(w.seed == 3u);
    BOOST_TEST(w.tol.rtol == 0.0);
    BOOST_TEST(w.tol.atol == 1e-6);
    BOOST_TEST(w.cases[0].seed == derived_case_seed(3, "odd"));
    BOOST_TEST(w.cases[2].seed == 99u);
    BOOST_TEST((w.cases[0].role == case_role::correctness));  // the default role
    BOOST_TEST((w.cases[2].input_for(*w.sig.find("b")).kind == input_kind::constant));
    BOOST_TEST(w.cases[2].input_for(*w.sig.find("b")).value == 2.0);
    const auto& file_spec = w.cases[1].input_for(*w.sig.find("a"));
    BOOST_TEST((file_spec.kind == input_kind::file));
    BOOST_TEST(file_spec.path.is_absolute());
    BOOST_TEST(file_spec.path == workload_data_dir() / "vector_add" / "a4.bin");
    BOOST_TEST((w.launch.evaluate(w.cases[0].values) == launch_dims{{4, 1, 1}, {256, 1, 1}, 0}));
    BOOST_TEST(w.initial->source.find("grid-stride") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(relative_paths_resolve_against_the_workload_dir)
{
    // Loading through a relative path from another working directory still finds the kernels.
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(workload_data_dir());
    try
    {
        const auto w = workload::load("vector_add");
        BOOST_TEST(w.dir.is_absolute());
        BOOST_TEST(w.dir == workload_data_dir() / "vector_add");
        BOOST_TEST(w.reference.path == workload_data_dir() / "vector_add" / "reference.cu");
        const auto f = workload::load("vector_add/workload.json");
        BOOST_TEST(f.dir == workload_data_dir() / "vector_add");
    }
    catch (...)
    {
        std::filesystem::current_path(cwd);
        throw;
    }
    std::filesystem::current_path(cwd);
}

BOOST_AUTO_TEST_CASE(inline_sources_entries_launches_and_float_values)
{
    const auto w = inline_w();
    BOOST_TEST(w.reference.entry == "scale_ref");
    BOOST_TEST(w.reference.path.empty());
    BOOST_TEST(w.initial->entry == "scale_v1");
    BOOST_TEST(w.tunable->entry == "scale");  // defaults to signature.entry
    // Each kernel has its own launch: reference uses the default, initial and tunable their own.
    const auto& a = w.cases[0];
    BOOST_TEST((w.reference.launch.evaluate(a.values) == launch_dims{{1, 1, 1}, {256, 1, 1}, 0}));
    BOOST_TEST((w.initial->launch.evaluate(a.values) == launch_dims{{1, 1, 1}, {512, 1, 1}, 0}));
    variables with_tunables = a.values;
    with_tunables["BLOCK"] = 128;
    BOOST_TEST((w.tunable->launch.evaluate(with_tunables) == launch_dims{{1, 1, 1}, {128, 1, 1}, 0}));
    BOOST_TEST(a.float_values.at("alpha") == 0.5);
    BOOST_TEST(w.cases[1].float_values.at("alpha") == -3.0);
    BOOST_TEST(w.cases[1].seed == 18446744073709551615ull);
    BOOST_TEST(w.buffer_count(*w.sig.find("y"), a) == 20);
    BOOST_TEST(w.buffer_count(*w.sig.find("idx"), w.cases[1]) == 500);
    BOOST_TEST(w.buffer_bytes(*w.sig.find("x"), w.cases[1]) == 2000);
    // Unlisted inputs take the dtype's default: uniform [-1,1] for floats, randint for integers.
    const auto& x_default = a.input_for(*w.sig.find("x"));
    BOOST_TEST((x_default.kind == input_kind::uniform && x_default.lo == -1.0 && x_default.hi == 1.0));
    const auto& idx_default = a.input_for(*w.sig.find("idx"));
    BOOST_TEST((idx_default.kind == input_kind::randint && idx_default.lo == 0.0 && idx_default.hi == 8.0));
    BOOST_TEST((w.cases[1].input_for(*w.sig.find("x")).kind == input_kind::normal));
    BOOST_TEST(w.restrictions.size() == 2u);
}

BOOST_AUTO_TEST_CASE(to_json_round_trips)
{
    for (const auto& w : {inline_w(),
                          workload::load(workload_data_dir() / "vector_add"),
                          workload::load(workload_data_dir() / "sgemm_rect")})
    {
        BOOST_TEST_CONTEXT(w.name)
        {
            const auto j = w.to_json();
            const auto text = boost::json::serialize(j);
            // Self-contained: sources inline, no file names left to resolve.
            BOOST_TEST(j.as_object().contains("reference_source"));
            BOOST_TEST(!j.as_object().contains("reference"));
            // Parsed in a different directory, it means the same thing.
            const auto back = workload::from_json(parse_json(text, "round trip"), "/elsewhere", "round trip");
            BOOST_TEST(boost::json::serialize(back.to_json()) == text);
            BOOST_TEST(back.reference.source == w.reference.source);
            BOOST_TEST(back.cases.size() == w.cases.size());
            for (std::size_t i = 0; i < w.cases.size(); ++i)
                BOOST_TEST(back.cases[i].seed == w.cases[i].seed);
        }
    }
}

BOOST_AUTO_TEST_CASE(to_json_makes_file_inputs_absolute)
{
    const auto w = workload::load(workload_data_dir() / "vector_add");
    const auto j = w.to_json();
    const auto& path = j.at("cases").at(1).at("inputs").at("a").at("path").as_string();
    BOOST_TEST(std::filesystem::path(std::string(path)).is_absolute());
    BOOST_TEST(std::string(path) == (workload_data_dir() / "vector_add" / "a4.bin").string());
}

BOOST_AUTO_TEST_CASE(tunable_as_file_name_or_object)
{
    const auto dir = workload_data_dir() / "doc_example";
    auto base = parse_json(R"j({
      "name": "t",
      "signature": {"entry": "sgemm", "params": [
        {"name": "M", "kind": "scalar", "type": "int32"},
        {"name": "C", "kind": "buffer", "type": "float32", "dir": "out", "count": "M"}]},
      "cases": [{"name": "c", "values": {"M": 64}}],
      "reference": "reference.cu",
      "launch": {"grid": [1], "block": ["M"]},
      "tunables": {"BM": [32, 64]}
    })j",
                           "t");
    auto as_string = base;
    as_string.as_object()["tunable"] = "tunable.cu";
    as_string.as_object()["tunable_entry"] = "sgemm_tuned";
    const auto w1 = workload::from_json(as_string, dir, "t.json", file_scope::workload_dir);
    BOOST_REQUIRE(w1.tunable.has_value());
    BOOST_TEST(w1.tunable->entry == "sgemm_tuned");
    BOOST_TEST(w1.tunable->path == dir / "tunable.cu");
    BOOST_TEST(w1.tunable->launch.block[0].text() == "M");  // the default launch

    auto as_object = base;
    as_object.as_object()["tunable"] = parse_json(
        R"j({"source": "tunable.cu", "entry": "sgemm_t",
               "launch": {"grid": ["ceil_div(M,BM)"], "block": ["BM"]}})j",
        "t");
    const auto w2 = workload::from_json(as_object, dir, "t.json", file_scope::workload_dir);
    BOOST_TEST(w2.tunable->entry == "sgemm_t");
    variables v = w2.cases[0].values;
    v["BM"] = 32;
    BOOST_TEST((w2.tunable->launch.evaluate(v) == launch_dims{{2, 1, 1}, {32, 1, 1}, 0}));
    BOOST_TEST(w2.tunable->source.find("BM / TM") == std::string::npos);
    BOOST_TEST(w2.tunable->source.find("BN / TN") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
