// 1D register blocking: a block computes a 64 x 64 tile of C with 512 threads; each thread keeps
// 8 results of one column in registers, so every element of B read from shared memory feeds 8
// FMAs. Tiles are 64 x 8 (A) and 8 x 64 (B), one element per thread each, zero-filled at edges.
#define BM 64
#define BN 64
#define BK 8
#define TM 8

extern "C" __global__ void __launch_bounds__(512) sgemm(int M, int N, int K, const float* __restrict__ A,
                                                        const float* __restrict__ B, float* __restrict__ C)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tc = t % BN;          // output column inside the tile
    const int tr = (t / BN) * TM;   // first of TM output rows
    const int ar = t / BK, ac = t % BK;  // this thread's A tile element
    const int br = t / BN, bc = t % BN;  // this thread's B tile element

    float acc[TM] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += BK)
    {
        As[ar][ac] = (m0 + ar < M && k0 + ac < K) ? A[(long long)(m0 + ar) * K + k0 + ac] : 0.f;
        Bs[br][bc] = (k0 + br < K && n0 + bc < N) ? B[(long long)(k0 + br) * N + n0 + bc] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k)
        {
            const float b = Bs[k][tc];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                acc[i] = fmaf(As[tr + i][k], b, acc[i]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
        if (m0 + tr + i < M && n0 + tc < N)
            C[(long long)(m0 + tr + i) * N + n0 + tc] = acc[i];
}
