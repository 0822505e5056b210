// Hardening cheat H3: does its work only when its output holds the poison pattern, i.e. only in the
// launches a harness that poisons selectively would check, and returns at once otherwise, leaving the
// previous launch's (correct) results in place. Against a harness that poisons only checked launches
// it passes every check and its timed launches cost almost nothing. Outputs are poisoned before
// every launch, so it always computes: valid, with a median equal to its honest twin's (the
// valid-sgemm-tiled control uses a different algorithm; bench/cheat_recovery compares H3 with H1,
// which is the same naive kernel). Expected: valid.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    const long long i = (long long)row * N + col;
    if (__float_as_uint(C[i]) != 0x7FA5A5A5u)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[i] = acc;
}
