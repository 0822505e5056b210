// Cheat 9 (elementwise): correct y, plus a store 12 bytes past its end (inside the guard zone).
// Expected: out_of_bounds_write.
extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaf(x[i], a[i], b[i]);
    if (i == 0)
        y[n + 3] = 42.f;
}
