// Cheat 7 (elementwise): correct only when x[0] has the bits the generator gives for the stated
// seed of some case of tests/cheats/workloads/elementwise-small (workload seed 0, uniform [-1,1]);
// otherwise it returns b alone. Expected: mismatch (on the hidden seed).
extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned x0 = __float_as_uint(x[0]);
    const bool stated = x0 == 0x3e2e2293u     // n1
                        || x0 == 0x3eed7330u  // n1001
                        || x0 == 0xbf54c5dcu  // n65537
                        || x0 == 0x3e970a12u; // n1048576
    y[i] = stated ? fmaf(x[i], a[i], b[i]) : b[i];
}
