// launch_hygiene_bench: what each protection against state kept between launches costs on the
// GPU, per launch (docs/hardening.md "State between launches", docs/performance.md). Every
// figure is the median event time of `--n` repetitions of one wipe queued alone on the stream:
//
//   l2 scrub (memset)        the previous cold-mode scrub: a memset over the L2 size
//   l2 + SM scrub (kernel)   its replacement: one kernel that also fills every SM's shared memory
//   SM scrub only            the hot-mode wipe before every measured launch
//   local scrub B            the local-window wipe for a candidate with a B-byte frame
//   globals restore B        module_state::restore of a module with B bytes of __device__ data
//   seal digest MiB          the sampled digest of that much sealed memory (taken twice a candidate)
//   hot read after ...       a kernel that reads 32 MiB (L2-resident when hot) timed alone, right
//                            after its previous launch, after the SM scrub, and after the SM and
//                            local scrubs (what hot mode measures now): how warm the wipes leave L2
//
// Performance figures live here, never in tests (SPEC §9).

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/worker/kernel_launch.hpp"
#include "harness/worker/launch_hygiene.hpp"
#include "harness/worker/timer.hpp"
#include "harness/worker/watchdog.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace warpsmith;
using namespace warpsmith::worker;
using namespace std::chrono_literals;

namespace
{

double median_us(const gpu_device& device, int n, const std::function<void(CUstream)>& work)
{
    const CUstream s = device.stream();
    work(s);  // first use outside the measurement
    wait_for_stream(s, 10s, "warm-up");
    std::vector<double> us;
    cuda::event start, stop;
    for (int i = 0; i < n; ++i)
    {
        start.record(s);
        work(s);
        stop.record(s);
        wait_for_stream(s, 10s, "measurement");
        us.push_back(1000.0 * cuda::event::elapsed_ms(start, stop));
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

loaded_kernel globals_module(const nvrtc_compiler& compiler, const std::string& arch, std::size_t bytes)
{
    compile_request r;
    r.source = "__device__ unsigned char g[" + std::to_string(bytes) +
               "]; extern \"C\" __global__ void k(int i) { g[i] += 1; }";
    r.entry = "k";
    r.arch = arch;
    r.name = "globals.cu";
    const compile_output out = compiler.compile(r);
    if (!out.compiled)
        throw std::runtime_error(out.error + "\n" + out.log);
    std::string why;
    std::optional<loaded_kernel> k = load_kernel(out.cubin, "k", why);
    if (!k)
        throw std::runtime_error(why);
    return std::move(*k);
}

// Event time of `work` alone, with `before` queued ahead of it outside the events.
double median_after_us(const gpu_device& device,
                       int n,
                       const std::function<void(CUstream)>& before,
                       const std::function<void(CUstream)>& work)
{
    const CUstream s = device.stream();
    std::vector<double> us;
    cuda::event start, stop;
    for (int i = 0; i <= n; ++i)
    {
        before(s);
        start.record(s);
        work(s);
        stop.record(s);
        wait_for_stream(s, 10s, "measurement");
        if (i > 0)
            us.push_back(1000.0 * cuda::event::elapsed_ms(start, stop));
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

loaded_kernel reader_module(const nvrtc_compiler& compiler, const std::string& arch)
{
    compile_request r;
    r.source = R"(extern "C" __global__ void rd(const uint4* p, unsigned long long n, unsigned* out)
{
    unsigned acc = 0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
    {
        const uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678u) *out = acc;
})";
    r.entry = "rd";
    r.arch = arch;
    r.name = "reader.cu";
    const compile_output out = compiler.compile(r);
    if (!out.compiled)
        throw std::runtime_error(out.error + "\n" + out.log);
    std::string why;
    std::optional<loaded_kernel> k = load_kernel(out.cubin, "rd", why);
    if (!k)
        throw std::runtime_error(why);
    return std::move(*k);
}

}  // namespace

int main(int argc, char** argv)
{
    int n = 200;
    int ordinal = 0;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a == "--n" && i + 1 < argc)
            n = std::stoi(argv[++i]);
        else if (a == "--device" && i + 1 < argc)
            ordinal = std::stoi(argv[++i]);
        else
        {
            std::printf("Usage: launch_hygiene_bench [--n N] [--device K]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    try
    {
        gpu_device device(ordinal);
        const nvrtc_compiler compiler;
        const launch_hygiene hygiene(compiler, device);
        const device_limits& l = device.limits();
        std::printf("%s, %d SMs, L2 %.1f MiB, %d bytes shared per block (opt-in); median of %d\n\n",
                    device.name().c_str(),
                    l.sm_count,
                    static_cast<double>(l.l2_bytes) / (1 << 20),
                    l.shared_per_block_optin,
                    n);
        std::printf("%-34s %10s\n", "wipe (queued alone)", "us");

        const std::size_t l2 = std::max<std::size_t>(l.l2_bytes, 1 << 20) / 16 * 16;
        cuda::device_buffer scrub(l2);
        std::uint32_t seed = 1;
        std::printf(
            "%-34s %10.2f\n",
            "l2 scrub (memset, before)",
            median_us(device,
                      n,
                      [&](CUstream s) { WARPSMITH_CU(cuMemsetD32Async, scrub.ptr(), ++seed, l2 / 4, s); }));
        std::printf("%-34s %10.2f\n",
                    "l2 + SM scrub (kernel, now)",
                    median_us(device, n, [&](CUstream s) { hygiene.scrub_sm(s, ++seed, scrub.ptr(), l2); }));
        std::printf("%-34s %10.2f\n",
                    "SM scrub only (hot mode)",
                    median_us(device, n, [&](CUstream s) { hygiene.scrub_sm(s, ++seed); }));
        {
            // How warm L2 stays in hot mode: 32 MiB read right after its previous read, after the
            // shared-memory scrub, and after both scrubs (before the frames below grow the wipe).
            const loaded_kernel rd = reader_module(compiler, device.arch());
            cuda::device_buffer data(32 << 20);
            WARPSMITH_CU(cuMemsetD32Async, data.ptr(), 1, (32 << 20) / 4, device.stream());
            cuda::device_buffer sink(4);
            CUdeviceptr p = data.ptr(), o = sink.ptr();
            unsigned long long vectors = (32ull << 20) / 16;
            void* args[] = {&p, &vectors, &o};
            const auto read = [&](CUstream s)
            {
                WARPSMITH_CU(cuLaunchKernel,
                             rd.function,
                             static_cast<unsigned>(l.sm_count * 4),
                             1,
                             1,
                             512,
                             1,
                             1,
                             0,
                             s,
                             args,
                             nullptr);
            };
            const auto nothing = [](CUstream) {};
            std::printf(
                "%-34s %10.2f\n", "hot read 32 MiB, back to back", median_after_us(device, n, nothing, read));
            std::printf("%-34s %10.2f\n",
                        "hot read 32 MiB, after SM scrub",
                        median_after_us(
                            device, n, [&](CUstream s) { hygiene.scrub_sm(s, ++seed); }, read));
            std::printf("%-34s %10.2f\n",
                        "hot read 32 MiB, after SM + local",
                        median_after_us(
                            device,
                            n,
                            [&](CUstream s)
                            {
                                hygiene.scrub_local(s, ++seed);
                                hygiene.scrub_sm(s, ++seed);
                            },
                            read));
            std::printf(
                "%-34s %10.2f\n",
                "cold read 32 MiB, after L2 scrub",
                median_after_us(
                    device, n, [&](CUstream s) { hygiene.scrub_sm(s, ++seed, scrub.ptr(), l2); }, read));
        }
        // The allocation only grows, so the frames go up: each line is what every launch costs in a
        // worker that has run a kernel with that frame.
        std::printf("(local window reserve: %zu bytes per thread)\n", hygiene.local_reserve());
        for (std::size_t frame : {0, 64, 256, 1024, 4096, 16384})
        {
            note_local_frame(frame);
            std::printf("%-34s %10.2f\n",
                        ("local scrub, frame " + std::to_string(frame) + " B (" +
                         std::to_string(hygiene.local_scrub_bytes()) + " B)")
                            .c_str(),
                        median_us(device, n, [&](CUstream s) { hygiene.scrub_local(s, ++seed); }));
        }
        for (std::size_t bytes : {4, 4096, 1 << 20, 16 << 20})
        {
            const loaded_kernel k = globals_module(compiler, device.arch(), bytes);
            std::printf("%-34s %10.2f\n",
                        ("globals restore " + std::to_string(bytes) + " B").c_str(),
                        median_us(device, n, [&](CUstream s) { k.state.restore(s); }));
        }
        for (std::size_t mib : {16, 256, 1024})
        {
            cuda::device_buffer region(mib << 20);
            cuda::device_buffer out(8);
            seal_region r{region.ptr(), (mib << 20) / 8, launch_hygiene::digest_stride_words, 0};
            cuda::device_buffer table(sizeof r);
            table.upload(&r, sizeof r);
            std::printf(
                "%-34s %10.2f\n",
                ("seal digest " + std::to_string(mib) + " MiB (sampled)").c_str(),
                median_us(
                    device, n, [&](CUstream s) { hygiene.digest_regions(s, table.ptr(), 1, 7, out.ptr()); }));
            r.stride = 1;
            table.upload(&r, sizeof r);
            if (mib <= 256)
                std::printf(
                    "%-34s %10.2f\n",
                    ("seal digest " + std::to_string(mib) + " MiB (whole)").c_str(),
                    median_us(device,
                              n,
                              [&](CUstream s) { hygiene.digest_regions(s, table.ptr(), 1, 7, out.ptr()); }));
        }
        return 0;
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "launch_hygiene_bench: %s\n", e.what());
        return 1;
    }
}
