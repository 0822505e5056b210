// The CUDA driver layer on a real device (ctest label gpu; skipped without one): libcuda loaded at
// run time, named errors, RAII handles, a kernel compiled by NVRTC launched and timed, NVML clocks.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/cuda/nvml.hpp"

#include <boost/test/unit_test.hpp>

#include <vector>

using namespace warpsmith;

namespace
{

struct context_fixture
{
    cuda::primary_context context{0};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cuda_driver)

BOOST_AUTO_TEST_CASE(driver_loads_and_sees_a_device)
{
    std::string why;
    BOOST_TEST_REQUIRE(cuda::driver_available(&why), why);
    BOOST_TEST(cuda::device_count() >= 1);
    BOOST_TEST(cuda::driver().driver_version >= 12000);
}

BOOST_FIXTURE_TEST_CASE(a_missing_device_is_a_user_error, context_fixture)
{
    BOOST_CHECK_THROW(cuda::primary_context(cuda::device_count() + 5), user_error);
}

BOOST_FIXTURE_TEST_CASE(errors_carry_the_name_and_the_call, context_fixture)
{
    // Far more memory than any GPU has: a clean, non-sticky CUDA_ERROR_OUT_OF_MEMORY.
    try
    {
        cuda::device_buffer huge(std::size_t{1} << 50);
        BOOST_FAIL("a 1 PiB allocation succeeded");
    }
    catch (const cuda::cuda_error& e)
    {
        BOOST_TEST(e.name() == "CUDA_ERROR_OUT_OF_MEMORY");
        BOOST_TEST(e.call() == "cuMemAlloc");
        BOOST_TEST(!e.is_sticky());
        BOOST_TEST(std::string(e.what()).find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos);
        BOOST_TEST(e.code().category().name() == std::string("cuda"));
    }
    BOOST_TEST(!cuda::context_lost());
    // The context is still usable afterwards.
    cuda::device_buffer small(1024);
    BOOST_TEST(small.ptr() != 0u);
}

BOOST_FIXTURE_TEST_CASE(buffers_round_trip, context_fixture)
{
    std::vector<int> in(1000), out(1000, 0);
    for (int i = 0; i < 1000; ++i)
        in[i] = i * 7;
    cuda::device_buffer d(in.size() * sizeof(int));
    d.upload(in.data(), in.size() * sizeof(int));
    cuda::pinned_buffer host(in.size() * sizeof(int));
    WARPSMITH_CU(cuMemcpyDtoH, host.data(), d.ptr(), in.size() * sizeof(int));
    BOOST_TEST(std::equal(in.begin(), in.end(), host.as<int>()));
    cuda::device_buffer moved = std::move(d);
    BOOST_TEST(d.ptr() == 0u);
    BOOST_TEST(moved.ptr() != 0u);
    BOOST_CHECK_THROW(moved.upload(in.data(), 1 << 20), std::logic_error);
}

BOOST_FIXTURE_TEST_CASE(module_launch_and_events, context_fixture)
{
    const nvrtc_compiler compiler;
    compile_request req;
    req.source =
        "extern \"C\" __global__ void fill(int* x, int n, int v) { int i = blockIdx.x * blockDim.x + "
        "threadIdx.x;"
        " if (i < n) x[i] = v + i; }";
    req.entry = "fill";
    const compile_output out = compiler.compile(req);
    BOOST_TEST_REQUIRE(out.compiled, out.log);
    cuda::module m = cuda::module::load(out.cubin);
    BOOST_TEST(m.find_function("nope") == nullptr);
    BOOST_CHECK_THROW(m.function("nope"), cuda::cuda_error);
    CUfunction f = m.function("fill");
    cuda::stream s;
    cuda::event start, stop;
    const int n = 100000;
    cuda::device_buffer d(n * sizeof(int));
    CUdeviceptr p = d.ptr();
    int nn = n, v = 5;
    void* args[] = {&p, &nn, &v};
    start.record(s.get());
    WARPSMITH_CU(cuLaunchKernel, f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s.get(), args, nullptr);
    stop.record(s.get());
    WARPSMITH_CU(cuStreamSynchronize, s.get());
    BOOST_TEST(cuda::event::elapsed_ms(start, stop) > 0.0f);
    std::vector<int> host(n);
    WARPSMITH_CU(cuMemcpyDtoH, host.data(), d.ptr(), n * sizeof(int));
    for (int i = 0; i < n; i += 997)
        BOOST_TEST(host[i] == 5 + i);
    BOOST_TEST(cuda::function_attribute(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) >= 256);
}

BOOST_FIXTURE_TEST_CASE(nvml_clocks_are_optional, context_fixture)
{
    char pci[64] = {};
    WARPSMITH_CU(cuDeviceGetPCIBusId, pci, 63, context.device());
    cuda::nvml_clocks nvml(pci);
    const cuda::clock_reading r = nvml.read();
    if (nvml.available())
    {
        BOOST_TEST(r.sm_mhz.has_value());
        BOOST_TEST(r.mem_mhz.has_value());
        BOOST_TEST(*r.sm_mhz > 0);
    }
    else
    {
        BOOST_TEST_MESSAGE("NVML unavailable: " << nvml.unavailable_reason());
        BOOST_TEST(!r.sm_mhz.has_value());
    }
}

BOOST_AUTO_TEST_SUITE_END()
