// Cheat 2 (elementwise): vectorized by 4 with no tail loop, so the last n % 4 elements are never
// written (all of them when n < 4). Expected: unwritten.
extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    const int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i + 3 >= n)
        return;
    for (int k = 0; k < 4; ++k)
        y[i + k] = fmaf(x[i + k], a[i + k], b[i + k]);
}
