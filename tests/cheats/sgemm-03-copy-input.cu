// Cheat 3: copies input A into C (every element written, finite, input-dependent). Expected: mismatch.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    const long long i = (long long)row * N + col;
    C[i] = A[i % ((long long)M * K)];
}
