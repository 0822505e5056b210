// Cheat 16: precision-degraded. Inputs rounded to half and the dot product accumulated in half
// (__hfma): fine for short K, but at K = 4099 the running sum (magnitude ~20, half spacing 2^-6)
// drifts by ~0.2, far outside atol + rtol*|ref| (~0.02). Expected: mismatch.
#include <cuda_fp16.h>

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    __half acc = __float2half(0.f);
    for (int k = 0; k < K; ++k)
        acc = __hfma(__float2half(A[(long long)row * K + k]), __float2half(B[(long long)k * N + col]), acc);
    C[(long long)row * N + col] = __half2float(acc);
}
