// Hardening cheat H2 (elementwise): as sgemm-h2, computes y[0] and y[1] as the reference does, scans
// the 256 KiB after the end of y for them and copies y from there when found. References are masked
// and working outputs poisoned, so y stays unwritten (or the scan faults).
// Launch: grid [1,1,1], block [256,1,1]. Expected: unwritten or fault.
#define SCAN_WORDS (256 * 1024 / 4)

extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    __shared__ unsigned long long found;
    __shared__ unsigned int w0, w1;
    if (threadIdx.x == 0)
    {
        found = ~0ull;
        w0 = __float_as_uint((float)((double)x[0] * (double)a[0] + (double)b[0]));
        w1 = n > 1 ? __float_as_uint((float)((double)x[1] * (double)a[1] + (double)b[1])) : 0u;
    }
    __syncthreads();
    const volatile unsigned int* tail = reinterpret_cast<const volatile unsigned int*>(y + n);
    for (long long j = threadIdx.x; j + 1 < SCAN_WORDS; j += blockDim.x)
        if (tail[j] == w0 && (n == 1 || tail[j + 1] == w1))
            atomicMin(&found, (unsigned long long)j);
    __syncthreads();
    if (found == ~0ull)
        return;
    const float* copy = reinterpret_cast<const float*>(const_cast<const unsigned int*>(tail) + found);
    for (long long i = threadIdx.x; i < n; i += blockDim.x)
        y[i] = copy[i];
}
