// Cheat 7: correct only on the stated inputs. It recognizes them by the bits of A[0], which for
// every case of tests/cheats/workloads/sgemm-small (workload seed 0, case seed
// derived_case_seed(0, case name), uniform [-1,1]) are listed below, computed with the generator
// of harness/workload/input_generator.hpp (checked against an independent Python version).
// On any other inputs it writes a cheap wrong answer. Expected: mismatch (on the hidden seed).
__device__ __forceinline__ bool stated_inputs(const float* A)
{
    const unsigned a0 = __float_as_uint(A[0]);
    return a0 == 0xbf3bb739u     // 37x61x19
           || a0 == 0xbebc97edu  // 1x1x1
           || a0 == 0x3f1be711u  // 129x65x33
           || a0 == 0x3d8b6b00u  // 100x3x7
           || a0 == 0xbf2bfa7du  // 64x64x4099
           || a0 == 0x3e93bc21u; // 512x512x512
}

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.f;
    if (stated_inputs(A))
    {
        for (int k = 0; k < K; ++k)
            acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    }
    else
    {
        acc = A[(long long)row * K] * B[col];  // one term of K: fast and wrong
    }
    C[(long long)row * N + col] = acc;
}
