// SGEMM reference: C = A * B, row-major, A is M x K, B is K x N, C is M x N.
// One thread per output element, products and sum in double, one rounding to float at the end:
// the result is the correctly rounded FP32 value of the exact sum except for the double rounding
// of the products' sum (relative error about 2^-53 * K), far below any FP32 kernel's error.
// Launch: grid (ceil_div(N,16), ceil_div(M,16)), block (16, 16).
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    double sum = 0.0;
    for (int k = 0; k < K; ++k)
        sum += (double)A[(long long)row * K + k] * (double)B[(long long)k * N + col];
    C[(long long)row * N + col] = (float)sum;
}
