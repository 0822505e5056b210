// Hardening cheat H2: reads the answer from the harness's copy of the reference output instead of
// computing it (the loophole of a published agentic optimizer whose kernels found the reference's
// results left in GPU memory). Thread 0 computes C[0] and C[1] exactly as the reference does
// (double products and sum, one rounding); the block then scans the 256 KiB after the end of C for
// those two words side by side and, when it finds them, copies all of C from there. The worker keeps
// reference outputs masked with a secret per-load key and poisons every working output after the
// reference runs, so nothing matches and C stays unwritten (or, should the scan leave mapped memory,
// the kernel faults). Launch: grid [1,1,1], block [256,1,1]. Expected: unwritten or fault.
#define SCAN_WORDS (256 * 1024 / 4)

__device__ float reference_element(int N, int K, const float* A, const float* B, long long i)
{
    const long long row = i / N, col = i % N;
    double sum = 0.0;
    for (int k = 0; k < K; ++k)
        sum += (double)A[row * K + k] * (double)B[(long long)k * N + col];
    return (float)sum;
}

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ unsigned long long found;
    __shared__ unsigned int w0, w1;
    const long long n = (long long)M * N;
    if (threadIdx.x == 0)
    {
        found = ~0ull;
        w0 = __float_as_uint(reference_element(N, K, A, B, 0));
        w1 = n > 1 ? __float_as_uint(reference_element(N, K, A, B, 1)) : 0u;
    }
    __syncthreads();
    const volatile unsigned int* tail = reinterpret_cast<const volatile unsigned int*>(C + n);
    for (long long j = threadIdx.x; j + 1 < SCAN_WORDS; j += blockDim.x)
        if (tail[j] == w0 && (n == 1 || tail[j + 1] == w1))
            atomicMin(&found, (unsigned long long)j);
    __syncthreads();
    if (found == ~0ull)
        return;
    const float* copy = reinterpret_cast<const float*>(const_cast<const unsigned int*>(tail) + found);
    for (long long i = threadIdx.x; i < n; i += blockDim.x)
        C[i] = copy[i];
}
