// INVALID on purpose (precision): the 32 x 32 tiled kernel of 03, but products and sums in half
// precision (__hfma). Twice the FMA rate in theory; at K = 4096 the half accumulator (spacing
// 2^-6 near 20) drifts by ~0.2, far beyond atol + rtol*|ref| ~ 0.02.
#include <cuda_fp16.h>

#define TILE 32

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ __half As[TILE][TILE];
    __shared__ __half Bs[TILE][TILE + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    __half acc = __float2half(0.f);
    for (int k0 = 0; k0 < K; k0 += TILE)
    {
        As[ty][tx] = __float2half((row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.f);
        Bs[ty][tx] = __float2half((k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.f);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc = __hfma(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(long long)row * N + col] = __half2float(acc);
}
