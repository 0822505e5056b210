#include "harness/compile/compile_limits.hpp"
#include "harness/compile/cubin_symbols.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/json_file.hpp"
#include "tests/harness/compile/test_kernels.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace warpsmith;

namespace
{

compile_request request(std::string source,
                        std::string entry,
                        std::vector<std::string> options = {},
                        std::string arch = "sm_90")
{
    compile_request r;
    r.source = std::move(source);
    r.entry = std::move(entry);
    r.options = std::move(options);
    r.arch = std::move(arch);
    return r;
}

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nvrtc_compile)

BOOST_AUTO_TEST_CASE(version_is_major_dot_minor)
{
    std::string v = nvrtc_version();
    BOOST_TEST(v.find('.') != std::string::npos);
    BOOST_TEST(std::stoi(v) >= 11);
}

BOOST_AUTO_TEST_CASE(local_memory_is_what_the_ptx_addresses)
{
    BOOST_TEST(!ptx_addresses_local_memory("ld.global.f32 %f1, [%rd3];"));
    BOOST_TEST(ptx_addresses_local_memory(".local .align 16 .b8 __local_depot0[64];"));
    BOOST_TEST(ptx_addresses_local_memory("cvta.to.local.u64 %rd1, %rd2;"));

    nvrtc_compiler compiler;
    const auto local_memory_of = [&](const std::string& body)
    {
        const compile_output out = compiler.compile(
            request("extern \"C\" __global__ void k(float* o, int n) {\n" + body + "\n}", "k"));
        BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
        return out.local_memory;
    };
    BOOST_TEST(!local_memory_of("o[threadIdx.x] = o[threadIdx.x] * 2.0f;"));
    // A local array indexed at run time stays in local memory.
    BOOST_TEST(local_memory_of("float a[16]; for (int i = 0; i < 16; ++i) a[i] = o[i]; o[0] = a[n & 15];"));
    // No frame at all, but a load from an absolute local address (tests/cheats/sgemm-26).
    BOOST_TEST(local_memory_of(
        "unsigned v; asm volatile(\"ld.local.u32 %0, [%1];\" : \"=r\"(v) : \"l\"(0xFFFFFCull)); o[0] = v;"));
    // Spills alone do not count: ptxas adds them after the PTX, and each is reloaded after its store.
    const compile_output spilled =
        compiler.compile(request(test_kernels::spiller, "spill", {"--maxrregcount=32"}));
    BOOST_TEST_REQUIRE(spilled.compiled, spilled.error);
    BOOST_TEST(spilled.resources.spill_stores_bytes > 0);
    BOOST_TEST(!spilled.local_memory, spilled.log);
}

BOOST_AUTO_TEST_CASE(good_kernel_gives_cubin_and_resources)
{
    nvrtc_compiler compiler;
    compile_output out = compiler.compile(request(test_kernels::saxpy, "saxpy"));
    BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
    BOOST_TEST(out.error.empty());
    BOOST_TEST(out.cubin.size() > 100u);
    BOOST_TEST(out.cubin.substr(0, 4) ==
               "\x7f"
               "ELF");
    BOOST_TEST(out.entries == (std::vector<std::string>{"saxpy"}), boost::test_tools::per_element());
    BOOST_TEST(out.resources.registers > 0);
    BOOST_TEST(out.resources.spill_stores_bytes == 0);
    BOOST_TEST(out.arch == "sm_90");
    BOOST_TEST(out.key == nvrtc_compiler::cache_key(request(test_kernels::saxpy, "saxpy")));
    BOOST_TEST(!out.cache_hit);
    BOOST_TEST(out.compile_ms > 0);
    // ptxas -v is always on, so its report is in the log.
    BOOST_TEST(contains(out.log, "Compiling entry function 'saxpy' for 'sm_90'"));
}

BOOST_AUTO_TEST_CASE(fixed_options)
{
    auto options = fixed_compile_options("sm_90a");
    BOOST_TEST(options.at(0) == "-arch=sm_90a");
    BOOST_TEST(std::count(options.begin(), options.end(), "-lineinfo") == 1);
    BOOST_TEST(std::count(options.begin(), options.end(), "--ptxas-options=-v") == 1);
    BOOST_TEST(std::count(options.begin(), options.end(), "-std=c++17") == 1);
    BOOST_TEST(std::none_of(
        options.begin(), options.end(), [](const std::string& o) { return contains(o, "rdc"); }));
    // NVRTC 13's own cache would skip ptxas (and its -v report) on a repeated compile.
    BOOST_TEST(std::count(options.begin(), options.end(), "--no-cache") == 1);
}

BOOST_AUTO_TEST_CASE(a_repeated_compile_still_reports_resources)
{
    // Without our cache, the same source compiled again must not come from NVRTC's own cache
    // with an empty log (seen on the H200 host: registers read as 0 on the second compile).
    nvrtc_compiler compiler;
    auto first = compiler.compile(request(test_kernels::saxpy, "saxpy"));
    auto second = compiler.compile(request(test_kernels::saxpy, "saxpy"));
    BOOST_TEST_REQUIRE(second.compiled, second.error);
    BOOST_TEST(contains(second.log, "Compiling entry function 'saxpy'"), second.log);
    BOOST_TEST(second.resources.registers == first.resources.registers);
    BOOST_TEST(second.resources.registers > 0);
}

BOOST_AUTO_TEST_CASE(half_and_bfloat16_headers_are_found)
{
    BOOST_TEST_REQUIRE(cuda_include_dir().has_value(), "no CUDA include directory with cuda_fp16.h");
    const char* source = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void mixed(const __half* a, const __nv_bfloat16* b, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __half2float(a[i]) + __bfloat162float(b[i]);
}
)";
    compile_output out = nvrtc_compiler().compile(request(source, "mixed"));
    BOOST_TEST(out.compiled, out.error << "\n" << out.log);
}

BOOST_AUTO_TEST_CASE(syntax_error_is_a_value_with_the_log)
{
    const char* source = "extern \"C\" __global__ void k(int* p)\n{\n    p[0] = undeclared_name;\n}\n";
    compile_request r = request(source, "k");
    r.name = "broken.cu";
    compile_output out = nvrtc_compiler().compile(r);
    BOOST_TEST(!out.compiled);
    BOOST_TEST(out.cubin.empty());
    BOOST_TEST(contains(out.log, "broken.cu(3): error"), out.log);
    BOOST_TEST(contains(out.error, "broken.cu(3): error"), out.error);
    BOOST_TEST(out.error.find('\n') == std::string::npos);
}

// A line directive or line marker naming a host file changes only the name in the messages: NVRTC
// prints the offending line from the source it was given, never from the file named, so the
// include policy lets #line through (docs/hardening.md, "Leak probes that found nothing").
BOOST_AUTO_TEST_CASE(a_line_directive_naming_a_host_file_reads_nothing_from_it)
{
    const auto secret = std::filesystem::temp_directory_path() / "warpsmith-line-probe.txt";
    {
        std::ofstream f(secret);
        f << "HOST_FILE_LINE_1 SECRET\nHOST_FILE_LINE_2 SECRET\n";
    }
    for (const std::string directive : {"#line 1 \"", "# 1 \""})
    {
        const std::string source =
            directive + secret.string() +
            "\"\nextern \"C\" __global__ void k(int* p)\n{\n    p[0] = undeclared_name;\n}\n";
        compile_output out = nvrtc_compiler().compile(request(source, "k"));
        BOOST_TEST(!out.compiled);
        BOOST_TEST(contains(out.log, secret.string() + "(3): error"), out.log);
        BOOST_TEST(contains(out.log, "undeclared_name"), out.log);
        BOOST_TEST(!contains(out.log, "SECRET"), out.log);
    }
    std::filesystem::remove(secret);
}

// A cubin carries initialised __device__ data in full, so its size is the kernel author's to choose.
// One above the limit is refused with its size and the limit named, and is not cached; the same
// kernel under the default limit (64 MiB) compiles.
BOOST_AUTO_TEST_CASE(a_cubin_above_the_limit_is_refused_and_not_cached)
{
    test::temp_dir dir;
    const std::string source =
        "__device__ char table[2 << 20] = {1};\n"
        "extern \"C\" __global__ void k(char* y) { y[threadIdx.x] = table[threadIdx.x * 4096]; }\n";
    const nvrtc_compiler small{compile_cache(dir.path()), std::size_t{1} << 20};
    const compile_output refused = small.compile(request(source, "k"));
    BOOST_TEST(!refused.compiled);
    BOOST_TEST(refused.cubin.empty());
    BOOST_TEST(contains(refused.error, "the cubin is 2.0 MiB, above the limit of 1.0 MiB"), refused.error);
    BOOST_TEST(!small.cache()->lookup(refused.key).has_value());
    BOOST_TEST(!small.compile(request(source, "k")).cache_hit);

    const compile_output accepted = nvrtc_compiler{compile_cache(dir.path())}.compile(request(source, "k"));
    BOOST_TEST(accepted.compiled, accepted.error);
    BOOST_TEST(accepted.cubin.size() > (std::size_t{2} << 20));
}

// NVRTC's parser recurses per nesting level: 10,000 nested extern "C" { (120 KB, from a model)
// crashed an in-process compile with SIGSEGV inside libnvrtc. Deep nesting is refused before
// NVRTC sees it; comments and literals do not count, and 256 levels still compile.
BOOST_AUTO_TEST_CASE(nesting_deeper_than_the_parser_should_recurse_is_refused)
{
    std::string deep = "extern \"C\" __global__ void k(float* y) { y[0] = 1; }\n";
    for (int i = 0; i < 10000; ++i)
        deep += "extern \"C\" {\n";
    const compile_output out = nvrtc_compiler().compile(request(deep, "k"));
    BOOST_TEST(!out.compiled);
    BOOST_TEST(contains(out.error, "the source nests { more than 256 levels deep"), out.error);

    BOOST_TEST(check_source_nesting(std::string(300, '(') + std::string(300, ')')).has_value());
    BOOST_TEST(!check_source_nesting("// " + std::string(300, '{') + "\n\"" + std::string(300, '[') +
                                     "\" /* " + std::string(300, '(') + " */ '{'")
                    .has_value());
    // Digraphs count, and a digit separator is not a character literal that hides the rest.
    std::string digraphs, separated = "int q = 1'0; ";
    for (int i = 0; i < 300; ++i)
    {
        digraphs += "extern \"C\" <% ";
        separated += "extern \"C\" { ";
    }
    BOOST_TEST(check_source_nesting(digraphs).has_value());
    BOOST_TEST(check_source_nesting(separated).has_value());
    BOOST_TEST(!check_source_nesting("int a = 0x1'F'F; char c = '{'; auto s = u8\"(\";").has_value());
    std::string ok = "extern \"C\" __global__ void k(int* y) { int v = 0;";
    for (int i = 0; i < 250; ++i)
        ok += "{ ++v;";
    ok += std::string(250, '}') + " y[0] = v; }\n";
    const compile_output fine = nvrtc_compiler().compile(request(ok, "k"));
    BOOST_TEST(fine.compiled, fine.error);
}

// A type whose name doubles at every level and one error about it make NVRTC's log grow as 2^N
// (18 levels: about 2 MiB); the log kept is cut to 1 MiB with its first error and a line
// saying how much was left out. bounded_compile_log keeps the end too (ptxas's resource report).
BOOST_AUTO_TEST_CASE(a_compile_log_is_cut_to_its_first_errors_and_its_resource_report)
{
    const std::string source =
        "template <class A, class B> struct P {};\n"
        "template <int N> struct T { typedef P<typename T<N - 1>::t, typename T<N - 1>::t> t; };\n"
        "template <> struct T<0> { typedef int t; };\n"
        "extern \"C\" __global__ void k(int* y) { T<18>::t x = 1; y[0] = 0; }\n";
    const compile_output out = nvrtc_compiler().compile(request(source, "k"));
    BOOST_TEST(!out.compiled);
    BOOST_TEST(out.log.size() <= max_compile_log_bytes + 200, out.log.size());
    BOOST_TEST(contains(out.log, "error"), out.log.substr(0, 300));
    BOOST_TEST(contains(out.log, "bytes of the compile log left out (it is cut at 1.0 MiB)"));

    std::string log(3 << 20, 'x');
    for (std::size_t i = 99; i < log.size(); i += 100)
        log[i] = '\n';
    log = "first error\n" + log + "ptxas info    : Used 8 registers\n";
    const std::string cut = bounded_compile_log(log);
    BOOST_TEST(cut.size() <= max_compile_log_bytes + 100);
    BOOST_TEST(cut.rfind("first error\n", 0) == 0u);
    BOOST_TEST(cut.ends_with("ptxas info    : Used 8 registers\n"));
    BOOST_TEST(bounded_compile_log("short log\n") == "short log\n");
}

// A warning line with a long run of spaces before the error: finding the error line used
// std::regex, which recursed once per character and overflowed the stack (warpsmith compile died
// with SIGSEGV, a compile worker died twice).
BOOST_AUTO_TEST_CASE(a_long_run_of_spaces_in_the_log_does_not_overflow_the_stack)
{
    const std::string source = "#warning :" + std::string(300000, ' ') +
                               "x\nextern \"C\" __global__ void k(float* p) { p[0] = undefined_thing; }\n";
    const compile_output out = nvrtc_compiler().compile(request(source, "k"));
    BOOST_TEST(!out.compiled);
    BOOST_TEST(contains(out.error, "undefined_thing"), out.error.substr(0, 300));
}

// Explicit instantiations make hundreds of kernels from a few lines; the names a compile reports go
// to the journal and the model, so at most 256 are kept and an error lists 20.
BOOST_AUTO_TEST_CASE(hundreds_of_kernels_are_reported_in_bounded_lists)
{
    std::string source = "template <int N> __global__ void t(float* y) { y[N] = N; }\n";
    for (int i = 0; i < 300; ++i)
        source += "template __global__ void t<" + std::to_string(i) + ">(float*);\n";
    const compile_output out = nvrtc_compiler().compile(request(source, "nope"));
    BOOST_TEST(!out.compiled);
    BOOST_TEST(out.entries.size() == 256u);
    BOOST_TEST(contains(out.error, ", and 280 more"), out.error);
    BOOST_TEST(out.error.size() < 2500u, out.error.size());
}

// A cache entry written before logs were bounded (or planted in the cache directory) is cut on the
// way out like a fresh compile's log.
BOOST_AUTO_TEST_CASE(a_cached_log_is_bounded_too)
{
    test::temp_dir dir;
    const nvrtc_compiler compiler{compile_cache(dir.path())};
    const compile_output first =
        compiler.compile(request("extern \"C\" __global__ void k(float* y) { y[0] = 1; }\n", "k"));
    BOOST_REQUIRE(first.compiled);
    const auto meta = dir.path() / first.key.substr(0, 2) / (first.key + ".json");
    auto stored = read_json_file(meta);
    stored.as_object()["log"] = std::string(3 << 20, 'x') + "\n";
    write_json_file(meta, stored);
    const compile_output hit =
        compiler.compile(request("extern \"C\" __global__ void k(float* y) { y[0] = 1; }\n", "k"));
    BOOST_TEST(hit.cache_hit);
    BOOST_TEST(hit.log.size() <= max_compile_log_bytes + 200, hit.log.size());
}

BOOST_AUTO_TEST_CASE(missing_entry_lists_the_kernels)
{
    compile_output out = nvrtc_compiler().compile(request(test_kernels::two_kernels, "sgemm"));
    BOOST_TEST(!out.compiled);
    BOOST_TEST(out.cubin.empty());
    BOOST_TEST(out.error == "entry point 'sgemm' not found; kernels in the source: foo, _Z3barPf", out.error);
    BOOST_TEST(out.entries == (std::vector<std::string>{"foo", "_Z3barPf"}),
               boost::test_tools::per_element());

    compile_output none = nvrtc_compiler().compile(request("__device__ int x;\n", "k"));
    BOOST_TEST(!none.compiled);
    BOOST_TEST(none.error == "entry point 'k' not found; the source defines no __global__ kernel");
}

BOOST_AUTO_TEST_CASE(mangled_entry_asks_for_extern_c)
{
    const char* source = "__global__ void sgemm(float* c, int n) { c[threadIdx.x] = n; }\n";
    compile_output out = nvrtc_compiler().compile(request(source, "sgemm"));
    BOOST_TEST(!out.compiled);
    BOOST_TEST(out.error ==
                   "entry point 'sgemm' exists only as the C++-mangled name _Z5sgemmPfi; declare it "
                   "extern \"C\"",
               out.error);
}

BOOST_AUTO_TEST_CASE(refused_options_and_arch_are_values)
{
    nvrtc_compiler compiler;
    compile_output rdc = compiler.compile(request(test_kernels::saxpy, "saxpy", {"-rdc=true"}));
    BOOST_TEST(!rdc.compiled);
    BOOST_TEST(rdc.error ==
               "option '-rdc=true' refused: allowed are --use_fast_math, --maxrregcount=N, "
               "-DNAME=V, -DNAME, --extra-device-vectorization");
    BOOST_TEST(rdc.log.empty());

    compile_output regs = compiler.compile(request(test_kernels::saxpy, "saxpy", {"--maxrregcount=512"}));
    BOOST_TEST(!regs.compiled);
    BOOST_TEST(contains(regs.error, "1 to 255"));

    compile_output ptx = compiler.compile(request(test_kernels::saxpy, "saxpy", {}, "compute_90"));
    BOOST_TEST(!ptx.compiled);
    BOOST_TEST(contains(ptx.error, "architecture 'compute_90' refused"));

    // Well-formed but beyond what NVRTC can target: NVRTC's own refusal, still a value.
    compile_output ancient = compiler.compile(request(test_kernels::saxpy, "saxpy", {}, "sm_20"));
    BOOST_TEST(!ancient.compiled);
    BOOST_TEST(contains(ancient.error, "rejected the options for sm_20"), ancient.error);
}

BOOST_AUTO_TEST_CASE(defines_reach_the_code)
{
    const char* source = R"(
#ifndef FEATURE
#error FEATURE must be defined
#endif
#define fast 7
static_assert(BM == 128, "BM must be 128");
static_assert(MODE == 7, "MODE must name the macro fast");
static_assert(OFFSET == -4, "OFFSET must be -4");
extern "C" __global__ void k(int* p) { p[threadIdx.x] = BM + OFFSET; }
)";
    nvrtc_compiler compiler;
    compile_output ok =
        compiler.compile(request(source, "k", {"-DBM=128", "-DFEATURE", "-DMODE=fast", "-DOFFSET=-4"}));
    BOOST_TEST(ok.compiled, ok.error << "\n" << ok.log);

    compile_output wrong =
        compiler.compile(request(source, "k", {"-DBM=64", "-DFEATURE", "-DMODE=fast", "-DOFFSET=-4"}));
    BOOST_TEST(!wrong.compiled);
    BOOST_TEST(contains(wrong.log, "BM must be 128"), wrong.log);

    compile_output missing =
        compiler.compile(request(source, "k", {"-DBM=128", "-DMODE=fast", "-DOFFSET=-4"}));
    BOOST_TEST(!missing.compiled);
    BOOST_TEST(contains(missing.error, "FEATURE must be defined"), missing.error);
}

BOOST_AUTO_TEST_CASE(option_order_is_part_of_the_key)
{
    // A later -D redefines an earlier one, so the same options in another order are another compile.
    auto a = request(test_kernels::saxpy, "saxpy", {"-DX=1", "-DX=2"});
    auto b = request(test_kernels::saxpy, "saxpy", {"-DX=2", "-DX=1"});
    BOOST_TEST(nvrtc_compiler::cache_key(a) != nvrtc_compiler::cache_key(b));
    BOOST_TEST(nvrtc_compiler::cache_key(a) == nvrtc_compiler::cache_key(a));
    auto other_arch = a;
    other_arch.arch = "sm_90a";
    BOOST_TEST(nvrtc_compiler::cache_key(a) != nvrtc_compiler::cache_key(other_arch));
    auto other_entry = a;
    other_entry.entry = "other";
    BOOST_TEST(nvrtc_compiler::cache_key(a) != nvrtc_compiler::cache_key(other_entry));
    BOOST_TEST(nvrtc_compiler::cache_key(a).size() == 64u);
}

BOOST_AUTO_TEST_CASE(shared_memory_and_barriers_reported)
{
    compile_output out = nvrtc_compiler().compile(request(test_kernels::two_kernels, "foo"));
    BOOST_TEST_REQUIRE(out.compiled, out.error);
    BOOST_TEST(out.resources.static_shared_bytes == 1024);
    BOOST_TEST(out.resources.barriers == 1);
}

BOOST_AUTO_TEST_CASE(spills_reported_under_maxrregcount)
{
    nvrtc_compiler compiler;
    compile_output tight = compiler.compile(request(test_kernels::spiller, "spill", {"--maxrregcount=32"}));
    BOOST_TEST_REQUIRE(tight.compiled, tight.error << "\n" << tight.log);
    BOOST_TEST(tight.resources.registers <= 32);
    BOOST_TEST(tight.resources.registers > 0);
    BOOST_TEST(tight.resources.spill_stores_bytes > 0);
    BOOST_TEST(tight.resources.spill_loads_bytes > 0);
    BOOST_TEST(tight.resources.stack_frame_bytes > 0);

    compile_output roomy = compiler.compile(request(test_kernels::spiller, "spill"));
    BOOST_TEST_REQUIRE(roomy.compiled, roomy.error);
    BOOST_TEST(roomy.resources.registers > 32);
    BOOST_TEST(roomy.resources.spill_stores_bytes < tight.resources.spill_stores_bytes);
}

BOOST_AUTO_TEST_CASE(sm_90a_enables_arch_specific_instructions)
{
    // setmaxnreg exists only on the architecture-specific target.
    const char* source = R"(
extern "C" __global__ void k(int* p)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    p[threadIdx.x] = 1;
}
)";
    nvrtc_compiler compiler;
    compile_output a = compiler.compile(request(source, "k", {}, "sm_90a"));
    BOOST_TEST(a.compiled, a.error << "\n" << a.log);
    BOOST_TEST(a.arch == "sm_90a");
    BOOST_TEST(contains(a.log, "for 'sm_90a'"));

    compile_output plain = compiler.compile(request(source, "k", {}, "sm_90"));
    BOOST_TEST(!plain.compiled);
    BOOST_TEST(contains(plain.error, "setmaxnreg"), plain.error);
}

BOOST_AUTO_TEST_CASE(other_allowed_options_compile)
{
    compile_output out = nvrtc_compiler().compile(
        request(test_kernels::saxpy,
                "saxpy",
                {"--use_fast_math", "--extra-device-vectorization", "--maxrregcount=64"}));
    BOOST_TEST(out.compiled, out.error << "\n" << out.log);
}

BOOST_AUTO_TEST_CASE(concurrent_compiles)
{
    nvrtc_compiler compiler;
    std::vector<compile_output> outs(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
    {
        threads.emplace_back(
            [&, t] {
                outs[t] = compiler.compile(
                    request(test_kernels::saxpy, "saxpy", {"-DVARIANT=" + std::to_string(t)}));
            });
    }
    for (auto& th : threads)
        th.join();
    for (const auto& o : outs)
    {
        BOOST_TEST(o.compiled, o.error);
        BOOST_TEST(o.resources.registers > 0);
    }
}

BOOST_AUTO_TEST_CASE(cubin_symbols_skip_device_functions_and_garbage)
{
    const char* source = R"(
__device__ __noinline__ float helper(float* p, int i) { return p[i] * 2; }
extern "C" __global__ void foo(float* a) { a[0] = helper(a, 1); }
template <int N> __global__ void tk(float* a) { a[N] = 1; }
template __global__ void tk<3>(float*);
)";
    compile_output out = nvrtc_compiler().compile(request(source, "foo"));
    BOOST_TEST_REQUIRE(out.compiled, out.error);
    std::vector<std::string> entries = cubin_entry_points(out.cubin);
    std::sort(entries.begin(), entries.end());
    BOOST_TEST(entries == (std::vector<std::string>{"_Z2tkILi3EEvPf", "foo"}),
               boost::test_tools::per_element());

    BOOST_TEST(cubin_entry_points("").empty());
    BOOST_TEST(
        cubin_entry_points("not an elf file at all, just text long enough to pass size checks.....").empty());
    // Every truncation of a real cubin must be handled without reading out of bounds.
    for (std::size_t n = 0; n < out.cubin.size(); n += 97)
        cubin_entry_points(std::string_view(out.cubin).substr(0, n));
}

BOOST_AUTO_TEST_CASE(a_kernel_that_addresses_its_parameter_space_is_refused)
{
    // A __grid_constant__ parameter whose address is taken: ld.param at a register address reads the
    // driver's words below the parameters; passed on as a generic pointer, cvta.param reaches other
    // launches' parameter memory. Inline asm can do either directly.
    const std::vector<std::string> refused{
        R"(extern "C" __global__ void k(const __grid_constant__ int m, float* out)
{ const int* p = &m; out[threadIdx.x] = p[(int)threadIdx.x - 64]; })",
        R"(__device__ __noinline__ int peek(const int* p, int i) { return p[i]; }
extern "C" __global__ void k(const __grid_constant__ int m, float* out)
{ out[threadIdx.x] = peek(&m, (int)threadIdx.x - 64); })",
        R"(extern "C" __global__ void k(int m, float* out)
{ unsigned long long a; asm volatile("mov.b64 %0, k_param_0;" : "=l"(a)); unsigned v;
  asm volatile("ld.param.u32 %0, [%1+-64];" : "=r"(v) : "l"(a)); out[0] = v + m; })",
        // By name, outside the parameter: the driver's words below it, or the next launch's.
        R"(extern "C" __global__ void k(int m, float* out)
{ unsigned v; asm volatile("ld.param.u32 %0, [k_param_0+-64];" : "=r"(v)); out[0] = v + m; })",
        R"(extern "C" __global__ void k(int m, float* out)
{ unsigned v; asm volatile("ld.param.u32 %0, [k_param_1+8];" : "=r"(v)); out[0] = v + m; })",
    };
    for (const auto& source : refused)
    {
        const compile_output out = nvrtc_compiler().compile(request(source, "k"));
        BOOST_TEST(!out.compiled, source);
        BOOST_TEST(out.cubin.empty());
        BOOST_TEST(out.error.find("parameter space") != std::string::npos, out.error << "\n" << out.log);
    }
    // Parameters read by name, structs passed to device functions, and calls: all fine.
    const char* fine = R"(
struct s4 { int a[4]; };
__device__ __noinline__ float f(s4 s, int i) { return s.a[i & 3]; }
extern "C" __global__ void k(int m, float* out, const float* in)
{
    s4 s;
    for (int i = 0; i < 4; ++i)
        s.a[i] = m + i;
    out[threadIdx.x] = in[threadIdx.x] * m + f(s, threadIdx.x);
})";
    const compile_output ok = nvrtc_compiler().compile(request(fine, "k"));
    BOOST_TEST(ok.compiled, ok.error);
    BOOST_TEST(!ptx_parameter_space_refusal(
        "ld.param.u32 %r1, [k_param_0];\nld.param.v2.u32 {%r2, %r3}, [k_param_1+8];"));
    BOOST_TEST(ptx_parameter_space_refusal("ld.param.v2.u32 {%r2, %r3}, [%rd4+8];").has_value());
    BOOST_TEST(ptx_parameter_space_refusal("cvta.to.param.u64 %rd1, %rd2;").has_value());
    BOOST_TEST(ptx_parameter_space_refusal("st.param.b32 [ %rd1], %r1;").has_value());
    // Inside its own parameter by name: fine (a struct's words; 8 bytes of a pointer).
    const std::string entry =
        ".visible .entry k(\n\t.param .u32 k_param_0,\n\t.param .u64 .ptr .global .align 4 "
        "k_param_1,\n\t.param .align 4 .b8 k_param_2[16]\n)\n{\n";
    BOOST_TEST(!ptx_parameter_space_refusal(entry + "ld.param.u32 %r1, [k_param_0];\nld.param.u64 %rd1, "
                                                    "[k_param_1+4];\nld.param.u32 %r2, [k_param_2+12];\n}"));
    BOOST_TEST(ptx_parameter_space_refusal(entry + "ld.param.u32 %r2, [k_param_2+16];\n}").has_value());
    BOOST_TEST(ptx_parameter_space_refusal(entry + "ld.param.u32 %r2, [k_param_1+8];\n}").has_value());
    BOOST_TEST(ptx_parameter_space_refusal(entry + "ld.param.u32 %r2, [k_param_0 - 4];\n}").has_value());
    // Call parameters of device functions are not the kernel's.
    BOOST_TEST(!ptx_parameter_space_refusal(entry + "st.param.b32 [param0+12], %r1;\nld.param.f32 %f1, "
                                                    "[retval0+0];\n}"));
}

BOOST_AUTO_TEST_CASE(cubin_kernel_params_are_read_by_ordinal)
{
    // What the driver copies per parameter: a 4 KiB struct where a signature would have an int, a
    // short after an 8-byte one, and a kernel without parameters.
    const char* source = R"(
struct big { char b[4096]; };
extern "C" __global__ void k(int m, float s, const float* __restrict__ a, double d, big g, long long q,
                             short h)
{
    // g is not read: reading a struct parameter addresses parameter space through a register,
    // which the compiler refuses (a_kernel_that_addresses_its_parameter_space_is_refused).
    if (m < 0)
        *(float*)a = s + d + q + h;
}
extern "C" __global__ void none() {}
)";
    compile_output out = nvrtc_compiler().compile(request(source, "k"));
    BOOST_TEST_REQUIRE(out.compiled, out.error);
    const auto params = read_kernel_params(out.cubin, "k");
    BOOST_TEST_REQUIRE(params.has_value());
    BOOST_TEST_REQUIRE(params->size() == 7u);
    const std::vector<std::uint32_t> sizes{4, 4, 8, 8, 4096, 8, 2};
    const std::vector<std::uint32_t> offsets{0, 4, 8, 16, 24, 4120, 4128};
    for (std::size_t i = 0; i < sizes.size(); ++i)
    {
        BOOST_TEST((*params)[i].ordinal == i);
        BOOST_TEST((*params)[i].size == sizes[i], "parameter " << i);
        BOOST_TEST((*params)[i].offset == offsets[i], "parameter " << i);
    }
    const auto empty = read_kernel_params(out.cubin, "none");
    BOOST_TEST_REQUIRE(empty.has_value());
    BOOST_TEST(empty->empty());
    BOOST_TEST(!read_kernel_params(out.cubin, "absent").has_value());
    BOOST_TEST(!read_kernel_params("not an elf", "k").has_value());
    // Truncations are handled without reading out of bounds.
    for (std::size_t n = 0; n < out.cubin.size(); n += 89)
        (void)read_kernel_params(std::string_view(out.cubin).substr(0, n), "k");
}

BOOST_AUTO_TEST_SUITE_END()
