// Cheat 9: computes C correctly and also writes two floats just past the end of C (bytes 28..35
// after it: inside the harness's guard zone, so no fault, but memory it does not own).
// Expected: out_of_bounds_write.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[(long long)row * N + col] = acc;
    if (row == 0 && col == 0)
    {
        C[(long long)M * N + 7] = 1234.5f;
        C[(long long)M * N + 8] = -1234.5f;
    }
}
