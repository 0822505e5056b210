// Invalid workloads: each problem gets one line naming the file and the field. The files under
// data/bad/ cover the classic mistakes end to end through workload::load; the table below mutates a
// valid workload one field at a time.

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/workload/workload_test_util.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <functional>

using namespace warpsmith;
using warpsmith::test::error_of;
using warpsmith::test::workload_data_dir;

namespace
{

std::string load_error(const std::string& file)
{
    return error_of<user_error>([&] { (void)workload::load(workload_data_dir() / "bad" / file); });
}

std::string bad(const std::string& file)
{
    return (workload_data_dir() / "bad" / file).string();
}

const char* const valid = R"j({
  "name": "v",
  "signature": {"entry": "k", "params": [
    {"name": "n", "kind": "scalar", "type": "int32"},
    {"name": "alpha", "kind": "scalar", "type": "float32"},
    {"name": "x", "kind": "buffer", "type": "float32", "dir": "in", "count": "n"},
    {"name": "io", "kind": "buffer", "type": "int8", "dir": "inout", "count": "n"},
    {"name": "y", "kind": "buffer", "type": "float32", "dir": "out", "count": "n"}]},
  "cases": [
    {"name": "one", "values": {"n": 10}, "float_values": {"alpha": 1}},
    {"name": "two", "values": {"n": 20}, "float_values": {"alpha": 2}}],
  "reference": "reference.cu",
  "launch": {"grid": ["ceil_div(n, 128)"], "block": [128]},
  "tunables": {"B": [1, 2]}
})j";

// Applies edit to the valid workload and returns the error of parsing it as "w.json" in the
// vector_add directory (which holds reference.cu, initial.cu and a4.bin).
std::string error_after(const std::function<void(boost::json::object&)>& edit)
{
    auto v = parse_json(valid, "valid");
    edit(v.as_object());
    return error_of<user_error>(
        [&] {
            (void)workload::from_json(
                v, workload_data_dir() / "vector_add", "w.json", file_scope::workload_dir);
        });
}

boost::json::value j(std::string_view text)
{
    return parse_json(text, "edit");
}

boost::json::object& param_at(boost::json::object& w, std::size_t i)
{
    return w["signature"].as_object()["params"].as_array()[i].as_object();
}

boost::json::object& case_at(boost::json::object& w, std::size_t i)
{
    return w["cases"].as_array()[i].as_object();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(workload_errors_suite)

BOOST_AUTO_TEST_CASE(the_valid_base_is_valid)
{
    BOOST_TEST(error_after([](boost::json::object&) {}) == "<no exception thrown>");
}

BOOST_AUTO_TEST_CASE(bad_files)
{
    BOOST_TEST(load_error("malformed.json").rfind(bad("malformed.json") + ":28:21: invalid JSON: ", 0) == 0u,
               load_error("malformed.json"));
    BOOST_TEST(load_error("unknown_dtype.json") ==
               bad("unknown_dtype.json") +
                   ": signature.params[1].type: unknown type 'float33' (expected one of "
                   "float16, bfloat16, float32, float64, int8, uint8, int16, int32, uint32, "
                   "int64, uint64)");
    BOOST_TEST(load_error("bad_count.json") ==
               bad("bad_count.json") +
                   ": signature.params[1].count: expression 'n*/2': unexpected '/' at column 3");
    BOOST_TEST(load_error("division_by_zero.json") ==
               bad("division_by_zero.json") +
                   ": cases[1]: x.count: expression 'n/z': division by zero at column 2");
    BOOST_TEST(load_error("missing_file.json") ==
               bad("missing_file.json") + ": reference: file '" + bad("nope.cu") + "' does not exist");
    BOOST_TEST(load_error("unknown_key.json") ==
               bad("unknown_key.json") + ": unknown key 'tolerence' (did you mean 'tolerance'?)");
    BOOST_TEST(load_error("missing_scalar.json") ==
               bad("missing_scalar.json") + ": cases[1].values: 'n' is missing (scalar parameter n)");
    BOOST_TEST(load_error("missing_count_value.json") ==
               bad("missing_count_value.json") + ": cases[2].values: 'K' is missing (needed by A.count)");
    BOOST_TEST(load_error("no_such_workload") ==
               bad("no_such_workload") +
                   ": no such workload (expected a directory holding workload.json or a .json file)");
    BOOST_TEST(error_of<user_error>([] { (void)workload::load(workload_data_dir()); }) ==
               workload_data_dir().string() + ": not a workload directory (it has no workload.json)");
}

// A workload someone hands over names its files inside its own directory: a reference, kernel or
// input file outside it (absolute, "..", a symbolic link) would be read, copied into the run
// directory and shown to the model. The self-contained form (from_json) keeps absolute paths.
BOOST_AUTO_TEST_CASE(file_names_stay_inside_the_workload_directory)
{
    test::temp_dir tmp;
    const auto dir = tmp.path() / "w";
    std::filesystem::create_directories(dir / "kernels");
    auto write = [](const std::filesystem::path& p, const std::string& text)
    { std::ofstream(p, std::ios::binary) << text; };
    const std::string kernel = "extern \"C\" __global__ void k(int n, const float* x, float* y) {}\n";
    write(tmp.path() / "secret.cu", kernel);
    write(tmp.path() / "secret.bin", std::string(40, 'S'));
    write(dir / "kernels" / "ref.cu", kernel);
    write(dir / "x.bin", std::string(40, '\0'));
    std::filesystem::create_symlink(tmp.path() / "secret.cu", dir / "link.cu");
    std::filesystem::create_symlink(tmp.path() / "secret.bin", dir / "link.bin");
    std::filesystem::create_directory_symlink(tmp.path(), dir / "up");

    auto load_with = [&](const std::string& reference, const std::string& input)
    {
        write(dir / "workload.json",
              R"j({"name": "w", "signature": {"entry": "k", "params": [
                     {"name": "n", "kind": "scalar", "type": "int32"},
                     {"name": "x", "kind": "buffer", "type": "float32", "dir": "in", "count": "n"},
                     {"name": "y", "kind": "buffer", "type": "float32", "dir": "out", "count": "n"}]},
                   "cases": [{"name": "a", "values": {"n": 10},
                              "inputs": {"x": {"gen": "file", "path": ")j" +
                  input + R"j("}}}],
                   "reference": ")j" +
                  reference + R"j(", "launch": {"grid": [1], "block": [32]}})j");
        return error_of<user_error>([&] { (void)workload::load(dir); });
    };
    const std::string file = (dir / "workload.json").string();
    const std::string rule =
        ": a workload names its files by relative paths inside its own directory (docs/workload-format.md)";

    BOOST_TEST(load_with("kernels/ref.cu", "x.bin") == "<no exception thrown>");
    BOOST_TEST(load_with("./kernels/../kernels/ref.cu", "x.bin") == "<no exception thrown>");
    const std::string abs = (tmp.path() / "secret.cu").string();
    BOOST_TEST(load_with(abs, "x.bin") == file + ": reference: '" + abs + "' is absolute" + rule);
    BOOST_TEST(load_with("../secret.cu", "x.bin") ==
               file + ": reference: '../secret.cu' leaves the directory" + rule);
    BOOST_TEST(load_with("kernels/../../secret.cu", "x.bin") ==
               file + ": reference: 'kernels/../../secret.cu' leaves the directory" + rule);
    BOOST_TEST(load_with("link.cu", "x.bin") ==
               file + ": reference: 'link.cu' leads out of the directory through a symbolic link" + rule);
    BOOST_TEST(load_with("up/secret.cu", "x.bin") ==
               file + ": reference: 'up/secret.cu' leads out of the directory through a symbolic link" +
                   rule);
    BOOST_TEST(load_with("kernels/ref.cu", "../secret.bin") ==
               file + ": cases[0].inputs.x.path: '../secret.bin' leaves the directory" + rule);
    BOOST_TEST(load_with("kernels/ref.cu", "link.bin") ==
               file +
                   ": cases[0].inputs.x.path: 'link.bin' leads out of the directory through a symbolic link" +
                   rule);
    BOOST_TEST(load_with("kernels/ref.cu", (tmp.path() / "secret.bin").string()) ==
               file + ": cases[0].inputs.x.path: '" + (tmp.path() / "secret.bin").string() + "' is absolute" +
                   rule);
    BOOST_TEST(load_with("ref\\u0000.cu", "x.bin") ==
               file + ": reference: a file name holds a control character" + rule);

    // The self-contained form the engine writes (workers, run directories, replay requests) names
    // input files by absolute paths, each with its sha256, and carries its kernels inline: from_json
    // takes it, and so does load with file_scope::self_contained (a run's workload/workload.json).
    BOOST_REQUIRE(load_with("kernels/ref.cu", "x.bin") == "<no exception thrown>");
    const auto self_contained = workload::load(dir).to_json();
    const auto& x_input = self_contained.at("cases").at(0).at("inputs").at("x");
    BOOST_TEST(x_input.at("path").as_string() == (dir / "x.bin").string());
    BOOST_TEST(x_input.at("sha256").as_string() == sha256_hex(std::string(40, '\0')));
    BOOST_TEST(error_of<user_error>([&] { (void)workload::from_json(self_contained, "/", "self"); }) ==
               "<no exception thrown>");
    write_json_file(tmp.path() / "run-workload.json", self_contained);
    BOOST_TEST(error_of<user_error>(
                   [&] {
                       (void)workload::load(tmp.path() / "run-workload.json", file_scope::self_contained);
                   }) == "<no exception thrown>");

    // People hand over self-contained files too (a replay request, a run directory; two marker
    // files make any folder look like a run). Such a file must not read what its author cannot:
    // no kernel by file name, no input file without the digest of bytes its author knows.
    auto self_with = [&](const std::function<void(boost::json::object&)>& edit)
    {
        auto v = self_contained;
        edit(v.as_object());
        return error_of<user_error>([&] { (void)workload::from_json(v, "/", "self"); });
    };
    const std::string inline_rule =
        "a self-contained workload (a run's workload/workload.json, a replay request) carries its kernels "
        "inline ('reference_source', 'initial_source', 'tunable_source'); a kernel file name is read only "
        "from a workload directory (docs/workload-format.md)";
    BOOST_TEST(self_with(
                   [&](auto& w)
                   {
                       w.erase("reference_source");
                       w["reference"] = (tmp.path() / "secret.cu").string();
                   }) == "self: reference: " + inline_rule);
    BOOST_TEST(self_with(
                   [&](auto& w)
                   {
                       w.erase("reference_source");
                       w["reference"] = "kernels/ref.cu";
                   }) == "self: reference: " + inline_rule);
    BOOST_TEST(self_with(
                   [&](auto& w) {
                       w["tunable"] = boost::json::object{{"source", (tmp.path() / "secret.cu").string()}};
                   }) == "self: tunable.source: " + inline_rule);
    auto x_of = [](boost::json::object& w) -> boost::json::object&
    { return w["cases"].as_array()[0].as_object()["inputs"].as_object()["x"].as_object(); };
    const std::string secret_bin = (tmp.path() / "secret.bin").string();
    BOOST_TEST(self_with(
                   [&](auto& w)
                   {
                       x_of(w)["path"] = secret_bin;
                       x_of(w).erase("sha256");
                   }) ==
               "self: cases[0].inputs.x: a self-contained workload (a run's workload/workload.json, a "
               "replay request) names an input file only with the sha256 of its bytes, as warpsmith "
               "writes it (docs/workload-format.md)");
    // A digest its author made up: refused before its size is told (secret.bin holds 40 bytes, as
    // x needs, so the size check could not have caught it either).
    BOOST_TEST(self_with([&](auto& w) { x_of(w)["path"] = secret_bin; }) ==
               "self: cases[0].inputs.x.sha256: file '" + secret_bin +
                   "' does not hold the bytes this workload recorded for it (its sha256 differs)");
    write(tmp.path() / "short.bin", "abc");
    BOOST_TEST(self_with([&](auto& w) { x_of(w)["path"] = (tmp.path() / "short.bin").string(); })
                   .find("holds 3 bytes") == std::string::npos);
    // The digest of the right bytes opens the file wherever it is (the run moved, say).
    BOOST_TEST(self_with(
                   [&](auto& w)
                   {
                       x_of(w)["path"] = secret_bin;
                       x_of(w)["sha256"] = sha256_hex(std::string(40, 'S'));
                   }) == "<no exception thrown>");
    // A workload directory may record the digest too; it is checked there as well.
    BOOST_TEST(load_with("kernels/ref.cu", "x.bin\", \"sha256\": \"" + std::string(64, '0')) ==
               file + ": cases[0].inputs.x.sha256: file '" + (dir / "x.bin").string() +
                   "' does not hold the bytes this workload recorded for it (its sha256 differs)");
}

BOOST_AUTO_TEST_CASE(top_level_fields)
{
    BOOST_TEST(error_after([](auto& w) { w.erase("name"); }) == "w.json: 'name' is missing");
    BOOST_TEST(error_after([](auto& w) { w["name"] = ""; }) == "w.json: name: must not be empty");
    BOOST_TEST(error_after([](auto& w) { w["name"] = 5; }) == "w.json: name: must be a string, got 5");
    BOOST_TEST(error_after([](auto& w) { w["seed"] = -1; }) ==
               "w.json: seed: must be a non-negative integer, got -1");
    BOOST_TEST(error_after([](auto& w) { w["descripton"] = "x"; }) ==
               "w.json: unknown key 'descripton' (did you mean 'description'?)");
    BOOST_TEST(
        error_after([](auto& w) { w["zzz"] = 1; }).rfind("w.json: unknown key 'zzz' (expected name, ", 0) ==
        0u);
    BOOST_TEST(error_after([](auto& w) { w.erase("signature"); }) == "w.json: 'signature' is missing");
    BOOST_TEST(error_after([](auto& w) { w.erase("launch"); }) == "w.json: 'launch' is missing");
    BOOST_TEST(error_after([](auto& w) { w["tolerance"] = j(R"j({"rtol": -1})j"); }) ==
               "w.json: tolerance.rtol: must be >= 0, got -1");
    BOOST_TEST(error_after([](auto& w) { w["tolerance"] = j(R"j({"atol": "1e-3"})j"); }) ==
               "w.json: tolerance.atol: must be a number, got \"1e-3\"");
    BOOST_TEST(error_after([](auto& w) { w["tolerance"] = j(R"j({"rtl": 0})j"); }) ==
               "w.json: tolerance: unknown key 'rtl' (did you mean 'rtol'?)");
}

BOOST_AUTO_TEST_CASE(signature_and_params)
{
    BOOST_TEST(error_after([](auto& w) { w["signature"].as_object()["entry"] = "2k"; }) ==
               "w.json: signature.entry: '2k' is not a valid entry point name (a C identifier)");
    BOOST_TEST(error_after([](auto& w) { w["signature"].as_object()["params"] = boost::json::array{}; }) ==
               "w.json: signature.params: must list at least one parameter");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["name"] = "n"; }) ==
               "w.json: signature.params[2].name: parameter 'n' is listed twice");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["name"] = "x-y"; }) ==
               "w.json: signature.params[2].name: 'x-y' is not a valid parameter name (a C identifier)");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["name"] = "float"; }) ==
               "w.json: signature.params[2].name: 'float' is a C++ keyword and cannot be a parameter name");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["kind"] = "array"; }) ==
               "w.json: signature.params[2].kind: unknown kind 'array' (expected scalar or buffer)");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["dir"] = "output"; }) ==
               "w.json: signature.params[2].dir: unknown dir 'output' (expected in, out or inout)");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2).erase("count"); }) ==
               "w.json: signature.params[2]: 'count' is missing");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 0)["dir"] = "in"; }) ==
               "w.json: signature.params[0].dir: applies to buffers only; 'n' is a scalar");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["cnt"] = "n"; }) ==
               "w.json: signature.params[2]: unknown key 'cnt' (did you mean 'count'?)");
    BOOST_TEST(error_after(
                   [](auto& w)
                   {
                       param_at(w, 3)["dir"] = "in";
                       param_at(w, 4)["dir"] = "in";
                   }) == "w.json: signature.params: no out or inout buffer, so there is nothing to validate");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["count"] = "alpha*2"; }) ==
               "w.json: signature.params[2].count: 'alpha' is a float scalar parameter; counts use integer "
               "values only");
    BOOST_TEST(
        error_after([](auto& w) { param_at(w, 2)["count"] = "y"; }) ==
        "w.json: signature.params[2].count: 'y' is a buffer parameter; counts use integer values only");
}

BOOST_AUTO_TEST_CASE(cases_and_values)
{
    BOOST_TEST(error_after([](auto& w) { w["cases"] = boost::json::array{}; }) ==
               "w.json: cases: must list at least one case");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["name"] = "one"; }) ==
               "w.json: cases[1].name: case 'one' is listed twice");
    BOOST_TEST(
        error_after([](auto& w) { case_at(w, 1)["name"] = "a/b"; }) ==
        "w.json: cases[1].name: 'a/b' is not a valid case name (letters, digits, '_', '-' and '.', not "
        "starting with '.', at most 100 characters)");
    // A case name becomes requests/<case>.json: 300 characters passed the load and failed the
    // evaluation's last step (File name too long).
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["name"] = std::string(100, 'x'); }) ==
               "<no exception thrown>");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["name"] = std::string(101, 'x'); }) ==
               "w.json: cases[1].name: '" + std::string(101, 'x') +
                   "' is not a valid case name (letters, digits, '_', '-' and '.', not starting with '.', at "
                   "most 100 characters)");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["role"] = "perf"; }) ==
               "w.json: cases[1].role: unknown role 'perf' (expected correctness or performance)");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["value"] = j("{}"); }) ==
               "w.json: cases[0]: unknown key 'value' (did you mean 'values'?)");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["values"].as_object()["n"] = 1.5; }) ==
               "w.json: cases[0].values.n: must be an integer, got 1.5");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["values"].as_object()["n"] = 0; }) ==
               "w.json: cases[0]: x.count 'n' evaluates to 0, must be positive");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["values"].as_object()["n"] = 3000000000ll; }) ==
               "w.json: cases[0].values.n: 3000000000 does not fit int32");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["values"].as_object()["x"] = 3; }) ==
               "w.json: cases[0].values: 'x' is a buffer parameter, not a value");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["values"].as_object()["alpha"] = 3; }) ==
               "w.json: cases[0].values: 'alpha' is a float32 scalar; give it in float_values");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["values"].as_object()["B"] = 3; }) ==
               "w.json: cases[0].values: 'B' is also a tunable; a name is either a case value or a tunable");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 0)["values"].as_object()["1x"] = 3; }) ==
               "w.json: cases[0].values.1x: '1x' is not a valid value name (a C identifier)");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1).erase("float_values"); }) ==
               "w.json: cases[1].float_values: 'alpha' is missing (scalar parameter alpha)");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["float_values"].as_object()["n"] = 2; }) ==
               "w.json: cases[1].float_values: 'n' is a int32 scalar; give it in values");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["float_values"].as_object()["beta"] = 2; }) ==
               "w.json: cases[1].float_values: 'beta' is not a scalar parameter");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["float_values"].as_object()["alpha"] = "2"; }) ==
               "w.json: cases[1].float_values.alpha: must be a number, got \"2\"");
    BOOST_TEST(error_after([](auto& w) { case_at(w, 1)["seed"] = "7"; }) ==
               "w.json: cases[1].seed: must be a non-negative integer, got \"7\"");
    BOOST_TEST(error_after([](auto& w) { param_at(w, 2)["count"] = "n*300000000000000000"; }) ==
               "w.json: cases[0]: x.count 3000000000000000000 is too large to address");
    BOOST_TEST(
        error_after([](auto& w) { param_at(w, 2)["count"] = "n*1000000000000000000"; }) ==
        "w.json: cases[0]: x.count: expression 'n*1000000000000000000': int64 overflow in '*' at column 2");
}

BOOST_AUTO_TEST_CASE(inputs)
{
    auto input = [](const char* name, const char* spec)
    {
        return [=](boost::json::object& w)
        { case_at(w, 0)["inputs"] = j(std::string("{\"") + name + "\": " + spec + "}"); };
    };
    BOOST_TEST(error_after(input("y", R"j({"gen": "const", "value": 1})j")) ==
               "w.json: cases[0].inputs: 'y' is an out buffer; only in and inout buffers take inputs");
    BOOST_TEST(error_after(input("n", R"j({"gen": "const", "value": 1})j")) ==
               "w.json: cases[0].inputs: 'n' is not a buffer parameter");
    BOOST_TEST(error_after(input("q", R"j({"gen": "const", "value": 1})j")) ==
               "w.json: cases[0].inputs: 'q' is not a buffer parameter");
    BOOST_TEST(error_after(input("x", R"j({"lo": 1})j")) ==
               "w.json: cases[0].inputs.x: 'gen' is missing (expected uniform, normal, randint, iota, const "
               "or file)");
    BOOST_TEST(
        error_after(input("x", R"j({"gen": "gauss"})j")) ==
        "w.json: cases[0].inputs.x.gen: unknown generator 'gauss' (expected uniform, normal, randint, iota, "
        "const or file)");
    BOOST_TEST(error_after(input("x", R"j({"gen": "uniform", "mean": 0})j")) ==
               "w.json: cases[0].inputs.x: unknown key 'mean' (expected gen, lo, hi)");
    BOOST_TEST(error_after(input("x", R"j({"gen": "uniform", "lo": 2, "hi": 1})j")) ==
               "w.json: cases[0].inputs.x: lo 2 is greater than hi 1");
    BOOST_TEST(error_after(input("x", R"j({"gen": "normal", "stddev": -1})j")) ==
               "w.json: cases[0].inputs.x.stddev: must be >= 0, got -1");
    BOOST_TEST(error_after(input("x", R"j({"gen": "randint", "lo": 0.5})j")) ==
               "w.json: cases[0].inputs.x.lo: must be an integer of magnitude at most 2^53, got 0.5");
    BOOST_TEST(error_after(input("io", R"j({"gen": "randint", "lo": 0, "hi": 300})j")) ==
               "w.json: cases[0].inputs.io: range [0, 300] does not fit int8");
    BOOST_TEST(error_after(input("io", R"j({"gen": "uniform", "lo": -200, "hi": 1})j")) ==
               "w.json: cases[0].inputs.io: range [-200, 1] does not fit int8");
    BOOST_TEST(error_after(input("io", R"j({"gen": "const", "value": 128})j")) ==
               "w.json: cases[0].inputs.io.value: 128 does not fit int8");
    BOOST_TEST(error_after(input("x", R"j({"gen": "const"})j")) ==
               "w.json: cases[0].inputs.x: 'value' is missing");
    BOOST_TEST(error_after(input("x", R"j({"gen": "iota", "stepp": 2})j")) ==
               "w.json: cases[0].inputs.x: unknown key 'stepp' (did you mean 'step'?)");
    BOOST_TEST(error_after(input("x", R"j({"gen": "file"})j")) ==
               "w.json: cases[0].inputs.x: 'path' is missing");
    BOOST_TEST(error_after(input("x", R"j({"gen": "file", "path": "missing.bin"})j")) ==
               "w.json: cases[0].inputs.x.path: file '" +
                   (workload_data_dir() / "vector_add" / "missing.bin").string() +
                   "' does not exist or is not a regular file");
    // a4.bin holds 4 floats; case "one" needs 10.
    BOOST_TEST(error_after(input("x", R"j({"gen": "file", "path": "a4.bin"})j")) ==
               "w.json: cases[0].inputs.x: file '" +
                   (workload_data_dir() / "vector_add" / "a4.bin").string() +
                   "' holds 16 bytes, expected 40 (10 float32 elements)");
}

BOOST_AUTO_TEST_CASE(kernels)
{
    BOOST_TEST(error_after([](auto& w) { w.erase("reference"); }) ==
               "w.json: 'reference' is missing (a file name, or 'reference_source' with the code inline)");
    BOOST_TEST(error_after([](auto& w) { w["reference_source"] = "x"; }) ==
               "w.json: reference_source: give either 'reference' or 'reference_source', not both");
    BOOST_TEST(error_after([](auto& w) { w["reference"] = 3; }) ==
               "w.json: reference: must be a file name, got 3");
    BOOST_TEST(error_after([](auto& w) { w["initial"] = "nope.cu"; }) ==
               "w.json: initial: file '" + (workload_data_dir() / "vector_add" / "nope.cu").string() +
                   "' does not exist");
    BOOST_TEST(error_after([](auto& w) { w["initial_entry"] = "k2"; }) ==
               "w.json: initial_entry: there is no 'initial' kernel to apply it to");
    BOOST_TEST(error_after([](auto& w) { w["reference_entry"] = "bad name"; }) ==
               "w.json: reference_entry: 'bad name' is not a valid entry point name (a C identifier)");
    BOOST_TEST(error_after([](auto& w) { w["tunable"] = j(R"j({"source": "initial.cu", "lanch": {}})j"); }) ==
               "w.json: tunable: unknown key 'lanch' (did you mean 'launch'?)");
    BOOST_TEST(error_after(
                   [](auto& w)
                   {
                       w["tunable"] =
                           j(R"j({"source": "initial.cu", "launch": {"grid": [1], "block": [1]}})j");
                       w["tunable_launch"] = j(R"j({"grid": [1], "block": [1]})j");
                   }) == "w.json: tunable_launch: the launch plan is already given in 'tunable.launch'");
    BOOST_TEST(error_after([](auto& w)
                           { w["tunable"] = j(R"j({"source": "initial.cu", "launch": {"grid": [1]}})j"); }) ==
               "w.json: tunable.launch: 'block' is missing");
}

BOOST_AUTO_TEST_CASE(launch_plans_and_tunables)
{
    BOOST_TEST(
        error_after([](auto& w) { w["launch"] = j(R"j({"grid": ["ceil_div(n, B)"], "block": [128]})j"); }) ==
        "w.json: launch.grid[0]: 'B' is a tunable, but the reference kernel is launched with case values "
        "only (give 'reference_launch')");
    BOOST_TEST(error_after(
                   [](auto& w)
                   {
                       w["launch"] = j(R"j({"grid": ["ceil_div(n, B)"], "block": [128]})j");
                       w["reference_launch"] = j(R"j({"grid": ["n"], "block": [1]})j");
                   }) == "<no exception thrown>");
    BOOST_TEST(
        error_after([](auto& w) { w["launch"] = j(R"j({"grid": ["ceil_div(m, 4)"], "block": [128]})j"); }) ==
        "w.json: cases[0].values: 'm' is missing (needed by launch.grid[0])");
    BOOST_TEST(error_after([](auto& w) { w["launch"] = j(R"j({"grid": ["n - 20"], "block": [128]})j"); }) ==
               "w.json: launch: case 'one': launch.grid[0]: 'n - 20' evaluates to -10, must be positive");
    BOOST_TEST(
        error_after([](auto& w)
                    { w["reference_launch"] = j(R"j({"grid": [1], "block": ["n/(n-10)"]})j"); }) ==
        "w.json: reference_launch: case 'one': launch.block[0]: expression 'n/(n-10)': division by zero at "
        "column 2");
    BOOST_TEST(error_after([](auto& w) { w["tunables"] = j(R"j({"n": [1]})j"); }) ==
               "w.json: tunables.n: clashes with the parameter 'n' (tunables become -D defines)");
    BOOST_TEST(error_after([](auto& w) { w["tunables"] = j(R"j({"B": []})j"); }) ==
               "w.json: tunables.B: must list at least one value");
    BOOST_TEST(error_after([](auto& w) { w["tunables"] = j(R"j({"B": [1, 2, 1]})j"); }) ==
               "w.json: tunables.B: value 1 is listed twice");
    BOOST_TEST(error_after([](auto& w) { w["tunables"] = j(R"j({"B": [1, "2"]})j"); }) ==
               "w.json: tunables.B[1]: must be an integer, got \"2\"");
    BOOST_TEST(error_after([](auto& w) { w["restrictions"] = j(R"j(["B <= Q"])j"); }) ==
               "w.json: restrictions[0]: 'Q' is neither a tunable nor a value of every case");
    BOOST_TEST(error_after([](auto& w) { w["restrictions"] = j(R"j(["B <= n", "B <"])j"); }) ==
               "w.json: restrictions[1]: expression 'B <': unexpected end of expression at column 4");
    BOOST_TEST(error_after([](auto& w) { w["restrictions"] = j(R"j([3])j"); }) ==
               "w.json: restrictions[0]: must be an expression string, got 3");
}

BOOST_AUTO_TEST_CASE(buffer_count_errors_name_case_and_param)
{
    auto v = parse_json(valid, "valid");
    const auto w =
        workload::from_json(v, workload_data_dir() / "vector_add", "w.json", file_scope::workload_dir);
    workload_case c = w.cases[0];
    c.values["n"] = -3;
    BOOST_TEST(error_of<user_error>([&] { (void)w.buffer_count(*w.sig.find("x"), c); }) ==
               "workload 'v', case 'one': x.count 'n' evaluates to -3, must be positive");
    c.values.erase("n");
    BOOST_TEST(error_of<user_error>([&] { (void)w.buffer_bytes(*w.sig.find("x"), c); }) ==
               "workload 'v', case 'one': x.count: expression 'n': unknown identifier 'n' at column 1");
}

BOOST_AUTO_TEST_SUITE_END()
