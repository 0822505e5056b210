// What the worker does against state kept between launches, where it needs no GPU: reading a
// cubin's module data and undefined functions (NVRTC compiles without a device), the device-heap
// refusal, the launch-hygiene kernels compiling with the frames they need, the choice of checked
// timed launches, and allocation rounding. The GPU side is in tests/harness/gpu/test_worker_gpu.cpp
// and tests/cheats.

#include "harness/compile/compile_options.hpp"
#include "harness/compile/cubin_symbols.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/json_file.hpp"
#include "harness/timing/timing_stats.hpp"
#include "harness/worker/device_buffers.hpp"
#include "harness/worker/kernel_launch.hpp"
#include "harness/worker/launch_hygiene.hpp"
#include "harness/worker/timer.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <regex>
#include <set>

using namespace warpsmith;
using namespace warpsmith::worker;

namespace
{

compile_output compile(const std::string& source, const std::string& entry = "k")
{
    compile_request r;
    r.source = source;
    r.entry = entry;
    r.arch = "sm_90";
    r.name = "state.cu";
    const compile_output out = nvrtc_compiler().compile(r);
    BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
    return out;
}

const cubin_data_symbol* symbol(const cubin_inventory& inv, const std::string& name)
{
    for (const cubin_data_symbol& s : inv.symbols)
        if (s.name == name)
            return &s;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(launch_state)

BOOST_AUTO_TEST_CASE(inventory_lists_every_kind_of_module_data)
{
    const compile_output out = compile(R"(
__device__ int zeroed[100];
__device__ int initialised[4] = {1, 2, 3, 4};
static __device__ long file_static[3];
__constant__ float bank[8];
namespace ns { __device__ double in_namespace; }
extern "C" __global__ void k(int* out, int n)
{
    zeroed[threadIdx.x] += n; initialised[0]++; file_static[1]++; ns::in_namespace += 1.0;
    out[0] = zeroed[0] + (int)bank[n] + initialised[1] + (int)file_static[1];
})");
    const cubin_inventory inv = read_cubin_inventory(out.cubin);
    BOOST_TEST_REQUIRE(inv.valid);
    for (const char* name : {"zeroed", "initialised", "file_static", "bank"})
        BOOST_TEST(symbol(inv, name) != nullptr, name);
    const cubin_data_symbol* z = symbol(inv, "zeroed");
    BOOST_TEST_REQUIRE(z != nullptr);
    BOOST_TEST(z->size == 400u);
    BOOST_TEST(inv.sections[z->section].writable);
    BOOST_TEST(inv.sections[z->section].name.starts_with(".nv.global"));
    const cubin_data_symbol* b = symbol(inv, "bank");
    BOOST_TEST_REQUIRE(b != nullptr);
    BOOST_TEST(inv.sections[b->section].name == ".nv.constant3");
    // The namespaced variable is there under its mangled name, which cuModuleGetGlobal takes.
    BOOST_TEST(std::any_of(inv.symbols.begin(),
                           inv.symbols.end(),
                           [](const cubin_data_symbol& s)
                           { return s.name.find("in_namespace") != std::string::npos; }));
    BOOST_TEST(device_heap_refusal(inv).empty());
    // Entry points still come out of the same tables.
    BOOST_TEST(cubin_entry_points(out.cubin) == std::vector<std::string>{"k"});
}

BOOST_AUTO_TEST_CASE(a_kernel_without_globals_has_no_data_symbols)
{
    const compile_output out =
        compile(R"(extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; })");
    const cubin_inventory inv = read_cubin_inventory(out.cubin);
    BOOST_TEST_REQUIRE(inv.valid);
    BOOST_TEST(inv.symbols.empty());
    BOOST_TEST(device_heap_refusal(inv).empty());
}

BOOST_AUTO_TEST_CASE(malloc_free_new_and_delete_are_refused)
{
    for (const char* body :
         {"int* p = (int*)malloc(16); p[0] = n; out[0] = p[0]; free(p);",
          "int* p = new int[4]; p[0] = n; out[0] = p[0]; delete[] p;",
          "static __device__ int* keep; if (!keep) keep = (int*)malloc(64); out[0] = keep[0];"})
    {
        const compile_output out =
            compile(std::string("extern \"C\" __global__ void k(int* out, int n) { ") + body + " }");
        const cubin_inventory inv = read_cubin_inventory(out.cubin);
        BOOST_TEST_REQUIRE(inv.valid);
        const std::string why = device_heap_refusal(inv);
        BOOST_TEST(why.find("device-side heap") != std::string::npos, body << ": " << why);
    }
    // printf is an undefined function too, and allowed.
    const compile_output p =
        compile(R"(extern "C" __global__ void k(int n) { if (n < 0) printf("%d\n", n); })");
    const cubin_inventory inv = read_cubin_inventory(p.cubin);
    BOOST_TEST(std::count(inv.undefined_functions.begin(), inv.undefined_functions.end(), "vprintf") == 1);
    BOOST_TEST(device_heap_refusal(inv).empty());
}

BOOST_AUTO_TEST_CASE(managed_variables_are_marked)
{
    const compile_output out =
        compile(R"(__managed__ int m; extern "C" __global__ void k(int* o) { o[0] = m++; })");
    const cubin_inventory inv = read_cubin_inventory(out.cubin);
    const cubin_data_symbol* m = symbol(inv, "m");
    BOOST_TEST_REQUIRE(m != nullptr);
    BOOST_TEST(m->is_managed());
}

BOOST_AUTO_TEST_CASE(malformed_cubins_give_an_invalid_inventory)
{
    BOOST_TEST(!read_cubin_inventory("").valid);
    BOOST_TEST(!read_cubin_inventory("not an elf file, long enough to pass every size check ........").valid);
    const compile_output out =
        compile(R"(__device__ int g; extern "C" __global__ void k(int* o) { o[0] = g++; })");
    for (std::size_t n : {std::size_t(64), out.cubin.size() / 2, out.cubin.size() - 1})
        (void)read_cubin_inventory(std::string_view(out.cubin).substr(0, n));  // Must not crash.
}

BOOST_AUTO_TEST_CASE(hygiene_kernels_compile_with_the_frames_they_need)
{
    const compile_output out = nvrtc_compiler().compile(launch_hygiene_request("sm_90"));
    BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
    for (const char* entry : {"ws_scrub_sm",
                              "ws_scrub_local_64",
                              "ws_scrub_local_256",
                              "ws_scrub_local_1k",
                              "ws_scrub_local_4k",
                              "ws_scrub_local_16k",
                              "ws_digest",
                              "ws_digest_regions"})
        BOOST_TEST((std::find(out.entries.begin(), out.entries.end(), entry) != out.entries.end()), entry);
    // The local scrubbers must have stack frames of exactly their size (a volatile array the
    // compiler could not keep in registers, and nothing else: the array's start is where the
    // context's local allocation starts); ptxas reports "N bytes stack frame" per function.
    const std::regex frame(
        R"(Function properties for (ws_scrub_local_\w+)\s*\n[^\n]*?(\d+) bytes stack frame)");
    std::set<std::string> seen;
    for (auto it = std::sregex_iterator(out.log.begin(), out.log.end(), frame); it != std::sregex_iterator();
         ++it)
    {
        const std::string name = (*it)[1].str();
        const int bytes = std::stoi((*it)[2].str());
        const int want = name.ends_with("_64")    ? 64
                         : name.ends_with("_256") ? 256
                         : name.ends_with("_1k")  ? 1024
                         : name.ends_with("_4k")  ? 4096
                                                  : 16384;
        BOOST_TEST(bytes == want, name << ": " << bytes);
        seen.insert(name);
    }
    BOOST_TEST(seen.size() == 5u, out.log);
    BOOST_TEST(launch_hygiene_source().find("#include") == std::string::npos);
}

// Adaptive timing: a case may end after any segment, so every segment has its own checks: 8 in
// the first, 2 in each later one for 100 launches (at most 16 besides the last in all).
BOOST_AUTO_TEST_CASE(segmented_checks_cover_every_segment_a_case_may_end_after)
{
    const auto in_segment = [](const std::vector<std::size_t>& p, std::size_t begin, std::size_t end)
    { return std::count_if(p.begin(), p.end(), [&](std::size_t x) { return x >= begin && x < end; }); };
    std::mt19937_64 rng(11);
    const std::vector<std::size_t> p = segmented_checked_positions(100, 20, rng);
    BOOST_TEST_REQUIRE(p.size() == 17u);
    BOOST_TEST(std::is_sorted(p.begin(), p.end()));
    BOOST_TEST(std::set<std::size_t>(p.begin(), p.end()).size() == 17u);
    BOOST_TEST(p.back() == 99u);
    BOOST_TEST(in_segment(p, 0, 20) == 8);
    for (std::size_t k = 1; k < 5; ++k)
        BOOST_TEST(in_segment(p, k * 20, k * 20 + 20 - (k == 4 ? 1 : 0)) == 2, "segment " << k);
    // Other draws check other launches, and every launch is checked sometimes.
    std::set<std::size_t> ever;
    std::mt19937_64 many(12);
    bool differs = false;
    for (int i = 0; i < 400; ++i)
    {
        const std::vector<std::size_t> q = segmented_checked_positions(100, 20, many);
        differs = differs || q != p;
        BOOST_TEST(q.size() == 17u);
        ever.insert(q.begin(), q.end());
    }
    BOOST_TEST(differs);
    BOOST_TEST(ever.size() == 100u);
    // Many segments share the later budget of 8 (one each on 8 of them), never more than 16 + 1.
    std::mt19937_64 wide(13);
    const std::vector<std::size_t> w = segmented_checked_positions(1000, 20, wide);
    BOOST_TEST(w.size() == 17u);
    BOOST_TEST(in_segment(w, 0, 20) == 8);
    BOOST_TEST(w.back() == 999u);
    // Two segments: both later checks... at most 2 in the second; one short segment; tiny counts.
    std::mt19937_64 few(14);
    const std::vector<std::size_t> two = segmented_checked_positions(40, 20, few);
    BOOST_TEST(two.size() == 11u);
    BOOST_TEST(in_segment(two, 20, 39) == 2);
    BOOST_TEST(segmented_checked_positions(21, 20, few).size() == 9u);
    BOOST_TEST((segmented_checked_positions(5, 20, few) == std::vector<std::size_t>{0, 1, 2, 3, 4}));
    BOOST_TEST(segmented_checked_positions(0, 20, few).empty());
    // Never more than the check area's timed slots.
    for (std::size_t n : {1u, 19u, 20u, 21u, 59u, 60u, 100u, 101u, 333u, 5000u})
        BOOST_TEST(segmented_checked_positions(n, 20, few).size() <=
                   static_cast<std::size_t>(case_store::check_slots - 2));
}

BOOST_AUTO_TEST_CASE(checked_positions_are_a_sample_plus_the_last)
{
    BOOST_TEST(sampled_checks(100) == 8u);
    BOOST_TEST(sampled_checks(10) == 8u);
    BOOST_TEST(sampled_checks(150) == 12u);
    BOOST_TEST(sampled_checks(1000) == 16u);
    std::mt19937_64 rng(1);
    const std::vector<std::size_t> p = checked_positions(100, 100, 8, rng);
    BOOST_TEST_REQUIRE(p.size() == 9u);
    BOOST_TEST(std::is_sorted(p.begin(), p.end()));
    BOOST_TEST(std::set<std::size_t>(p.begin(), p.end()).size() == 9u);
    BOOST_TEST(p.back() == 99u);
    BOOST_TEST(p[7] < 99u);
    // Another draw checks other launches (unpredictable to a kernel).
    std::mt19937_64 other(2);
    BOOST_TEST((checked_positions(100, 100, 8, other) != p));
    // A horizon (adaptive stopping) keeps the sample inside it.
    std::mt19937_64 h(3);
    const std::vector<std::size_t> within = checked_positions(100, 20, 8, h);
    BOOST_TEST(within.size() == 9u);
    BOOST_TEST(within[7] < 19u);
    // Few launches: every one checked, none twice.
    std::mt19937_64 f(4);
    BOOST_TEST((checked_positions(5, 5, 8, f) == std::vector<std::size_t>{0, 1, 2, 3, 4}));
    BOOST_TEST((checked_positions(1, 1, 8, f) == std::vector<std::size_t>{0}));
    BOOST_TEST(checked_positions(0, 0, 8, f).empty());
    // Every position gets checked sometimes.
    std::set<std::size_t> ever;
    std::mt19937_64 many(5);
    for (int i = 0; i < 400; ++i)
        for (std::size_t x : checked_positions(100, 100, 8, many))
            ever.insert(x);
    BOOST_TEST(ever.size() == 100u);
}

BOOST_AUTO_TEST_CASE(the_first_adaptive_decision_can_stop_a_quiet_case)
{
    // The first decision sees a segment but its launches still running; noise_below must accept
    // that many (run AE: with its default floor of 20 the first decision never stopped, and every
    // case took 41 launches instead of 21).
    const std::size_t n = first_decision_samples;
    BOOST_TEST(n + decision_in_flight_launches == static_cast<std::size_t>(timing_segment_launches));
    BOOST_TEST(noise_below(std::vector<double>(n, 100.0), 0.01, first_decision_samples));
    BOOST_TEST(!noise_below(std::vector<double>(n - 1, 100.0), 0.01, first_decision_samples));
}

BOOST_AUTO_TEST_CASE(warm_up_stops_at_its_budget_of_the_validated_time_but_never_below_one_launch)
{
    // A 10 us kernel gets every requested warm-up launch; a 3 ms SGEMM one (2 ms budget).
    BOOST_TEST(warmup_launches(10, 0.010) == 10);
    BOOST_TEST(warmup_launches(10, 3.0) == 1);
    BOOST_TEST(warmup_launches(10, 0.5) == 4);
    BOOST_TEST(warmup_launches(10, 0.3) == 7);  // ceil(2 / 0.3): the budget is reached, not undershot
    BOOST_TEST(warmup_launches(10, warmup_budget_ms) == 1);
    BOOST_TEST(warmup_launches(10, 1000.0) == 1);
    // Unknown time (the cuBLAS baseline, a failed measurement): the whole request.
    BOOST_TEST(warmup_launches(10, 0.0) == 10);
    BOOST_TEST(warmup_launches(3, -1.0) == 3);
    // None requested is none, whatever the time.
    BOOST_TEST(warmup_launches(0, 0.010) == 0);
    BOOST_TEST(warmup_launches(0, 0.0) == 0);
    BOOST_TEST(warmup_launches(-2, 5.0) == 0);
    // Never more than requested.
    BOOST_TEST(warmup_launches(2, 0.001) == 2);
}

BOOST_AUTO_TEST_CASE(case_store_allocations_are_whole_pages)
{
    BOOST_TEST(whole_pages(1) == allocation_page);
    BOOST_TEST(whole_pages(allocation_page) == allocation_page);
    BOOST_TEST(whole_pages(allocation_page + 1) == 2 * allocation_page);
    BOOST_TEST(whole_pages(0) == allocation_page);
}

BOOST_AUTO_TEST_CASE(every_shipped_kernel_declares_its_signature)
{
    // The worker refuses a kernel whose parameters differ from the signature (parameter_mismatch):
    // every reference and initial kernel of the repository's workloads, and every cheat (whose
    // expected outcome is something else), must pass that check.
    namespace fs = std::filesystem;
    const fs::path root = test::source_dir();
    auto check = [](const candidate& c,
                    const workload& w,
                    const std::string& what,
                    bool must_compile = true,
                    bool must_match = true)
    {
        compile_request r;
        r.source = c.source;
        r.entry = c.entry;
        r.options = define_options(c.defines);
        r.arch = "sm_90";
        const compile_output out = nvrtc_compiler().compile(r);
        if (!must_compile && !out.compiled)
            return;  // a candidate that is there to fail its compile
        BOOST_TEST_REQUIRE(out.compiled, what << ": " << out.error);
        loaded_kernel k;
        k.entry = c.entry;
        k.params = read_kernel_params(out.cubin, c.entry);
        BOOST_TEST(parameter_mismatch(k, w.sig).empty() == must_match,
                   what << ": " << parameter_mismatch(k, w.sig));
    };
    int workloads = 0;
    for (const char* top : {"bench/workloads", "tests", "examples"})
    {
        if (!fs::exists(root / top))
            continue;
        for (const auto& e : fs::recursive_directory_iterator(root / top))
        {
            if (e.path().filename() != "workload.json")
                continue;
            std::optional<workload> w;
            try
            {
                w = workload::load(e.path().parent_path());
            }
            catch (const std::exception&)
            {
                continue;  // a deliberately broken workload of a test
            }
            ++workloads;
            check(candidate::from_kernel(w->reference), *w, e.path().string() + " reference");
            if (w->initial)
                check(candidate::from_kernel(*w->initial), *w, e.path().string() + " initial");
        }
    }
    BOOST_TEST(workloads >= 6);
    int cheats = 0;
    for (const char* file : {"tests/cheats/cheats.json", "tests/cheats/hardening/hardening.json"})
    {
        const boost::json::value manifest = read_json_file(root / file);
        const boost::json::array& entries =
            manifest.is_array() ? manifest.as_array() : manifest.at("cheats").as_array();
        for (const auto& c : entries)
        {
            const auto& o = c.as_object();
            const workload w = workload::load(root / std::string(o.at("workload").as_string()));
            candidate cand;
            cand.source = read_text_file(root / std::string(o.at("file").as_string()));
            cand.entry = std::string(o.at("entry").as_string());
            // A cheat that is there to be refused for its parameters must differ from the signature.
            const auto* expect = o.if_contains("expect");
            const bool refused = expect && expect->is_string() && expect->as_string() == "bad_launch";
            check(cand, w, std::string(o.at("file").as_string()), true, !refused);
            ++cheats;
        }
    }
    BOOST_TEST(cheats >= 40);
    // Candidate directories beside their workloads (optimize --provider scripted --candidates).
    for (const auto& [dir, wdir] : std::vector<std::pair<std::string, std::string>>{
             {"bench/suites/smoke/candidates", "bench/suites/smoke/vadd"},
             {"bench/workloads/sgemm/candidates", "bench/workloads/sgemm"},
             {"tests/engine/run/data/candidates", "tests/engine/run/data/vadd"},
             {"tests/engine/executors/data/vadd", "tests/engine/executors/data/vadd"}})
    {
        const workload w = workload::load(root / wdir);
        for (const auto& e : fs::directory_iterator(root / dir))
        {
            if (e.path().extension() != ".cu")
                continue;
            candidate cand;
            cand.source = read_text_file(e.path());
            cand.entry = w.sig.entry;
            check(cand, w, e.path().string(), false);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
