#include "harness/compile/ptxas_report.hpp"

#include <boost/test/unit_test.hpp>

using namespace warpsmith;

BOOST_AUTO_TEST_SUITE(ptxas_report_parsing)

// Verbatim from NVRTC 13.0 for sm_90 (a C++ kernel, an extern "C" kernel with a local array,
// shared memory and a barrier, compiled with --maxrregcount=32).
constexpr const char* nvrtc13_log =
    R"(ptxas info    : Overriding maximum register limit 256 for '_Z3barP6__half' with  32 of maxrregcount option
ptxas info    : Overriding maximum register limit 256 for 'foo' with  32 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z3barP6__half' for 'sm_90'
ptxas info    : Function properties for _Z3barP6__half
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 6 registers, used 0 barriers
ptxas info    : Compile time = 2.830 ms
ptxas info    : Compiling entry function 'foo' for 'sm_90'
ptxas info    : Function properties for foo
ptxas         .     400 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 400 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compile time = 13.867 ms
ptxas info    : Function properties for _Z6helperPfi
ptxas         .     24 bytes stack frame, 44 bytes spill stores, 40 bytes spill loads
)";

BOOST_AUTO_TEST_CASE(nvrtc13_report)
{
    ptxas_report r = parse_ptxas_report(nvrtc13_log);
    BOOST_TEST(r.entries == (std::vector<std::string>{"_Z3barP6__half", "foo"}),
               boost::test_tools::per_element());
    const resource_usage& foo = r.resources.at("foo");
    BOOST_TEST(foo.registers == 32);
    BOOST_TEST(foo.barriers == 1);
    BOOST_TEST(foo.static_shared_bytes == 1024);
    BOOST_TEST(foo.stack_frame_bytes == 400);
    BOOST_TEST(foo.spill_stores_bytes == 8);
    BOOST_TEST(foo.spill_loads_bytes == 12);
    BOOST_TEST(foo.constant_bytes == 0);
    const resource_usage& bar = r.resources.at("_Z3barP6__half");
    BOOST_TEST(bar.registers == 6);
    BOOST_TEST(bar.static_shared_bytes == 0);
    // The non-inlined device function's properties belong to no entry.
    BOOST_TEST(r.resources.size() == 2u);
}

BOOST_AUTO_TEST_CASE(older_report_with_cmem)
{
    // The wording of CUDA 11/12 ptxas, where constant banks are listed per entry and module-wide.
    constexpr const char* log = R"(ptxas info    : 0 bytes gmem, 256 bytes cmem[3]
ptxas info    : Compiling entry function 'sgemm' for 'sm_80'
ptxas info    : Function properties for sgemm
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, 380 bytes cmem[0], 8192 bytes smem
)";
    ptxas_report r = parse_ptxas_report(log);
    BOOST_TEST(r.entries == (std::vector<std::string>{"sgemm"}), boost::test_tools::per_element());
    BOOST_TEST(r.resources.at("sgemm").registers == 40);
    BOOST_TEST(r.resources.at("sgemm").constant_bytes == 380);
    BOOST_TEST(r.resources.at("sgemm").static_shared_bytes == 8192);
    BOOST_TEST(r.module_constant_bytes == 256);
}

BOOST_AUTO_TEST_CASE(unrelated_text_is_ignored)
{
    ptxas_report r =
        parse_ptxas_report("kernel.cu(3): warning #177-D: variable \"x\" was declared\n\nrandom\n");
    BOOST_TEST(r.entries.empty());
    BOOST_TEST(parse_ptxas_report("").entries.empty());
    // A truncated report still yields what it has.
    ptxas_report t =
        parse_ptxas_report("ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Used");
    BOOST_TEST(t.entries.size() == 1u);
    BOOST_TEST(t.resources.at("k").registers == 0);
}

BOOST_AUTO_TEST_SUITE_END()
