// Initial SGEMM (SPEC §2 example), same as the reference: C = A*B, row-major, one thread per element of C.
extern "C" __global__ void sgemm(int M, int N, int K, const float* A, const float* B, float* C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N)
    {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
