// What share of the copy bandwidth can a kernel reach at the softmax workload's sizes, timed cold?
// A standalone experiment (CUDA runtime + NVRTC, built with nvcc outside the CMake build;
// docs/performance.md, "Softmax against a copy of the same bytes").
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -o softmax_roofline bench/cold_timing/softmax_roofline.cu -lnvrtc -lcuda
//   ./softmax_roofline bench/workloads/softmax/tunable.cu "MODE=3 THREADS=128 GMAX=512 CACHE=8 VEC=4 HINT=1
//   FASTEXP=1 ONLINE=1" ...
//
// The roofline of `warpsmith tune softmax` divides 8*rows*cols bytes by the kernel's cold median
// and compares that with the copy bandwidth the worker measures on 1 GiB (cuMemcpyDtoD, read+write).
// The performance cases move 32 MiB (4096x1024) and 64 MiB (256x32768, 65536x128): a few
// microseconds of launch and ramp are a large share of 10-21 us. This program times, per case and
// in the worker's cold loop (a poison memset of the output, an L2-sized scrub write, then events
// around the launch; 100 launches, median), the same bytes moved by cuMemcpyDtoD, by a float4
// copy kernel at several grid sizes (the best of them is what a kernel that only moves the bytes
// reaches), and by each softmax point given on the command line (compiled from tunable.cu with
// NVRTC, launched with the workload's MODE 3 launch formula). Hot rows (no L2 scrub) are printed
// for reference.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include <fstream>
#include <map>
#include <nvrtc.h>
#include <sstream>
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
#define CU(x)                                           \
    do                                                  \
    {                                                   \
        CUresult r_ = (x);                              \
        if (r_ != CUDA_SUCCESS)                         \
        {                                               \
            const char* s_ = nullptr;                   \
            cuGetErrorString(r_, &s_);                  \
            std::printf("%s: %s\n", #x, s_ ? s_ : "?"); \
            std::exit(1);                               \
        }                                               \
    } while (0)

__global__ void scrub_write(uint4* p, unsigned long long n, unsigned seed)
{
    const uint4 v = make_uint4(seed, ~seed, seed ^ 0xA5A5A5A5u, seed + 1u);
    for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
         i += 1ull * gridDim.x * blockDim.x)
        p[i] = v;
}

// The same writes, then every 128-byte line written is discarded (discard.global.L2, sm_80+): the
// lines become invalid without a write-back, so the next scrub and the measured kernel find free
// lines instead of dirty ones to evict. The kernel's own data was evicted by the writes either way.
__global__ void scrub_write_discard(uint4* p, unsigned long long n, unsigned seed)
{
    const uint4 v = make_uint4(seed, ~seed, seed ^ 0xA5A5A5A5u, seed + 1u);
    for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
         i += 1ull * gridDim.x * blockDim.x)
        p[i] = v;
    __syncthreads();
    for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
         i += 1ull * gridDim.x * blockDim.x)
        if ((i & 7) == 0)
            asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i) : "memory");
}

// Reads the input only (a sum per block): its time says whether the input came from DRAM or L2.
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

__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, long long n)
{
    for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x)
        out[i] = __ldcs(in + i);
}

// Two float4 per thread in flight before any store (a grid that covers the buffer once).
__global__ void copy4x2(const float4* __restrict__ in, float4* __restrict__ out, long long n)
{
    const long long i = (blockIdx.x * 1ll * blockDim.x) * 2 + threadIdx.x;
    float4 a = make_float4(0, 0, 0, 0), b = a;
    if (i < n)
        a = __ldcs(in + i);
    if (i + blockDim.x < n)
        b = __ldcs(in + i + blockDim.x);
    if (i < n)
        out[i] = a;
    if (i + blockDim.x < n)
        out[i + blockDim.x] = b;
}

struct gpu_case
{
    int rows, cols;
};

static std::map<std::string, int> parse_defines(const std::string& s)
{
    std::map<std::string, int> d;
    std::istringstream in(s);
    std::string kv;
    while (in >> kv)
    {
        const auto eq = kv.find('=');
        d[kv.substr(0, eq)] = std::atoi(kv.c_str() + eq + 1);
    }
    return d;
}

static CUfunction compile_softmax(const std::string& source, const std::map<std::string, int>& defs)
{
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, source.c_str(), "tunable.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
        std::exit(1);
    std::vector<std::string> opts{"--gpu-architecture=sm_90", "-default-device", "--std=c++17"};
    for (const auto& [k, v] : defs)
        opts.push_back("-D" + k + "=" + std::to_string(v));
    std::vector<const char*> argv;
    for (const auto& o : opts)
        argv.push_back(o.c_str());
    const nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    if (rc != NVRTC_SUCCESS)
    {
        std::size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        std::string log(n, '\0');
        nvrtcGetProgramLog(prog, log.data());
        std::printf("NVRTC: %s\n", log.c_str());
        std::exit(1);
    }
    std::size_t n = 0;
    nvrtcGetCUBINSize(prog, &n);
    std::string cubin(n, '\0');
    nvrtcGetCUBIN(prog, cubin.data());
    nvrtcDestroyProgram(&prog);
    CUmodule mod;
    CU(cuModuleLoadData(&mod, cubin.data()));
    CUfunction f;
    CU(cuModuleGetFunction(&f, mod, "softmax"));
    return f;
}

// The workload's MODE 3 launch: T = the smallest power of two with T*C >= NV, at most GMAX.
static void mode3_launch(const std::map<std::string, int>& d, int rows, int cols, int& grid, int& block)
{
    const int vec = d.at("VEC"), cache = std::max(d.at("CACHE"), 1), gmax = d.at("GMAX"),
              threads = d.at("THREADS");
    const int nv = cols / vec + (cols % vec != 0);
    int t = 1;
    while (t < 1024 && t * cache < nv)
        t *= 2;
    t = std::min(t, gmax);
    block = std::max(threads, t);
    grid = static_cast<int>(
        std::min<long long>(rows, (static_cast<long long>(rows) * t + threads - 1) / threads));
}

int main(int argc, char** argv)
{
    if (argc < 2)
    {
        std::printf("usage: %s tunable.cu [\"MODE=3 THREADS=... \" ...]\n", argv[0]);
        return 2;
    }
    std::ifstream f(argv[1]);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string source = ss.str();

    CK(cudaFree(nullptr));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));

    // Copy bandwidth as the worker measures it: 1 GiB DtoD, read + write, median of 20.
    const std::size_t gib = std::size_t{1} << 30;
    void *big_a, *big_b;
    CK(cudaMalloc(&big_a, gib));
    CK(cudaMalloc(&big_b, gib));
    CK(cudaMemset(big_a, 0, gib));
    std::vector<double> t;
    for (int i = 0; i < 20; ++i)
    {
        CK(cudaEventRecord(e0, s));
        CK(cudaMemcpyAsync(big_b, big_a, gib, cudaMemcpyDeviceToDevice, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    const double copy_gbps = 2.0 * gib / (t[t.size() / 2] * 1e-3) / 1e9;
    CK(cudaFree(big_a));
    CK(cudaFree(big_b));
    std::printf("device %s, %d SMs, L2 %d MiB; copy bandwidth (1 GiB DtoD) %.0f GB/s\n",
                prop.name,
                prop.multiProcessorCount,
                prop.l2CacheSize >> 20,
                copy_gbps);

    const std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
    uint4* scrub;
    CK(cudaMalloc(&scrub, l2));
    for (int mode = 1; mode <= 2; ++mode)
    {
        std::vector<double> v;
        for (int i = 0; i < 60; ++i)
        {
            CK(cudaEventRecord(e0, s));
            if (mode == 1)
                scrub_write<<<prop.multiProcessorCount, 1024, 0, s>>>(scrub, l2 / 16, i);
            else
                scrub_write_discard<<<prop.multiProcessorCount, 1024, 0, s>>>(scrub, l2 / 16, i);
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (i >= 10)
                v.push_back(ms * 1000.0);
        }
        std::sort(v.begin(), v.end());
        std::printf("scrub %s: median %.2f us (min %.2f, max %.2f)\n",
                    mode == 1 ? "write" : "write+discard",
                    v[v.size() / 2],
                    v.front(),
                    v.back());
    }
    const std::vector<gpu_case> cases{{4096, 1024}, {256, 32768}, {65536, 128}};
    std::vector<std::pair<std::string, CUfunction>> softmaxes;
    std::vector<std::map<std::string, int>> defs;
    for (int i = 2; i < argc; ++i)
    {
        defs.push_back(parse_defines(argv[i]));
        softmaxes.emplace_back(argv[i], compile_softmax(source, defs.back()));
    }

    for (const gpu_case& c : cases)
    {
        const long long n = static_cast<long long>(c.rows) * c.cols;
        const std::size_t bytes = n * sizeof(float);
        float *in, *out;
        CK(cudaMalloc(&in, bytes));
        CK(cudaMalloc(&out, bytes));
        CK(cudaMemset(in, 0x3c, bytes));
        std::printf(
            "\ncase %dx%d (%.0f MiB moved)        cold (write scrub)      cold (write+discard)    hot\n",
            c.rows,
            c.cols,
            2.0 * bytes / (1 << 20));
        auto run = [&](const char* name, auto&& launch)
        {
            double med[3];
            for (int cold = 2; cold >= 0; --cold)
            {
                std::vector<double> ms_v;
                for (int i = 0; i < 110; ++i)
                {
                    CK(cudaMemsetAsync(out, 0xff, bytes, s));
                    if (cold == 1)
                        scrub_write<<<prop.multiProcessorCount, 1024, 0, s>>>(scrub, l2 / 16, i);
                    if (cold == 2)
                        scrub_write_discard<<<prop.multiProcessorCount, 1024, 0, s>>>(scrub, l2 / 16, i);
                    CK(cudaEventRecord(e0, s));
                    launch();
                    CK(cudaEventRecord(e1, s));
                    CK(cudaEventSynchronize(e1));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    if (i >= 10)
                        ms_v.push_back(ms * 1000.0);
                }
                std::sort(ms_v.begin(), ms_v.end());
                med[cold] = ms_v[ms_v.size() / 2];
            }
            auto pct = [&](double us) { return 100.0 * (2.0 * bytes / (us * 1e-6) / 1e9) / copy_gbps; };
            std::printf("  %-36.36s %8.2f  %8.1f%%  %8.2f  %8.1f%%  %8.2f  %8.1f%%\n",
                        name,
                        med[1],
                        pct(med[1]),
                        med[2],
                        pct(med[2]),
                        med[0],
                        pct(med[0]));
        };
        run("read only (sum of the input)",
            [&] {
                sum4<<<prop.multiProcessorCount * 8, 256, 0, s>>>(
                    reinterpret_cast<const float4*>(in), out, n / 4);
            });
        run("cuMemcpyDtoD", [&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s)); });
        const long long n4 = n / 4;
        for (int per_sm : {1, 2, 4, 8, 16})
        {
            const int grid = prop.multiProcessorCount * per_sm;
            char name[64];
            std::snprintf(name, sizeof name, "copy float4, %d x 256-thread blocks", grid);
            run(name,
                [&] {
                    copy4<<<grid, 256, 0, s>>>(
                        reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n4);
                });
        }
        for (int tb : {128, 256, 512, 1024})
        {
            const int grid = static_cast<int>((n4 + 2 * tb - 1) / (2 * tb));
            char name[64];
            std::snprintf(name, sizeof name, "copy 2 float4/thread, %d-thread blocks", tb);
            run(name,
                [&] {
                    copy4x2<<<grid, tb, 0, s>>>(
                        reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n4);
                });
        }
        for (std::size_t k = 0; k < softmaxes.size(); ++k)
        {
            int grid, block;
            mode3_launch(defs[k], c.rows, c.cols, grid, block);
            int rows = c.rows, cols = c.cols;
            void* args[] = {&rows, &cols, &in, &out};
            CUfunction fn = softmaxes[k].second;
            run(softmaxes[k].first.c_str(),
                [&] {
                    CU(cuLaunchKernel(
                        fn, grid, 1, 1, block, 1, 1, 0, reinterpret_cast<CUstream>(s), args, nullptr));
                });
        }
        CK(cudaFree(in));
        CK(cudaFree(out));
    }
    return 0;
}
