// Vectorized 2D blocking: as 05 (128 x 128 tile, 8 x 8 per thread, 256 threads), plus
//   * float4 global loads of A and B when the rows allow it (K % 4 == 0, N % 4 == 0, 16-byte
//     aligned bases; a uniform per-launch test, scalar loads with bounds checks otherwise);
//   * A stored transposed in shared memory (As[k][m]) so that both operands of the inner loop
//     are read as float4 (4 shared loads per 64 FMAs instead of 16).
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
    const int ar = t / (BK / 4), ac = (t % (BK / 4)) * 4;  // one float4 of the A tile
    const int br = t / (BN / 4), bc = (t % (BN / 4)) * 4;  // one float4 of the B tile
    const bool vec_a = (K % 4 == 0) && ((reinterpret_cast<unsigned long long>(A) & 15) == 0);
    const bool vec_b = (N % 4 == 0) && ((reinterpret_cast<unsigned long long>(B) & 15) == 0);

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;

    for (int k0 = 0; k0 < K; k0 += BK)
    {
        float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
        const int row = m0 + ar, ka = k0 + ac;
        if (row < M)
        {
            const float* p = A + (long long)row * K + ka;
            if (vec_a)
            {
                if (ka < K)
                    a = *reinterpret_cast<const float4*>(p);
            }
            else
            {
                if (ka < K) a.x = p[0];
                if (ka + 1 < K) a.y = p[1];
                if (ka + 2 < K) a.z = p[2];
                if (ka + 3 < K) a.w = p[3];
            }
        }
        As[ac + 0][ar] = a.x;
        As[ac + 1][ar] = a.y;
        As[ac + 2][ar] = a.z;
        As[ac + 3][ar] = a.w;

        float4 b = make_float4(0.f, 0.f, 0.f, 0.f);
        const int kb = k0 + br, col = n0 + bc;
        if (kb < K)
        {
            const float* p = B + (long long)kb * N + col;
            if (vec_b)
            {
                if (col < N)
                    b = *reinterpret_cast<const float4*>(p);
            }
            else
            {
                if (col < N) b.x = p[0];
                if (col + 1 < N) b.y = p[1];
                if (col + 2 < N) b.z = p[2];
                if (col + 3 < N) b.w = p[3];
            }
        }
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
