// Hardening probe H1 (not a cheat by itself): it proves that no launch ever finds the results of an
// earlier launch in its output. Each thread looks at its element of C before writing it; anything
// but the float32 poison pattern (0x7FA5A5A5) is a stale result, and once one was seen (flag in
// __device__ memory, which lives as long as the module) every later result is off by 1000. A harness
// that poisons outputs only before the launches it checks lets a kernel skip its work in every other
// timed launch (see sgemm-h3); with this probe such a harness fails the checked timed launches
// (timed_output_mismatch). Expected: valid (outputs are poisoned before every launch).
__device__ unsigned int g_saw_stale_output;

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    const long long i = (long long)row * N + col;
    if (__float_as_uint(C[i]) != 0x7FA5A5A5u)
        atomicOr(&g_saw_stale_output, 1u);
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    if (*reinterpret_cast<volatile unsigned int*>(&g_saw_stale_output) != 0u)
        acc += 1000.f;
    C[i] = acc;
}
