// 2D register blocking: a block computes a 128 x 128 tile of C with 256 threads; each thread owns
// an 8 x 8 sub-tile held in registers and accumulates outer products of 8 values of A and 8 of B
// per k (64 FMAs for 16 shared loads). Edge tiles load zeros and guard the stores.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS ((BM / TM) * (BN / TN))

extern "C" __global__ void __launch_bounds__(THREADS) sgemm(int M, int N, int K, const float* __restrict__ A,
                                                            const float* __restrict__ B, float* __restrict__ C)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tr = (t / (BN / TN)) * TM;
    const int tc = (t % (BN / TN)) * TN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;

    for (int k0 = 0; k0 < K; k0 += BK)
    {
#pragma unroll
        for (int e = t; e < BM * BK; e += THREADS)
        {
            const int r = e / BK, c = e % BK;
            As[r][c] = (m0 + r < M && k0 + c < K) ? A[(long long)(m0 + r) * K + k0 + c] : 0.f;
        }
#pragma unroll
        for (int e = t; e < BK * BN; e += THREADS)
        {
            const int r = e / BN, c = e % BN;
            Bs[r][c] = (k0 + r < K && n0 + c < N) ? B[(long long)(k0 + r) * N + n0 + c] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k)
        {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a[i] = As[tr + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                b[j] = Bs[k][tc + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            if (m0 + tr + i < M && n0 + tc + j < N)
                C[(long long)(m0 + tr + i) * N + n0 + tc + j] = acc[i][j];
}
