#pragma once

// Kernel sources shared by the compile tests.

namespace warpsmith::test_kernels
{

inline constexpr const char* saxpy = R"(
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
)";

// Shared memory (256 floats) and one barrier, in an extern "C" kernel next to a C++ kernel.
inline constexpr const char* two_kernels = R"(
extern "C" __global__ void foo(float* a)
{
    __shared__ float tile[256];
    tile[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = tile[255 - threadIdx.x];
}
__global__ void bar(float* a) { a[1] = 2.0f; }
)";

// 96 live accumulators cannot fit in 32 registers: ptxas must spill.
inline constexpr const char* spiller = R"(
extern "C" __global__ void spill(const float* __restrict__ in, float* out, int n)
{
    float acc[96];
#pragma unroll
    for (int i = 0; i < 96; ++i)
        acc[i] = in[threadIdx.x + i * n];
    for (int it = 0; it < n; ++it)
    {
#pragma unroll
        for (int i = 0; i < 96; ++i)
            acc[i] = acc[i] * acc[(i + 1) % 96] + 1.0f;
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < 96; ++i)
        s += acc[i];
    out[threadIdx.x] = s;
}
)";

}  // namespace warpsmith::test_kernels
