// Cheat 3 (elementwise): copies x to y. Expected: mismatch.
extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}
