// INVALID on purpose (does not compile): the accumulator is used under a name that was never
// declared, as a hasty edit might leave it. The harness must report compile_error with the log.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        accum = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], accum);
    C[(long long)row * N + col] = acc;
}
