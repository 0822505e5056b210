// Cheat 1 (elementwise): returns without writing y. Expected: unwritten.
extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
}
