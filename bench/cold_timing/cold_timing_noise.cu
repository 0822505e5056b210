// Where the cold-timing noise of a short kernel comes from: a standalone experiment (CUDA runtime,
// built with nvcc, outside the CMake build; docs/performance.md, "The scrub's drain").
//
//   nvcc -O2 -arch=sm_90 -o cold_timing_noise bench/cold_timing/cold_timing_noise.cu
//   ./cold_timing_noise
//
// The worker's cold timing loop, rebuilt with the runtime API: before each of 100 measured launches
// of a 1M-element vadd (the kernel of harness_overhead), a 4 MiB poison memset of its output and
// one scrub kernel (each SM's shared memory, then an L2-sized buffer, one 1024-thread block per
// SM), then the events around the launch. Each variant changes one thing:
//   current   the worker's scrub as it was before the drain;
//   spin2us, spin5us, spin20us   a one-warp kernel waiting 2/5/20 us after the scrub;
//   fill+smem the L2 buffer written by a full-occupancy kernel, then the shared-memory scrub alone;
//   2xL2      a scrub buffer twice the L2;
//   hot       no L2 scrub (shared memory only);
//   nopoison  no poison memset.
// Six rounds each; per round the median, the 95% interval of the median (half-width, % of the
// median) after the first 20/40/60/100 samples, p10/p90/min/max, the lag-1 autocorrelation of the
// samples, and the GPU time per measured launch (everything the loop enqueues, over 100).
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
typedef unsigned u32; typedef unsigned long long u64;
__device__ __forceinline__ u32 h32(u32 x){x^=x>>16;x*=0x7feb352dU;x^=x>>15;x*=0x846ca68bU;x^=x>>16;return x;}
extern "C" __global__ void __launch_bounds__(1024) scrub_sm(u32 seed, uint4* l2, u64 l2v, int do_smem)
{
    extern __shared__ u32 sm[];
    if (do_smem) {
        u32 bytes; asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
        const u32 base = (u32)__cvta_generic_to_shared(sm);
        for (u32 i = threadIdx.x; i < (bytes >> 4); i += blockDim.x) {
            u32 h = h32(seed ^ (i * 0x9E3779B9u) ^ (blockIdx.x * 0x85EBCA6Bu));
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(base + (i << 4)), "r"(h), "r"(h ^ 1), "r"(h * 3), "r"(~h) : "memory");
        }
    }
    const uint4 v = make_uint4(seed, ~seed, seed ^ 0xA5A5A5A5u, seed + 1u);
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < l2v; i += stride) l2[i] = v;
}
extern "C" __global__ void fill(uint4* p, u64 n, u32 seed)
{
    const uint4 v = make_uint4(seed, ~seed, seed ^ 0xA5A5A5A5u, seed + 1u);
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) p[i] = v;
}
extern "C" __global__ void spin(u64 ns)
{
    u64 t0, t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }

struct stats { double med, ci20, ci40, ci60, ci100, p10, p90, lag1; };
static double ci(std::vector<double> s, int n) {
    s.resize(n); std::sort(s.begin(), s.end());
    double m = n % 2 ? s[n/2] : (s[n/2-1] + s[n/2]) / 2;
    int lo = std::max(0, (int)std::floor(n / 2.0 - 1.96 * std::sqrt((double)n) / 2));
    int hi = std::min(n - 1, (int)std::ceil(n / 2.0 + 1.96 * std::sqrt((double)n) / 2));
    return (s[hi] - s[lo]) / 2 / m * 100;
}
int main(int argc, char** argv)
{
    int dev = 0; CK(cudaSetDevice(dev));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, dev));
    size_t l2 = p.l2CacheSize; int sms = p.multiProcessorCount; int optin = p.sharedMemPerBlockOptin;
    printf("device %s, L2 %zu MiB, %d SMs, optin smem %d\n", p.name, l2 >> 20, sms, optin);
    CK(cudaFuncSetAttribute(scrub_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    const int n = 1 << 20;
    float *a, *b, *c; CK(cudaMalloc(&a, n * 4)); CK(cudaMalloc(&b, n * 4)); CK(cudaMalloc(&c, n * 4));
    CK(cudaMemset(a, 0, n * 4)); CK(cudaMemset(b, 0, n * 4));
    uint4* buf; CK(cudaMalloc(&buf, 2 * l2));
    cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int N = 100, rounds = 6;
    std::vector<cudaEvent_t> e0(N), e1(N);
    for (int i = 0; i < N; ++i) { CK(cudaEventCreate(&e0[i])); CK(cudaEventCreate(&e1[i])); }
    u32 seed = 1;
    // variant: 0 current (combined smem+L2), 1 +spin 2us, 2 +spin 5us, 3 L2 fill kernel full occupancy + smem scrub separate,
    // 4 scrub 2x L2, 5 hot (smem scrub only), 6 current w/o poison memset, 7 sleep gap 20us host-side? (spin 20us)
    const char* names[] = {"current", "spin2us", "spin5us", "fill+smem", "2xL2", "hot", "nopoison", "spin20us"};
    for (int v = 0; v < 8; ++v) {
      for (int r = 0; r < rounds; ++r) {
        std::vector<double> samp(N);
        auto prep = [&]() {
            if (v != 6) CK(cudaMemsetAsync(c, 0xFF, n * 4, s));
            size_t vecs = (v == 4 ? 2 * l2 : l2) / 16;
            if (v == 3) { fill<<<sms * 2, 1024, 0, s>>>(buf, vecs, ++seed); scrub_sm<<<sms, 1024, optin, s>>>(++seed, buf, 0, 1); }
            else if (v == 5) scrub_sm<<<sms, 1024, optin, s>>>(++seed, buf, 0, 1);
            else scrub_sm<<<sms, 1024, optin, s>>>(++seed, buf, vecs, 1);
            if (v == 1) spin<<<1, 32, 0, s>>>(2000);
            if (v == 2) spin<<<1, 32, 0, s>>>(5000);
            if (v == 7) spin<<<1, 32, 0, s>>>(20000);
        };
        for (int w = 0; w < 10; ++w) vadd<<<n / 256, 256, 0, s>>>(n, a, b, c);
        cudaEvent_t t0, t1; CK(cudaEventCreate(&t0)); CK(cudaEventCreate(&t1));
        CK(cudaEventRecord(t0, s));
        for (int i = 0; i < N; ++i) {
            prep();
            CK(cudaEventRecord(e0[i], s));
            vadd<<<n / 256, 256, 0, s>>>(n, a, b, c);
            CK(cudaEventRecord(e1[i], s));
        }
        CK(cudaEventRecord(t1, s));
        CK(cudaStreamSynchronize(s));
        float total; CK(cudaEventElapsedTime(&total, t0, t1));
        for (int i = 0; i < N; ++i) { float ms; CK(cudaEventElapsedTime(&ms, e0[i], e1[i])); samp[i] = ms * 1000; }
        double mean = 0; for (double x : samp) mean += x; mean /= N;
        double num = 0, den = 0; for (int i = 0; i < N; ++i) { den += (samp[i]-mean)*(samp[i]-mean); if (i) num += (samp[i]-mean)*(samp[i-1]-mean); }
        std::vector<double> so = samp; std::sort(so.begin(), so.end());
        printf("%-9s r%d  med %7.2f  ci%% n20 %5.2f n40 %5.2f n60 %5.2f n100 %5.2f  p10 %7.2f p90 %7.2f min %7.2f max %7.2f lag1 %5.2f  per-launch %6.2f us\n",
               names[v], r, so[N/2], ci(samp, 20), ci(samp, 40), ci(samp, 60), ci(samp, 100), so[N/10], so[9*N/10], so[0], so[N-1], num/den, total * 1000 / N);
        if (r == 0 && (v == 0 || v == 5)) { printf("  samples:"); for (int i = 0; i < N; ++i) printf(" %.1f", samp[i]); printf("\n"); }
      }
    }
    return 0;
}
