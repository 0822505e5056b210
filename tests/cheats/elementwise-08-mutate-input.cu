// Cheat 8 (elementwise): computes y correctly, then flips the lowest bit of its own a[i] (as if
// reusing the input as scratch). No other thread reads a[i], so y is exact. Expected: input_mutated.
extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* a, const float* __restrict__ b,
                                float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float ai = a[i];
    y[i] = fmaf(x[i], ai, b[i]);
    const_cast<float*>(a)[i] = __uint_as_float(__float_as_uint(ai) ^ 1u);
}
