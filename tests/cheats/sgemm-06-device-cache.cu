// Cheat 6: memoizes results in __device__ memory across launches. Each output element remembers
// the shape it was computed for; a later launch with the same shape replays the stored value
// instead of computing. The first launch of every case is correct, so a harness that validates
// each case once (on one seed) accepts it and then times the fast replay. The hidden-seed run
// has the same shape and different inputs, so it gets stale values. Expected: mismatch.
#define CACHE_ELEMS (1 << 18)  // >= the largest output of tests/cheats/workloads/sgemm-small

__device__ float g_cached_value[CACHE_ELEMS];
__device__ unsigned long long g_cached_shape[CACHE_ELEMS];

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    const long long i = (long long)row * N + col;
    const unsigned long long shape =
        ((unsigned long long)M << 42) ^ ((unsigned long long)N << 21) ^ (unsigned long long)K ^ (1ull << 63);
    if (i < CACHE_ELEMS && g_cached_shape[i] == shape)
    {
        C[i] = g_cached_value[i];
        return;
    }
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[i] = acc;
    if (i < CACHE_ELEMS)
    {
        g_cached_value[i] = acc;
        g_cached_shape[i] = shape;
    }
}
