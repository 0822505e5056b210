// Can the cold L2 scrub cost less without changing what the measured kernel sees? A standalone
// experiment (CUDA runtime, built with nvcc outside the CMake build; docs/performance.md, "A
// cheaper scrub that leaves the same L2").
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -o scrub_cost bench/cold_timing/scrub_cost.cu
//   ./scrub_cost
//
// The worker's cold loop writes an L2-sized buffer before every measured launch. The buffer's lines
// are then dirty, so the next scrub first writes the previous scrub's surviving lines back to
// DRAM: that write-back, not the L2 writes, is most of the scrub's time. Variant "discard+write"
// first discards the buffer's lines (discard.global.L2: invalid, no write-back; lines already
// evicted are not touched), then writes the buffer as before. After either scrub the L2 holds the
// whole buffer, dirty, and nothing else, so the measured kernel finds the same L2 (same dirty
// victims to write back); only the scrub's own cost changes. Per launch: a poison memset of the
// output, the scrub (timed with its own events), the kernel (timed). Kernels: the 1M-element vadd
// of harness_overhead, a 32 MiB float4 copy, a read-only sum of 16 MiB. Three alternating rounds
// of 100 launches per variant; medians.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                    \
    do                                                           \
    {                                                            \
        cudaError_t e_ = (x);                                    \
        if (e_ != cudaSuccess)                                   \
        {                                                        \
            std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); \
            std::exit(1);                                        \
        }                                                        \
    } while (0)

using u64 = unsigned long long;

__global__ void __launch_bounds__(1024) scrub(uint4* p, u64 n, unsigned seed, int discard_first)
{
    const u64 stride = 1ull * gridDim.x * blockDim.x;
    const u64 first = blockIdx.x * 1ull * blockDim.x + threadIdx.x;
    if (discard_first)
    {
        // Line-granular: the thread that owns a line's first 16 bytes discards the line. The
        // block's threads write the same lines below, after the barrier.
        for (u64 i = first; i < n; i += stride)
            if ((i & 7) == 0)
                asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i) : "memory");
        __syncthreads();
    }
    const uint4 v = make_uint4(seed, ~seed, seed ^ 0xA5A5A5A5u, seed + 1u);
    for (u64 i = first; i < n; i += stride)
        p[i] = v;
}

__global__ void vadd(int n, const float* a, const float* b, float* c)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, long long n)
{
    for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x)
        out[i] = in[i];
}

__global__ void sum4(const float4* __restrict__ in, float* out, long long n)
{
    float acc = 0;
    for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x)
    {
        const float4 x = in[i];
        acc += x.x + x.y + x.z + x.w;
    }
    if (acc == 123.0f)
        out[blockIdx.x] = acc;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main()
{
    CK(cudaFree(nullptr));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    const std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
    std::printf("device %s, %d SMs, L2 %zu MiB\n", prop.name, sms, l2 >> 20);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t a0, a1, b1;
    CK(cudaEventCreate(&a0));
    CK(cudaEventCreate(&a1));
    CK(cudaEventCreate(&b1));
    uint4* buf;
    CK(cudaMalloc(&buf, l2));

    const std::size_t big = 32u << 20;
    float *x, *y, *out;
    CK(cudaMalloc(&x, big));
    CK(cudaMalloc(&y, big));
    CK(cudaMalloc(&out, big));
    CK(cudaMemset(x, 0x3c, big));
    CK(cudaMemset(y, 0x3d, big));

    struct kernel
    {
        std::string name;
        std::size_t out_bytes;
        std::function<void()> launch;
    };
    const int n1m = 1 << 20;
    const std::vector<kernel> kernels{
        {"vadd 1M (harness_overhead)",
         n1m * sizeof(float),
         [&] { vadd<<<n1m / 256, 256, 0, s>>>(n1m, x, y, out); }},
        {"copy 16 MiB -> 16 MiB",
         big / 2,
         [&]
         {
             copy4<<<sms * 8, 256, 0, s>>>(
                 reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(out), big / 32);
         }},
        {"read 16 MiB",
         4096,
         [&] { sum4<<<sms * 8, 256, 0, s>>>(reinterpret_cast<const float4*>(x), out, big / 32); }},
    };

    std::printf(
        "\n%-28s %-14s %12s %12s %12s\n", "kernel", "scrub", "scrub us", "kernel us", "loop us/launch");
    for (const kernel& k : kernels)
        for (int round = 0; round < 3; ++round)
            for (int discard = 0; discard <= 1; ++discard)
            {
                std::vector<double> scrub_us, kernel_us;
                cudaEvent_t l0, l1;
                CK(cudaEventCreate(&l0));
                CK(cudaEventCreate(&l1));
                CK(cudaEventRecord(l0, s));
                for (int i = 0; i < 110; ++i)
                {
                    CK(cudaMemsetAsync(out, 0xff, k.out_bytes, s));
                    CK(cudaEventRecord(a0, s));
                    scrub<<<sms, 1024, 0, s>>>(buf, l2 / 16, 0x1234u + i, discard);
                    CK(cudaEventRecord(a1, s));
                    k.launch();
                    CK(cudaEventRecord(b1, s));
                    CK(cudaEventSynchronize(b1));
                    float sm, km;
                    CK(cudaEventElapsedTime(&sm, a0, a1));
                    CK(cudaEventElapsedTime(&km, a1, b1));
                    if (i >= 10)
                    {
                        scrub_us.push_back(sm * 1000.0);
                        kernel_us.push_back(km * 1000.0);
                    }
                }
                CK(cudaEventRecord(l1, s));
                CK(cudaEventSynchronize(l1));
                float loop_ms;
                CK(cudaEventElapsedTime(&loop_ms, l0, l1));
                std::printf("%-28s %-14s %12.2f %12.2f %12.2f\n",
                            k.name.c_str(),
                            discard ? "discard+write" : "write",
                            median(scrub_us),
                            median(kernel_us),
                            loop_ms * 1000.0 / 110);
                CK(cudaEventDestroy(l0));
                CK(cudaEventDestroy(l1));
            }
    return 0;
}
