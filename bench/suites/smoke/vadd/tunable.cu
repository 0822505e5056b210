// FAKE: median_us=120
// THREADS threads per block, ITEMS elements per thread (strided by the block size).
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    const int base = blockIdx.x * THREADS * ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
    {
        const int i = base + k * THREADS;
        if (i < n)
            c[i] = a[i] + b[i];
    }
}
