// The optional "baselines" and "roofline" of workload.json (docs/workload-format.md, "Baselines and
// roofline"): the documented example, the benchmark SGEMM's declaration, the self-contained round
// trip, and one error line per mistake.

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/workload/workload_test_util.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>

using namespace warpsmith;
using warpsmith::test::error_of;
using warpsmith::test::workload_data_dir;
namespace json = boost::json;

namespace
{

// The SPEC §2 GEMM (data/sgemm_rect) as a JSON object.
json::object sgemm_rect_json()
{
    return read_json_file(workload_data_dir() / "sgemm_rect" / "workload.json").as_object();
}

workload parse(const json::object& o)
{
    return workload::from_json(o, workload_data_dir() / "sgemm_rect", "w.json", file_scope::workload_dir);
}

// The JSON block of the "Baselines and roofline" section of the docs.
json::object doc_example()
{
    const auto doc = read_text_file(warpsmith::test::source_dir() / "docs" / "workload-format.md");
    const auto section = doc.find("## Baselines and roofline");
    BOOST_REQUIRE(section != std::string::npos);
    const auto start = doc.find("```json\n", section);
    BOOST_REQUIRE(start != std::string::npos);
    const auto end = doc.find("```", start + 8);
    return parse_json(doc.substr(start + 8, end - start - 8), "doc example").as_object();
}

const char* const cublas = R"j([{"name": "cublas", "kind": "cublas_sgemm", "m": "M", "n": "N", "k": "K",
                                  "a": "A", "b": "B", "c": "C"}])j";

// The error of the SGEMM workload with `edit` applied to its first baseline (declared as above).
std::string baseline_error(const std::function<void(json::object&)>& edit)
{
    auto w = sgemm_rect_json();
    w["baselines"] = json::parse(cublas);
    edit(w["baselines"].as_array()[0].as_object());
    return error_of<user_error>([&] { (void)parse(w); });
}

std::string roofline_error(const json::value& roofline)
{
    auto w = sgemm_rect_json();
    w["roofline"] = roofline;
    return error_of<user_error>([&] { (void)parse(w); });
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(workload_baselines_suite)

BOOST_AUTO_TEST_CASE(doc_example_declares_cublas_and_a_roofline)
{
    auto o = sgemm_rect_json();
    for (const auto& kv : doc_example())
        o[kv.key()] = kv.value();
    const workload w = parse(o);
    BOOST_TEST_REQUIRE(w.baselines.size() == 1u);
    const baseline_spec& b = w.baselines[0];
    BOOST_TEST(b.name == "cublas");
    BOOST_TEST(b.kind == "cublas_sgemm");
    BOOST_TEST((b.a == "A" && b.b == "B" && b.c == "C"));
    BOOST_TEST(w.find_baseline("cublas") == &b);
    BOOST_TEST(w.find_baseline("cublas_tf32") == nullptr);
    const gemm_shape g = w.baseline_shape(b, *w.find_case("4096x2048x1024"));
    BOOST_TEST(g.m == 4096);
    BOOST_TEST(g.n == 2048);
    BOOST_TEST(g.k == 1024);

    BOOST_TEST_REQUIRE(w.roofline.has_value());
    const auto& perf = w.find_case("4096x2048x1024")->values;
    BOOST_TEST(w.roofline->bytes.evaluate(perf) == 4 * (4096LL * 1024 + 1024LL * 2048 + 4096LL * 2048));
    BOOST_TEST(w.roofline->flops.evaluate(perf) == 2LL * 4096 * 2048 * 1024);
    BOOST_TEST(contains(w.roofline->note, "read once"));
}

BOOST_AUTO_TEST_CASE(benchmark_sgemm_declares_cublas)
{
    const workload w = workload::load(warpsmith::test::source_dir() / "bench" / "workloads" / "sgemm");
    const baseline_spec* b = w.find_baseline("cublas");
    BOOST_TEST_REQUIRE(b != nullptr);
    BOOST_TEST(b->kind == "cublas_sgemm");
    const gemm_shape g = w.baseline_shape(*b, *w.find_case("2048x8192x512"));
    BOOST_TEST((g.m == 2048 && g.n == 8192 && g.k == 512));
}

BOOST_AUTO_TEST_CASE(round_trip_keeps_baselines_and_roofline_and_omits_them_when_absent)
{
    auto o = sgemm_rect_json();
    o["baselines"] = json::parse(R"j([{"name": "cublas", "kind": "cublas_sgemm", "m": "M", "n": "N", "k": 19,
                                       "a": "A", "b": "B", "c": "C"}])j");
    // Only the correctness case has K = 19; the performance case's A holds more than 4096 x 19.
    o["roofline"] = json::parse(R"j({"flops": "2*M*N*K"})j");
    const workload w = parse(o);
    const json::value self = w.to_json();
    const workload back = workload::from_json(self, "/", "self-contained");
    BOOST_TEST(json::serialize(back.to_json()) == json::serialize(self));
    BOOST_TEST_REQUIRE(back.baselines.size() == 1u);
    BOOST_TEST(back.baselines[0].k.text() == "19");
    BOOST_TEST(back.roofline->bytes.evaluate({}) == 0);
    BOOST_TEST(self.at("roofline").at("bytes").as_string() == "0");

    const json::value plain = parse(sgemm_rect_json()).to_json();
    BOOST_TEST(!plain.as_object().contains("baselines"));
    BOOST_TEST(!plain.as_object().contains("roofline"));
}

BOOST_AUTO_TEST_CASE(baseline_mistakes_name_the_field)
{
    auto e = baseline_error([](json::object& b) { b["kind"] = "cudnn_conv"; });
    BOOST_TEST(e == "w.json: baselines[0].kind: unknown baseline kind 'cudnn_conv' (known: cublas_sgemm)", e);
    e = baseline_error([](json::object& b) { b["a"] = "M"; });
    BOOST_TEST(e == "w.json: baselines[0].a: 'M' is not a buffer parameter", e);
    e = baseline_error([](json::object& b) { b["c"] = "A"; });
    BOOST_TEST(contains(e, "baselines[0].c: 'A' is an in buffer; C must be an output"), e);
    e = baseline_error([](json::object& b) { b["b"] = "C"; });
    BOOST_TEST(contains(e, "baselines[0].b: 'C' is an out buffer; B must be an input"), e);
    e = baseline_error([](json::object& b) { b["m"] = "M + Z"; });
    BOOST_TEST(contains(e, "baselines[0].m: 'Z' is not a value of case 'odd-small'"), e);
    e = baseline_error([](json::object& b) { b["n"] = "N - 61"; });
    BOOST_TEST(contains(e, "baselines[0].n: case 'odd-small': evaluates to 0, must be from 1 to 2147483647"),
               e);
    e = baseline_error([](json::object& b) { b["k"] = "K + 1"; });
    BOOST_TEST(contains(e, "baselines[0].a: case 'odd-small': A holds 703 elements, fewer than 37 x 20"), e);
    e = baseline_error([](json::object& b) { b["m"] = "BM"; });
    BOOST_TEST(contains(e, "baselines[0].m: 'BM' is a tunable"), e);
    e = baseline_error([](json::object& b) { b.erase("c"); });
    BOOST_TEST(contains(e, "baselines[0]: 'c' is missing"), e);
    e = baseline_error([](json::object& b) { b["nmae"] = "x"; });
    BOOST_TEST(contains(e, "unknown key 'nmae'"), e);
    e = baseline_error([](json::object& b) { b["name"] = "cu blas"; });
    BOOST_TEST(contains(e, "'cu blas' is not a valid baseline name"), e);

    auto w = sgemm_rect_json();
    w["baselines"] = json::parse(cublas);
    w["baselines"].as_array().push_back(w["baselines"].as_array()[0]);
    e = error_of<user_error>([&] { (void)parse(w); });
    BOOST_TEST(e == "w.json: baselines[1].name: baseline 'cublas' is listed twice", e);
}

BOOST_AUTO_TEST_CASE(baseline_buffers_must_be_float32_and_c_the_only_output)
{
    // A workload with an int32 input and two outputs.
    auto w = json::parse(R"j({
      "name": "two_out",
      "signature": {"entry": "k", "params": [
        {"name": "n", "kind": "scalar", "type": "int32"},
        {"name": "x", "kind": "buffer", "type": "float32", "dir": "in", "count": "n*n"},
        {"name": "i", "kind": "buffer", "type": "int32", "dir": "in", "count": "n*n"},
        {"name": "y", "kind": "buffer", "type": "float32", "dir": "out", "count": "n*n"},
        {"name": "z", "kind": "buffer", "type": "float32", "dir": "out", "count": "n"}]},
      "cases": [{"name": "one", "values": {"n": 10}}],
      "reference": "reference.cu",
      "launch": {"grid": [1], "block": [128]}
    })j")
                 .as_object();
    w["baselines"] = json::parse(R"j([{"name": "v", "kind": "cublas_sgemm", "m": "n", "n": "n", "k": "n",
                                       "a": "x", "b": "i", "c": "y"}])j");
    auto e = error_of<user_error>(
        [&] {
            (void)workload::from_json(
                w, workload_data_dir() / "vector_add", "w.json", file_scope::workload_dir);
        });
    BOOST_TEST(e == "w.json: baselines[0].b: 'i' is int32; cublas_sgemm needs float32", e);
    w["baselines"].as_array()[0].as_object()["b"] = "x";
    e = error_of<user_error>(
        [&] {
            (void)workload::from_json(
                w, workload_data_dir() / "vector_add", "w.json", file_scope::workload_dir);
        });
    BOOST_TEST(e == "w.json: baselines[0].c: the workload has another output, 'z', which the baseline would "
                    "not write",
               e);
}

BOOST_AUTO_TEST_CASE(roofline_mistakes_name_the_field)
{
    auto e = roofline_error(json::object{});
    BOOST_TEST(e == "w.json: roofline: needs 'bytes' or 'flops' (or both)", e);
    e = roofline_error(json::parse(R"j({"bytes": "4*(M*K", "flops": 1})j"));
    BOOST_TEST(contains(e, "w.json: roofline.bytes: expression '4*(M*K'"), e);
    e = roofline_error(json::parse(R"j({"bytes": "M - 100"})j"));
    BOOST_TEST(e == "w.json: roofline.bytes: case 'odd-small': evaluates to -63, must be >= 0", e);
    e = roofline_error(json::parse(R"j({"flops": "2*M*N*BK"})j"));
    BOOST_TEST(contains(e, "roofline.flops: 'BK' is not a value of case 'odd-small'"), e);
    e = roofline_error(json::parse(R"j({"flops": "TM"})j"));
    BOOST_TEST(contains(e, "roofline.flops: 'TM' is a tunable"), e);
    e = roofline_error(json::parse(R"j({"flops": 1.5})j"));
    BOOST_TEST(contains(e, "roofline.flops: must be an integer or an expression string"), e);
    e = roofline_error(json::parse(R"j({"flops": 1, "byte": 2})j"));
    BOOST_TEST(contains(e, "unknown key 'byte'"), e);
    e = roofline_error(json::parse(R"j([1])j"));
    BOOST_TEST(contains(e, "w.json: roofline"), e);
}

BOOST_AUTO_TEST_SUITE_END()
