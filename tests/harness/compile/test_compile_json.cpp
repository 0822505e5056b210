#include "harness/compile/compile_request.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;

namespace
{

boost::json::value reparse(const boost::json::value& v)
{
    return parse_json(boost::json::serialize(v), "test");
}

std::string user_error_of(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const user_error& e)
    {
        return e.what();
    }
    return "no error";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compile_json)

BOOST_AUTO_TEST_CASE(request_round_trip_and_defaults)
{
    compile_request r{.source = "extern \"C\" __global__ void k() {}",
                      .entry = "k",
                      .options = {"-DBM=64", "--use_fast_math"},
                      .arch = "sm_90a",
                      .name = "c0007.cu"};
    compile_request back = compile_request::from_json(reparse(r.to_json()));
    BOOST_TEST(back.source == r.source);
    BOOST_TEST(back.entry == r.entry);
    BOOST_TEST(back.options == r.options, boost::test_tools::per_element());
    BOOST_TEST(back.arch == "sm_90a");
    BOOST_TEST(back.name == "c0007.cu");

    compile_request minimal = compile_request::from_json(parse_json(R"({"source": "x", "entry": "k"})", "t"));
    BOOST_TEST(minimal.arch == "sm_90");
    BOOST_TEST(minimal.name == "kernel.cu");
    BOOST_TEST(minimal.options.empty());
}

BOOST_AUTO_TEST_CASE(request_errors_name_the_field)
{
    auto parse = [](const char* text) { return compile_request::from_json(parse_json(text, "t")); };
    BOOST_TEST(user_error_of([&] { parse(R"({"source": "x"})"); }) == "compile request: 'entry' is missing");
    BOOST_TEST(user_error_of([&] { parse(R"({"source": "x", "entry": "k", "option": []})"); }) ==
               "compile request: unknown key 'option' (did you mean 'options'?)");
    BOOST_TEST(user_error_of([&] { parse(R"({"source": "x", "entry": "k", "options": [1]})"); }) ==
               "compile request: 'options' must be an array of strings");
    BOOST_TEST(user_error_of([&] { parse(R"({"source": 3, "entry": "k"})"); }) ==
               "compile request: 'source' must be a string");
    BOOST_TEST(user_error_of([&] { parse("[]"); }) == "compile request must be an object");
}

BOOST_AUTO_TEST_CASE(output_round_trip_with_binary_cubin)
{
    compile_output o;
    o.compiled = true;
    o.log = "ptxas info    : Used 32 registers\n";
    o.cubin = std::string(
        "\x7f"
        "ELF\0\x01\xff binary",
        14);
    o.entries = {"sgemm", "_Z3barPf"};
    o.resources.registers = 32;
    o.resources.spill_stores_bytes = 8;
    o.resources.spill_loads_bytes = 12;
    o.resources.static_shared_bytes = 1024;
    o.resources.stack_frame_bytes = 400;
    o.resources.barriers = 1;
    o.resources.constant_bytes = 380;
    o.arch = "sm_90";
    o.key = std::string(64, 'a');
    o.cache_hit = true;
    o.compile_ms = 12.5;
    o.local_memory = false;

    auto j = o.to_json();
    BOOST_TEST(j.as_object().at("cubin_b64").as_string() == "f0VMRgAB/yBiaW5hcnk=");
    BOOST_TEST(!j.as_object().contains("cubin"));
    compile_output back = compile_output::from_json(reparse(j));
    BOOST_TEST(back.compiled);
    BOOST_TEST(back.cubin == o.cubin);
    BOOST_TEST(back.log == o.log);
    BOOST_TEST(back.entries == o.entries, boost::test_tools::per_element());
    BOOST_TEST(back.resources.registers == 32);
    BOOST_TEST(back.resources.spill_stores_bytes == 8);
    BOOST_TEST(back.resources.spill_loads_bytes == 12);
    BOOST_TEST(back.resources.static_shared_bytes == 1024);
    BOOST_TEST(back.resources.stack_frame_bytes == 400);
    BOOST_TEST(back.resources.barriers == 1);
    BOOST_TEST(back.resources.constant_bytes == 380);
    BOOST_TEST(back.arch == "sm_90");
    BOOST_TEST(back.key == o.key);
    BOOST_TEST(!back.local_memory);
    // Absent (an older cache entry): unknown, which must mean "wipe".
    boost::json::value older = reparse(j);
    older.as_object().erase("local_memory");
    BOOST_TEST(compile_output::from_json(older).local_memory);
    BOOST_TEST(back.cache_hit);
    BOOST_TEST(back.compile_ms == 12.5);
}

BOOST_AUTO_TEST_CASE(output_errors)
{
    auto parse = [](const char* text) { return compile_output::from_json(parse_json(text, "t")); };
    BOOST_TEST(user_error_of([&] { parse(R"({"log": ""})"); }) == "compile output: 'compiled' is missing");
    BOOST_TEST(user_error_of([&] { parse(R"({"compiled": true, "cubin_b64": ""})"); }) ==
               "compile output: 'compiled' is true but 'cubin_b64' is empty");
    BOOST_TEST(user_error_of([&] { parse(R"({"compiled": false, "resources": {"registers": "many"}})"); }) ==
               "compile output: 'resources.registers' must be a non-negative integer");
    BOOST_TEST(
        user_error_of([&] { (void)resource_usage::from_json(parse_json(R"({"barriers": -1})", "t")); }) ==
        "resource usage: 'barriers' must be a non-negative integer");
    compile_output failed = parse(R"({"compiled": false, "error": "x.cu(1): error: oops"})");
    BOOST_TEST(!failed.compiled);
    BOOST_TEST(failed.error == "x.cu(1): error: oops");
}

BOOST_AUTO_TEST_SUITE_END()
