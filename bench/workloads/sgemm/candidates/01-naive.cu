// Naive SGEMM: one thread per element of C, threadIdx.x walking down the rows of C. Neighbouring
// threads read different rows of A (strided, uncoalesced) and write different rows of C.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[(long long)row * N + col] = acc;
}
