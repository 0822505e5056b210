// Cheat 13: one thread waits forever for a flag nobody sets (a volatile read, so the compiler
// cannot remove the loop); every other thread computes correctly. The launch never completes.
// Expected: hang (the worker's launch timeout fires and the worker is restarted).
__device__ int g_never_set;

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
    {
        while (*reinterpret_cast<volatile int*>(&g_never_set) == 0)
            __nanosleep(1000);
    }
    if (row >= M || col >= N)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[(long long)row * N + col] = acc;
}
