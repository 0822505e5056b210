// Input generation against golden values computed independently by golden_inputs.py (in this
// folder) from the formulas in input_generator.hpp. A change to the generator changes every
// workload's inputs, so it must break these tests.

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/input_generator.hpp"
#include "tests/harness/workload/workload_test_util.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <fstream>

using namespace warpsmith;
using warpsmith::test::error_of;
using warpsmith::test::to_hex;
using warpsmith::test::workload_data_dir;

namespace
{

// The buffer seed every golden row uses: case "small" of a workload with seed 7, buffer "A".
std::uint64_t golden_seed()
{
    return buffer_seed(derived_case_seed(7, "small"), "A");
}

input_spec spec_of(std::string_view kind, std::initializer_list<double> p)
{
    const std::vector<double> v(p);
    input_spec s;
    if (kind == "uniform")
    {
        s.kind = input_kind::uniform;
        s.lo = v[0];
        s.hi = v[1];
    }
    else if (kind == "normal")
    {
        s.kind = input_kind::normal;
        s.mean = v[0];
        s.stddev = v[1];
    }
    else if (kind == "randint")
    {
        s.kind = input_kind::randint;
        s.lo = v[0];
        s.hi = v[1];
    }
    else if (kind == "iota")
    {
        s.kind = input_kind::iota;
        s.start = v[0];
        s.step = v[1];
    }
    else
    {
        s.kind = input_kind::constant;
        s.value = v[0];
    }
    return s;
}

struct golden_row
{
    const char* kind;
    std::initializer_list<double> params;
    const char* type;
    const char* hex;  ///< elements 0..5, little-endian
};

// Output of golden_inputs.py, pasted verbatim.
const golden_row golden_rows[] = {
    {"uniform", {-1.0, 1.0}, "float32", "0283bd3ec61df2be134de3be147c1f3f36cb41be3abaf1be"},
    {"uniform",
     {-1.0, 1.0},
     "float64",
     "f8b56e4460b0d73f103ba5cbb843debf5c1e4d51a269dcbf32d9997282efe33fc052dab56639c8bf04c155364737debf"},
    {"uniform", {-1.0, 1.0}, "float16", "ec3591b71ab7fc380eb28eb7"},
    {"uniform", {-1.0, 1.0}, "bfloat16", "be3ef2bee3be1f3f42bef2be"},
    {"uniform", {-3.0, 5.0}, "int32", "00000000fffffffffdffffff0100000004000000fdffffff"},
    {"uniform", {0.0, 1000.0}, "float32", "7c442b4476c783435e038b4396df4a44e3afca4312f88343"},
    {"normal", {0.0, 1.0}, "float32", "608f97bd6f5a1a3fe0b6f0bdf5f2e6be425541c03bc6a03d"},
    {"normal",
     {0.0, 1.0},
     "float64",
     "a4e1090cecf1b2bf68caa4ef4d4be33f49711503dc16bebf682fe2ad5ededcbf98c63d31a82a08c07afdea66c718b43f"},
    {"normal", {0.0, 1.0}, "bfloat16", "98bd1a3ff1bde7be41c0a13d"},
    {"normal", {10.0, 3.0}, "int16", "0a000c000a00090001000a00"},
    {"randint", {-8, 8}, "int32", "fcfffffffafffffffefffffff8fffffffdffffffffffffff"},
    {"randint", {-8, 8}, "int8", "fcfafef8fdff"},
    {"randint", {0, 8}, "uint8", "030200040700"},
    {"randint", {-5, 5}, "float32", "000080c0000080c0000040c000000000000040c00000a0c0"},
    {"randint",
     {0, 1000000},
     "int64",
     "fa1f0e00000000007df505000000000018e80c000000000000430c0000000000ec260b00000000007d2f030000000000"},
    {"randint",
     {0, 9007199254740992},
     "uint64",
     "9bef6bdd88c000000ee489b5688e18006549c3655dbb0c00a9c66467ca091e00e63cad254a99060024f67d5493711100"},
    {"iota", {0.0, 1.0}, "float16", "0000003c0040004200440045"},
    {"iota", {0.5, 0.25}, "float32", "0000003f0000403f0000803f0000a03f0000c03f0000e03f"},
    {"iota", {-3.0, 2.0}, "int32", "fdffffffffffffff01000000030000000500000007000000"},
    {"iota", {2048.0, 1.0}, "float16", "006800680168026802680268"},
    {"const", {0.1}, "float16", "662e662e662e662e662e662e"},
    {"const", {0.1}, "bfloat16", "cd3dcd3dcd3dcd3dcd3dcd3d"},
    {"const", {-7.0}, "int8", "f9f9f9f9f9f9"},
    {"const", {0.1}, "float32", "cdcccc3dcdcccc3dcdcccc3dcdcccc3dcdcccc3dcdcccc3d"},
};

std::string element_hex(const std::string& bytes, dtype t, std::int64_t i)
{
    const std::size_t n = size_of(t);
    return to_hex(std::string_view(bytes).substr(static_cast<std::size_t>(i) * n, n));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(input_generator_suite)

BOOST_AUTO_TEST_CASE(hashing_and_seeds)
{
    BOOST_TEST(fnv1a64("") == 0xCBF29CE484222325ull);
    BOOST_TEST(fnv1a64("a") == 0xAF63DC4C8601EC8Cull);  // the published FNV-1a test vector
    BOOST_TEST(fnv1a64("A") == 0xAF63FC4C860222ECull);
    // SplitMix64 seeded with 0 first returns 0xE220A8397B1DCDAF (the reference implementation).
    BOOST_TEST(splitmix64_mix(0x9E3779B97F4A7C15ull) == 0xE220A8397B1DCDAFull);
    BOOST_TEST(stream_draw(0, 0) == 0xE220A8397B1DCDAFull);
    BOOST_TEST(derived_case_seed(7, "small") == 0x035E10039B31E587ull);
    BOOST_TEST(golden_seed() == 0xDD5DCAF37ABB884Dull);
    BOOST_TEST(stream_draw(golden_seed(), 0) == 0xAF60C088DD6BF516ull);
    BOOST_TEST(stream_draw(golden_seed(), 1) == 0x43788E68B589E629ull);
    BOOST_TEST(stream_draw(golden_seed(), 2) == 0x472CBB5D65C34B9Eull);
    BOOST_TEST(buffer_seed(1, "A") != buffer_seed(1, "B"));
    BOOST_TEST(buffer_seed(1, "A") != buffer_seed(2, "A"));
}

BOOST_AUTO_TEST_CASE(golden_values_for_every_kind)
{
    for (const auto& row : golden_rows)
    {
        BOOST_TEST_CONTEXT(row.kind << " " << row.type)
        {
            const dtype t = *parse_dtype(row.type);
            const auto bytes = generate_input(t, spec_of(row.kind, row.params), golden_seed(), 6, "A");
            BOOST_TEST(to_hex(bytes) == row.hex);
        }
    }
}

BOOST_AUTO_TEST_CASE(the_documentation_lists_the_same_golden_values)
{
    const auto doc = read_text_file(warpsmith::test::source_dir() / "docs" / "input-generation.md");
    for (const auto& row : golden_rows)
        BOOST_TEST(doc.find(std::string("`") + row.hex + "`") != std::string::npos,
                   row.kind << " " << row.type);
    BOOST_TEST(doc.find("0xDD5DCAF37ABB884D") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(large_buffers_split_across_threads_match_the_goldens)
{
    // 3,000,000 elements is split into chunks on any machine with more than one core; element i
    // must not depend on how the range is split.
    const std::int64_t n = 3000000;
    const std::uint64_t seed = golden_seed();
    const auto u = generate_input(dtype::float32, spec_of("uniform", {-1, 1}), seed, n, "A");
    BOOST_TEST(u.size() == static_cast<std::size_t>(n) * 4);
    BOOST_TEST(element_hex(u, dtype::float32, 0) + element_hex(u, dtype::float32, 1234567) +
                   element_hex(u, dtype::float32, 2999999) ==
               "0283bd3e111c2c3ec2422b3f");
    const auto g = generate_input(dtype::float32, spec_of("normal", {0, 1}), seed, n, "A");
    BOOST_TEST(element_hex(g, dtype::float32, 0) + element_hex(g, dtype::float32, 1234567) +
                   element_hex(g, dtype::float32, 2999999) ==
               "608f97bd88dec2bf0ffa843f");
    const auto r = generate_input(dtype::int32, spec_of("randint", {-8, 8}), seed, n, "A");
    BOOST_TEST(element_hex(r, dtype::int32, 0) + element_hex(r, dtype::int32, 1234567) +
                   element_hex(r, dtype::int32, 2999999) ==
               "fcffffff04000000feffffff");
    // A prefix of a long buffer equals the short buffer.
    BOOST_TEST(u.substr(0, 4000) ==
               generate_input(dtype::float32, spec_of("uniform", {-1, 1}), seed, 1000, "A"));
}

BOOST_AUTO_TEST_CASE(value_ranges)
{
    const auto bytes = generate_input(dtype::int32, spec_of("randint", {-3, 4}), 99, 100000, "r");
    std::int32_t lo = 100, hi = -100;
    for (std::size_t i = 0; i < 100000; ++i)
    {
        std::int32_t v;
        std::memcpy(&v, bytes.data() + i * 4, 4);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    BOOST_TEST(lo == -3);  // both bounds are inclusive and reached
    BOOST_TEST(hi == 4);
    const auto u = generate_input(dtype::float64, spec_of("uniform", {2, 3}), 99, 100000, "u");
    bool inside = true;
    for (std::size_t i = 0; i < 100000; ++i)
    {
        double v;
        std::memcpy(&v, u.data() + i * 8, 8);
        inside = inside && v >= 2.0 && v < 3.0;
    }
    BOOST_TEST(inside);
    // The full int64 range (hi - lo + 1 wraps to 0) draws raw 64-bit values.
    input_spec full;
    full.kind = input_kind::randint;
    full.lo = -9223372036854775808.0;
    full.hi = 9223372036854775807.0;  // rounds to 2^63 as a double: not an int64
    BOOST_TEST(error_of<user_error>([&] { (void)generate_input(dtype::int64, full, 1, 4, "w"); }) ==
               "buffer 'w': randint hi must be an integer, got 9223372036854775808");
    full.hi = 9223372036854774784.0;  // the largest double below 2^63
    BOOST_TEST(generate_input(dtype::int64, full, 1, 4, "w").size() == 32u);
}

BOOST_AUTO_TEST_CASE(empty_and_invalid_requests)
{
    BOOST_TEST(generate_input(dtype::float32, spec_of("uniform", {-1, 1}), 1, 0, "A").empty());
    BOOST_TEST(error_of<user_error>([] { (void)generate_input(dtype::float32, input_spec{}, 1, -1, "A"); }) ==
               "buffer 'A': negative element count -1");
    BOOST_TEST(error_of<user_error>(
                   [] {
                       (void)generate_input(dtype::int8, spec_of("iota", {0, 1}), 1, 200, "idx");
                   }) == "buffer 'idx': element 128 is 128, out of range for int8");
    BOOST_TEST(
        error_of<user_error>([] { (void)generate_input(dtype::uint8, spec_of("const", {-1}), 1, 3, "m"); }) ==
        "buffer 'm': element 0 is -1, out of range for uint8");
    BOOST_TEST(error_of<user_error>(
                   [] {
                       (void)generate_input(dtype::int16, spec_of("randint", {0, 40000}), 1, 3, "r");
                   }) == "buffer 'r': range [0, 40000] does not fit int16");
    BOOST_TEST(error_of<user_error>(
                   [] {
                       (void)generate_input(dtype::int32, spec_of("randint", {0.5, 3}), 1, 3, "r");
                   }) == "buffer 'r': randint lo must be an integer, got 0.5");
    BOOST_TEST(error_of<user_error>(
                   [] {
                       (void)generate_input(dtype::int32, spec_of("randint", {3, 1}), 1, 3, "r");
                   }) == "buffer 'r': randint lo 3 is greater than hi 1");
    // Integer buffers round to nearest, ties to even, before the range check.
    const auto rounded = generate_input(dtype::int8, spec_of("iota", {-1.5, 1}), 1, 4, "t");
    BOOST_TEST(to_hex(rounded) == "fe000002");  // -1.5 -> -2, -0.5 -> 0, 0.5 -> 0, 1.5 -> 2
    // Float buffers overflow to infinity, as a conversion would.
    BOOST_TEST(to_hex(generate_input(dtype::float16, spec_of("const", {1e6}), 1, 1, "h")) == "007c");
}

BOOST_AUTO_TEST_CASE(file_inputs)
{
    warpsmith::test::temp_dir tmp;
    const auto path = tmp.path() / "x.bin";
    {
        std::ofstream out(path, std::ios::binary);
        const float v[3] = {1.0f, -2.0f, 0.5f};
        out.write(reinterpret_cast<const char*>(v), sizeof v);
    }
    input_spec s;
    s.kind = input_kind::file;
    s.path = path;
    BOOST_TEST(to_hex(generate_input(dtype::float32, s, 5, 3, "x")) == "0000803f000000c00000003f");
    // The same 12 bytes are 6 float16 elements, but not 5 or 7.
    BOOST_TEST(generate_input(dtype::float16, s, 5, 6, "x").size() == 12u);
    BOOST_TEST(error_of<user_error>([&] { (void)generate_input(dtype::float32, s, 5, 2, "x"); }) ==
               "buffer 'x': file '" + path.string() +
                   "' holds 12 bytes, expected 8 bytes (2 float32 elements)");
    BOOST_TEST(error_of<user_error>([&] { (void)generate_input(dtype::float32, s, 5, 4, "x"); }) ==
               "buffer 'x': file '" + path.string() +
                   "' holds 12 bytes, expected 16 bytes (4 float32 elements)");
    s.path = tmp.path() / "gone.bin";
    BOOST_TEST(error_of<user_error>([&] { (void)generate_input(dtype::float32, s, 5, 3, "x"); })
                   .rfind("buffer 'x': cannot read file '" + s.path.string() + "' (", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(case_inputs_cover_in_and_inout_buffers)
{
    const auto w = workload::from_json(parse_json(R"j({
      "name": "mix",
      "signature": {"entry": "k", "params": [
        {"name": "n", "kind": "scalar", "type": "int32"},
        {"name": "a", "kind": "buffer", "type": "float32", "dir": "in", "count": "n"},
        {"name": "acc", "kind": "buffer", "type": "int32", "dir": "inout", "count": "2*n"},
        {"name": "out", "kind": "buffer", "type": "float32", "dir": "out", "count": "n"}]},
      "cases": [{"name": "small", "values": {"n": 6}, "inputs": {"acc": {"gen": "iota", "start": 5}}}],
      "reference_source": "x",
      "launch": {"grid": [1], "block": ["n"]},
      "seed": 7
    })j",
                                                  "mix"),
                                       "",
                                       "mix.json");
    const auto& c = w.cases[0];
    BOOST_TEST(c.seed == derived_case_seed(7, "small"));
    const auto inputs = generate_case_inputs(w, c, c.seed);
    BOOST_TEST(inputs.size() == 2u);
    BOOST_TEST(!inputs.count("out"));
    // "a" is unlisted, so it takes the default spec (uniform [-1, 1]) and a seed from its name.
    BOOST_TEST(
        inputs.at("a") ==
        generate_input(
            dtype::float32, input_spec::default_for(dtype::float32), buffer_seed(c.seed, "a"), 6, "a"));
    BOOST_TEST(
        to_hex(inputs.at("acc")) ==
        "05000000060000000700000008000000090000000a0000000b0000000c0000000d0000000e0000000f00000010000000");
    // A hidden seed gives different bytes; the same seed gives the same bytes.
    BOOST_TEST(generate_case_inputs(w, c, 12345).at("a") != inputs.at("a"));
    BOOST_TEST(generate_case_inputs(w, c, c.seed) == inputs);
}

BOOST_AUTO_TEST_CASE(case_inputs_reach_the_golden_values_through_a_workload)
{
    // Case "small" of a workload with seed 7 and a float32 buffer "A" with the default spec
    // reproduces the first golden row end to end (names, seeds, defaults).
    const auto w = workload::from_json(parse_json(R"j({
      "name": "golden", "seed": 7,
      "signature": {"entry": "k", "params": [
        {"name": "A", "kind": "buffer", "type": "float32", "dir": "in", "count": "6"},
        {"name": "B", "kind": "buffer", "type": "float32", "dir": "out", "count": "6"}]},
      "cases": [{"name": "small"}],
      "reference_source": "x",
      "launch": {"grid": [1], "block": [6]}
    })j",
                                                  "golden"),
                                       "",
                                       "golden.json");
    const auto inputs = generate_case_inputs(w, w.cases[0], w.cases[0].seed);
    BOOST_TEST(to_hex(inputs.at("A")) == golden_rows[0].hex);
}

BOOST_AUTO_TEST_CASE(case_inputs_name_the_case_on_error)
{
    const auto w = workload::from_json(parse_json(R"j({
      "name": "e",
      "signature": {"entry": "k", "params": [
        {"name": "n", "kind": "scalar", "type": "int32"},
        {"name": "i", "kind": "buffer", "type": "int8", "dir": "in", "count": "n"},
        {"name": "o", "kind": "buffer", "type": "int8", "dir": "out", "count": "n"}]},
      "cases": [{"name": "long", "values": {"n": 300}, "inputs": {"i": {"gen": "iota"}}}],
      "reference_source": "x",
      "launch": {"grid": [1], "block": [1]}
    })j",
                                                  "e"),
                                       "",
                                       "e.json");
    BOOST_TEST(error_of<user_error>([&] { (void)generate_case_inputs(w, w.cases[0], 1); }) ==
               "workload 'e', case 'long': buffer 'i': element 128 is 128, out of range for int8");
}

BOOST_AUTO_TEST_CASE(vector_add_file_case)
{
    const auto w = workload::load(workload_data_dir() / "vector_add");
    const auto& c = *w.find_case("tiny-file");
    const auto inputs = generate_case_inputs(w, c, c.seed);
    BOOST_TEST(to_hex(inputs.at("a")) == "0000803f000000400000404000008040");  // 1, 2, 3, 4
    BOOST_TEST(inputs.at("b").size() == 16u);
}

BOOST_AUTO_TEST_SUITE_END()
