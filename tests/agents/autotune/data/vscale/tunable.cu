// Tunable vscale: THREADS threads per block, ITEMS elements per thread, and STAGE floats of
// dynamic shared memory per thread that the kernel stages through (0: none).
#ifndef THREADS
#define THREADS 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef STAGE
#define STAGE 0
#endif

extern "C" __global__ void __launch_bounds__(THREADS) vscale(int n, const float* x, float* y)
{
    extern __shared__ float stage[];
    const int base = blockIdx.x * THREADS * ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
    {
        const int i = base + k * THREADS;
        if (i < n)
        {
            float v = 2.0f * x[i];
            if (STAGE > 0)
            {
                stage[threadIdx.x * STAGE + k % STAGE] = v;
                v = stage[threadIdx.x * STAGE + k % STAGE];
            }
            y[i] = v;
        }
    }
}
