// INVALID on purpose (alignment): the vectorized kernel of 06 without its alignment test, i.e. it
// always reads A and B as float4. When K or N is not a multiple of 4 a row starts at an address
// that is not 16-byte aligned, and the float4 load raises a misaligned-address error (and reads
// past row ends). Fine on every performance case; the odd correctness cases fault.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS) sgemm(int M, int N, int K, const float* __restrict__ A,
                                                            const float* __restrict__ B, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tr = (t / (BN / TN)) * TM;
    const int tc = (t % (BN / TN)) * TN;
    const int ar = t / (BK / 4), ac = (t % (BK / 4)) * 4;
    const int br = t / (BN / 4), bc = (t % (BN / 4)) * 4;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;

    for (int k0 = 0; k0 < K; k0 += BK)
    {
        float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
        if (m0 + ar < M && k0 + ac < K)
            a = *reinterpret_cast<const float4*>(A + (long long)(m0 + ar) * K + k0 + ac);
        As[ac + 0][ar] = a.x;
        As[ac + 1][ar] = a.y;
        As[ac + 2][ar] = a.z;
        As[ac + 3][ar] = a.w;
        float4 b = make_float4(0.f, 0.f, 0.f, 0.f);
        if (k0 + br < K && n0 + bc < N)
            b = *reinterpret_cast<const float4*>(B + (long long)(k0 + br) * N + n0 + bc);
        *reinterpret_cast<float4*>(&Bs[br][bc]) = b;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k)
        {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[k][tr]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[k][tr + 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tc]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][tc + 4]);
            const float ra[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
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
