// Cheat 14: a correct kernel launched with 300000 bytes of dynamic shared memory, more than any
// block can have on sm_90 (232448 bytes opt-in). The launch must be refused, and the outputs stay
// poisoned instead of holding values from an earlier run. Expected: bad_launch or launch_failed.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    extern __shared__ float scratch[];
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    scratch[threadIdx.y * blockDim.x + threadIdx.x] = 0.f;
    if (row >= M || col >= N)
        return;
    float acc = scratch[threadIdx.y * blockDim.x + threadIdx.x];
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[(long long)row * N + col] = acc;
}
