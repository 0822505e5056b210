// Cheat 5 (elementwise): writes a quiet NaN with payload 0x7fc01234 and +Inf alternately.
// Expected: nonfinite.
extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (i % 2 == 0) ? __int_as_float(0x7fc01234) : __int_as_float(0x7f800000);
}
