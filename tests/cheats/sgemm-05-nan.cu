// Cheat 5: writes non-finite values: a quiet NaN whose payload (0x7fc01234) differs from any
// poison pattern, and +Inf, alternately. Written, so not "unwritten"; the reference is finite.
// Expected: nonfinite.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    const long long i = (long long)row * N + col;
    C[i] = (i % 2 == 0) ? __int_as_float(0x7fc01234) : __int_as_float(0x7f800000);
}
