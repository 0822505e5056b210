// Cheat 12: dereferences a wild pointer (an address in the unmapped first page), which raises an
// illegal-address error that poisons the CUDA context. The harness must diagnose it and restart
// its worker. Expected: fault.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    const volatile float* wild = reinterpret_cast<const volatile float*>(0x40ull);
    float acc = wild[row & 7];
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[(long long)row * N + col] = acc;
}
