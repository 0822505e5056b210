// Cheat 6 (elementwise): remembers y per element and problem size in __device__ memory and
// replays it on later launches of the same size. Expected: mismatch (on the hidden seed).
#define CACHE_ELEMS (1 << 20)  // the largest n of tests/cheats/workloads/elementwise-small

__device__ float g_cached_value[CACHE_ELEMS];
__device__ int g_cached_n[CACHE_ELEMS];

extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (i < CACHE_ELEMS && g_cached_n[i] == n)
    {
        y[i] = g_cached_value[i];
        return;
    }
    const float v = fmaf(x[i], a[i], b[i]);
    y[i] = v;
    if (i < CACHE_ELEMS)
    {
        g_cached_value[i] = v;
        g_cached_n[i] = n;
    }
}
