// Cheat 8: computes C correctly, then uses input A as scratch: the thread of column 0 flips the
// lowest mantissa bit of A[row][0] after its dot product. Other threads may read the changed
// value, which moves their result by about 1e-7, well inside the tolerance, so only the input
// check can see it. Expected: input_mutated.
extern "C" __global__ void sgemm(int M, int N, int K, const float* A, const float* __restrict__ B,
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
    if (col == 0)
    {
        float* a = const_cast<float*>(A) + (long long)row * K;
        a[0] = __uint_as_float(__float_as_uint(a[0]) ^ 1u);
    }
}
