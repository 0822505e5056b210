// The seal over every case at rest (case_store::retire, case_store::seal_digest; docs/hardening.md,
// "State between launches"), in process on the GPU (ctest label gpu, skipped without a device).
//
// A kernel that keeps a memo in memory that is not its own to write (another case's buffers, the
// harness's snapshot of an output, a guard of a case that is not running) must be seen when the
// evaluation ends, and the harness's own use of a case between the two digests (prepare, launches'
// output refreshes, retire) must not be. The stray writes here are made with cuMemset from the host,
// at exactly the addresses a kernel that found them would write to.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/worker/case_store.hpp"
#include "harness/worker/comparator_kernels.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/worker/launch_hygiene.hpp"
#include "harness/workload/workload.hpp"
#include "tests/harness/worker/worker_test_support.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>

using namespace warpsmith;
using namespace warpsmith::worker;
using namespace std::chrono_literals;

namespace
{

struct store_fixture
{
    gpu_device device{0};
    nvrtc_compiler compiler;
    std::unique_ptr<helper_kernels> helpers;
    std::unique_ptr<launch_hygiene> hygiene;
    std::unique_ptr<case_store> store;
    std::uint32_t phase = 7;

    store_fixture()
    {
        const compile_output out = compiler.compile(helper_kernels_request(device.arch()));
        BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
        helpers = std::make_unique<helper_kernels>(
            out.cubin, device.limits().sm_count, device.limits().shared_per_block_optin);
        hygiene = std::make_unique<launch_hygiene>(compiler, device);
        store = std::make_unique<case_store>(
            device,
            *helpers,
            compiler,
            workload::from_json(test::vector_add_workload("float32", 1 << 20), ".", "vadd"),
            1234,
            5000ms);
        BOOST_TEST_REQUIRE(store->seal_regions() > 0);
    }

    CUstream s() const { return device.stream(); }
    void sync() const { WARPSMITH_CU(cuStreamSynchronize, s()); }

    case_data& named(const std::string& name)
    {
        case_data* c = store->find(name);
        BOOST_TEST_REQUIRE(c != nullptr);
        return *c;
    }

    const buffer_slot& output_of(case_data& c)
    {
        for (const buffer_slot& b : c.buffers)
            if (b.is_output())
                return b;
        BOOST_FAIL("no output buffer");
        return c.buffers.front();
    }

    /// Begins an "evaluation": every case at rest, the first digest.
    void begin()
    {
        store->retire_all(s());
        store->seal_digest(*hygiene, s(), phase, 0);
    }

    /// Ends it as the evaluator does, the case that ran retired first; returns seal_broken().
    std::string end(case_data* ran)
    {
        if (ran)
            store->retire(*ran, s());
        store->seal_digest(*hygiene, s(), phase, 1);
        sync();
        return store->seal_broken();
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(seal_gpu, store_fixture)

BOOST_AUTO_TEST_CASE(the_harness_using_a_case_leaves_the_seal_intact)
{
    case_data& perf = named("perf");
    begin();
    // What validation does to the case that runs: inputs copied in, outputs poisoned and then
    // written (here by a memset standing in for the kernel), guards refilled, the stated run's
    // output snapshotted and, once the repeat run agreed, the snapshot poisoned.
    store->prepare(perf, input_set::hidden, s());
    const buffer_slot& c = output_of(perf);
    WARPSMITH_CU(cuMemsetD32Async, c.working.payload(), 0x3F800000u, c.bytes / 4, s());
    WARPSMITH_CU(cuMemsetD32Async, c.snapshot.ptr(), 0x3F800000u, c.bytes / 4, s());
    store->poison_snapshots(perf, s());
    // What timing does: fresh outputs before every launch, the launch writes them.
    store->refresh_outputs(perf, s());
    WARPSMITH_CU(cuMemsetD32Async, c.working.payload(), 0x40000000u, c.bytes / 4, s());
    BOOST_TEST(end(&perf) == "");
}

BOOST_AUTO_TEST_CASE(a_memo_in_another_cases_buffer_breaks_the_seal)
{
    // Timing "perf", a kernel keeps its output in odd-large's output buffer (nobody looks at it
    // until odd-large is validated again, which prepares it afresh).
    case_data& perf = named("perf");
    case_data& other = named("odd-large");
    begin();
    store->prepare(perf, input_set::stated, s());
    const buffer_slot& c = output_of(other);
    WARPSMITH_CU(cuMemsetD32Async, c.working.payload() + 4096, 0x3F800000u, 1024, s());
    const std::string broken = end(&perf);
    BOOST_TEST(broken.find("buffer 'c' of case odd-large") != std::string::npos, broken);
    BOOST_TEST(broken.find("at rest") != std::string::npos, broken);
}

BOOST_AUTO_TEST_CASE(a_memo_in_an_input_of_another_case_breaks_the_seal)
{
    case_data& perf = named("perf");
    case_data& other = named("odd-small");
    begin();
    const buffer_slot& a = other.buffers.front();
    WARPSMITH_CU(cuMemsetD32Async, a.working.payload(), 0x12345678u, a.bytes / 4, s());
    const std::string broken = end(&perf);
    BOOST_TEST(broken.find("buffer 'a' of case odd-small") != std::string::npos, broken);
}

BOOST_AUTO_TEST_CASE(a_memo_in_the_harness_snapshot_breaks_the_seal)
{
    // The snapshot of perf's output is only used between its stated and repeat validation runs;
    // during timing it is at rest, and putting perf back to rest after its timing (end) must not
    // wipe a memo kept there.
    case_data& perf = named("perf");
    begin();
    const buffer_slot& c = output_of(perf);
    WARPSMITH_CU(cuMemsetD32Async, c.snapshot.ptr() + 8192, 0x3F800000u, 4096, s());
    const std::string broken = end(&perf);
    BOOST_TEST(broken.find("snapshot of 'c' of case perf") != std::string::npos, broken);
}

BOOST_AUTO_TEST_CASE(eight_bytes_in_a_resting_guard_break_the_seal)
{
    case_data& perf = named("perf");
    case_data& other = named("odd-small");
    begin();
    const buffer_slot& c = output_of(other);
    WARPSMITH_CU(cuMemsetD32Async, c.working.base() + 1000, 0u, 2, s());
    const std::string broken = end(&perf);
    BOOST_TEST(broken.find("the guard before buffer 'c' of case odd-small") != std::string::npos, broken);
}

BOOST_AUTO_TEST_CASE(a_changed_guard_is_counted_once_and_put_back)
{
    // Between checked launches a launch changes 3 bytes of a tail guard: the next refill counts
    // them and puts the fill byte back, so the refill after counts nothing and the seal holds.
    case_data& perf = named("perf");
    begin();
    (void)store->take_unchecked_guard_damage(s());
    store->prepare(perf, input_set::stated, s());
    const buffer_slot& c = output_of(perf);
    WARPSMITH_CU(cuMemsetD8Async, c.working.tail_guard() + 5000, 0, 3, s());
    store->refresh_guards(perf, s());
    const std::string damage = store->take_unchecked_guard_damage(s());
    BOOST_TEST(damage == "the guard after buffer 'c' of case perf: 3 bytes", damage);
    store->refresh_guards(perf, s());
    BOOST_TEST(store->take_unchecked_guard_damage(s()) == "");
    BOOST_TEST(end(&perf) == "");
}

BOOST_AUTO_TEST_CASE(the_sm_scrub_wipes_the_reserved_shared_window)
{
    // Kernels without any shared memory of their own store a mark at every word of their block's
    // reserved shared window (absolute shared addresses [0, 1 KiB)) and count, at their next
    // launch, the words that still hold it. Left alone the marks survive (the channel exists: cheat
    // 27, docs/hardening.md); after either shared-memory scrub, one of which every launch of a
    // candidate gets first, none does.
    const char* source = R"(
#define WINDOW_WORDS 256u
extern "C" __global__ void mark(unsigned v)
{
    for (unsigned w = threadIdx.x; w < WINDOW_WORDS; w += blockDim.x)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(w * 4), "r"(v ^ w) : "memory");
}
extern "C" __global__ void count(unsigned v, unsigned* same)
{
    for (unsigned w = threadIdx.x; w < WINDOW_WORDS; w += blockDim.x)
    {
        unsigned x;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(w * 4) : "memory");
        if (x == (v ^ w))
            atomicAdd(same, 1u);
    }
}
)";
    compile_request request;
    request.source = source;
    request.entry = "mark";
    request.arch = device.arch();
    request.name = "reserved_window_probe.cu";
    const compile_output out = compiler.compile(request);
    BOOST_TEST_REQUIRE(out.compiled, out.error << "\n" << out.log);
    const cuda::module probe = cuda::module::load(out.cubin);
    CUfunction mark = probe.function("mark");
    CUfunction count = probe.function("count");
    cuda::device_buffer same(sizeof(unsigned));
    const unsigned blocks = static_cast<unsigned>(device.limits().sm_count);
    enum class scrub
    {
        none,
        timing,      // launch_hygiene::scrub_sm, before every measured launch
        validation,  // helper_kernels::scrub_shared_memory, before every validation run
    };
    const auto survivors = [&](unsigned v, scrub how)
    {
        WARPSMITH_CU(cuMemsetD32Async, same.ptr(), 0u, 1, s());
        void* mark_args[] = {&v};
        WARPSMITH_CU(cuLaunchKernel, mark, blocks, 1, 1, 256, 1, 1, 0, s(), mark_args, nullptr);
        if (how == scrub::timing)
            hygiene->scrub_sm(s(), v);
        else if (how == scrub::validation)
            helpers->scrub_shared_memory(s(), v);
        CUdeviceptr p = same.ptr();
        void* count_args[] = {&v, &p};
        WARPSMITH_CU(cuLaunchKernel, count, blocks, 1, 1, 256, 1, 1, 0, s(), count_args, nullptr);
        sync();
        unsigned n = 0;
        WARPSMITH_CU(cuMemcpyDtoH, &n, same.ptr(), sizeof n);
        return n;
    };
    const unsigned left_alone = survivors(0x5EED0001u, scrub::none);
    BOOST_TEST_MESSAGE("reserved window: " << left_alone << " of " << blocks * 256
                                           << " words survive to the next launch");
    BOOST_TEST(left_alone > 0u);
    BOOST_TEST(survivors(0x5EED0002u, scrub::timing) == 0u);
    BOOST_TEST(survivors(0x5EED0003u, scrub::validation) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
