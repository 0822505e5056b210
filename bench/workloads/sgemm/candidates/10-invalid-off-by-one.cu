// INVALID on purpose (off by one tile): the k loop runs over whole 32-wide tiles only
// (k0 + TILE <= K), so the last K % 32 products are dropped. Every performance case has K a
// multiple of 32 and passes; the odd-K correctness cases fail.
#define TILE 32

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 + TILE <= K; k0 += TILE)
    {
        As[ty][tx] = row < M ? A[(long long)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = col < N ? B[(long long)(k0 + ty) * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(long long)row * N + col] = acc;
}
