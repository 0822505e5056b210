// Cheat 4: writes zeros everywhere (fast, finite, fully written). Expected: mismatch.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N)
        C[(long long)row * N + col] = 0.f;
}
