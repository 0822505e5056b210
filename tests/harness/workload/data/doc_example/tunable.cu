// Tunable kernel for the docs/workload-format.md example. BM, BN (tile of C per block) and TM, TN
// (tile of C per thread) arrive as -D defines; the block has (BM/TM)*(BN/TN) threads.
extern "C" __global__ void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float* C)
{
    const int threads_n = BN / TN;
    const int tr = threadIdx.x / threads_n;
    const int tc = threadIdx.x % threads_n;
    const int row0 = blockIdx.y * BM + tr * TM;
    const int col0 = blockIdx.x * BN + tc * TN;
    float acc[TM][TN] = {};
    for (int k = 0; k < K; ++k)
        for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j)
                if (row0 + i < M && col0 + j < N)
                    acc[i][j] += A[(row0 + i) * K + k] * B[k * N + col0 + j];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            if (row0 + i < M && col0 + j < N)
                C[(row0 + i) * N + col0 + j] = alpha * acc[i][j];
}
