// Hardening probe H1 (elementwise): as sgemm-h1, each thread checks that its element of y holds the
// poison pattern before it writes it; after any stale sighting every later result is off by 1000.
// Expected: valid (outputs are poisoned before every launch, warm-up and timed launches included).
__device__ unsigned int g_saw_stale_output;

extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (__float_as_uint(y[i]) != 0x7FA5A5A5u)
        atomicOr(&g_saw_stale_output, 1u);
    float v = fmaf(x[i], a[i], b[i]);
    if (*reinterpret_cast<volatile unsigned int*>(&g_saw_stale_output) != 0u)
        v += 1000.f;
    y[i] = v;
}
