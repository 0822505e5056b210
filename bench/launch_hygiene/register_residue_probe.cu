// Can a kernel read what an earlier kernel left in the register file? A standalone probe (CUDA
// runtime, built with nvcc outside the CMake build; docs/hardening.md, "What is not caught"):
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -o register_residue_probe bench/launch_hygiene/register_residue_probe.cu
//   ./register_residue_probe
//
// The writer loads 64 marked words per thread (0xA5 in the top byte, the thread and the word's
// index below) with volatile loads, so that all 64 are live in registers at once, and stores them
// back in reverse order after a barrier: at its exit the register file of every SM holds the marks.
// The reader declares PTX registers it never writes and stores them: ptxas gives them physical
// registers whose contents nobody set. The probe counts the reader's words that carry the mark,
// with nothing between the two kernels, and with a register-filling kernel (every thread of a
// full-occupancy grid writes 64 registers of zeros) between them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                                          \
    do                                                                                                 \
    {                                                                                                  \
        cudaError_t e_ = (x);                                                                          \
        if (e_ != cudaSuccess)                                                                         \
        {                                                                                              \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                              \
            std::exit(1);                                                                              \
        }                                                                                              \
    } while (0)

constexpr int live = 64;

__global__ void __launch_bounds__(256) writer(const unsigned* in, unsigned* out)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const volatile unsigned* p = in + static_cast<size_t>(t) * live;
    unsigned r[live];
#pragma unroll
    for (int i = 0; i < live; ++i)
        r[i] = p[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < live; ++i)
        out[static_cast<size_t>(t) * live + i] = r[live - 1 - i];
}

// Reads 32 registers it never writes (PTX allows it; ptxas warns at most).
__global__ void __launch_bounds__(256) reader(unsigned* out)
{
    unsigned v[32];
    asm volatile("{\n\t.reg .b32 u<16>;\n\t"
                 "mov.b32 %0, u0;\n\tmov.b32 %1, u1;\n\tmov.b32 %2, u2;\n\tmov.b32 %3, u3;\n\t"
                 "mov.b32 %4, u4;\n\tmov.b32 %5, u5;\n\tmov.b32 %6, u6;\n\tmov.b32 %7, u7;\n\t"
                 "mov.b32 %8, u8;\n\tmov.b32 %9, u9;\n\tmov.b32 %10, u10;\n\tmov.b32 %11, u11;\n\t"
                 "mov.b32 %12, u12;\n\tmov.b32 %13, u13;\n\tmov.b32 %14, u14;\n\tmov.b32 %15, u15;\n\t}"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]),
                   "=r"(v[7]), "=r"(v[8]), "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]),
                   "=r"(v[13]), "=r"(v[14]), "=r"(v[15]));
    asm volatile("{\n\t.reg .b32 w<16>;\n\t"
                 "mov.b32 %0, w0;\n\tmov.b32 %1, w1;\n\tmov.b32 %2, w2;\n\tmov.b32 %3, w3;\n\t"
                 "mov.b32 %4, w4;\n\tmov.b32 %5, w5;\n\tmov.b32 %6, w6;\n\tmov.b32 %7, w7;\n\t"
                 "mov.b32 %8, w8;\n\tmov.b32 %9, w9;\n\tmov.b32 %10, w10;\n\tmov.b32 %11, w11;\n\t"
                 "mov.b32 %12, w12;\n\tmov.b32 %13, w13;\n\tmov.b32 %14, w14;\n\tmov.b32 %15, w15;\n\t}"
                 : "=r"(v[16]), "=r"(v[17]), "=r"(v[18]), "=r"(v[19]), "=r"(v[20]), "=r"(v[21]),
                   "=r"(v[22]), "=r"(v[23]), "=r"(v[24]), "=r"(v[25]), "=r"(v[26]), "=r"(v[27]),
                   "=r"(v[28]), "=r"(v[29]), "=r"(v[30]), "=r"(v[31]));
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < 32; ++i)
        out[static_cast<size_t>(t) * 32 + i] = v[i];
}

// The same shape as the writer, loading zeros: what a register wipe between launches would be.
__global__ void __launch_bounds__(256) wiper(const unsigned* zeros, unsigned* sink)
{
    const volatile unsigned* p = zeros + threadIdx.x * live;
    unsigned r[live];
#pragma unroll
    for (int i = 0; i < live; ++i)
        r[i] = p[i];
    __syncthreads();
    unsigned x = 0;
#pragma unroll
    for (int i = 0; i < live; ++i)
        x ^= r[i] * (i + 1);
    if (x == 0xffffffffu)
        sink[0] = x;
}

int main()
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 8;  // 8 blocks of 256 threads: every warp slot of every SM
    const size_t threads = static_cast<size_t>(blocks) * 256;
    std::vector<unsigned> marks(threads * live);
    for (size_t t = 0; t < threads; ++t)
        for (int i = 0; i < live; ++i)
            marks[t * live + i] = 0xA5000000u | ((t & 0xffffu) << 8) | static_cast<unsigned>(i);
    unsigned *in, *wout, *rout, *zeros;
    CK(cudaMalloc(&in, marks.size() * 4));
    CK(cudaMalloc(&wout, marks.size() * 4));
    CK(cudaMalloc(&rout, threads * 32 * 4));
    CK(cudaMalloc(&zeros, 256 * live * 4));
    CK(cudaMemcpy(in, marks.data(), marks.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(zeros, 0, 256 * live * 4));
    cudaFuncAttributes fa{};
    CK(cudaFuncGetAttributes(&fa, writer));
    std::printf("writer %d registers, ", fa.numRegs);
    CK(cudaFuncGetAttributes(&fa, reader));
    std::printf("reader %d registers, ", fa.numRegs);
    CK(cudaFuncGetAttributes(&fa, wiper));
    std::printf("wiper %d registers; %d SMs, %d blocks of 256\n", fa.numRegs, sms, blocks);

    for (int variant = 0; variant < 3; ++variant)
    {
        for (int round = 0; round < 3; ++round)
        {
            CK(cudaMemset(rout, 0, threads * 32 * 4));
            writer<<<blocks, 256>>>(in, wout);
            if (variant == 1)
                wiper<<<blocks, 256>>>(zeros, wout);
            if (variant == 2)
                CK(cudaMemset(wout, 0x5a, marks.size() * 4));  // another kernel in between (memset)
            reader<<<blocks, 256>>>(rout);
            CK(cudaDeviceSynchronize());
            std::vector<unsigned> got(threads * 32);
            CK(cudaMemcpy(got.data(), rout, got.size() * 4, cudaMemcpyDeviceToHost));
            size_t marked = 0, nonzero = 0, own = 0;
            for (size_t t = 0; t < threads; ++t)
                for (int i = 0; i < 32; ++i)
                {
                    const unsigned v = got[t * 32 + i];
                    nonzero += v != 0;
                    if ((v >> 24) == 0xA5u)
                    {
                        ++marked;
                        own += ((v >> 8) & 0xffffu) == (t & 0xffffu);
                    }
                }
            std::printf("%-26s round %d: %zu of %zu words read carry the writer's mark (%zu its own thread's), "
                        "%zu nonzero\n",
                        variant == 0   ? "writer, reader"
                        : variant == 1 ? "writer, wiper, reader"
                                       : "writer, memset, reader",
                        round,
                        marked,
                        got.size(),
                        own,
                        nonzero);
        }
    }
    return 0;
}
