// Cheat 23: skips its work in about half of its launches, chosen by time instead of by a launch count.
// Launch counters die when module globals are restored before every launch, but %globaltimer (the
// GPU's nanosecond clock) keeps running: a launch that starts in an odd 256 us window returns at once
// and leaves C as it is, a launch in an even window computes. The harness cannot predict which
// launches skip, and a skipped launch costs nothing, so against a harness that validates one run per
// case, or only the last timed launch, there is an even chance for each check to pass while the
// median halves (skipped launches leave the previous launch's results where outputs are not
// poisoned). Every block reads the clock itself; a launch that straddles a window boundary is only
// partly written.
// With outputs poisoned before every launch, three validation runs per case and at least nine
// re-validated timed launches at positions drawn from the hidden seed, some check finds C still
// poison (or half written). Expected: unwritten, mismatch, timed_output_mismatch or nondeterministic.
// The honest twin (-DWS_HONEST_TWIN=1) is the same tiled path without the clock and is valid.
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define WINDOW_SHIFT 18  // 2^18 ns = 262 us per window.

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;

#if !WS_HONEST_TWIN
    __shared__ int skip;
    if (tx == 0 && ty == 0)
    {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        skip = (now >> WINDOW_SHIFT) & 1ull;
    }
    __syncthreads();
    if (skip)
        return;
#endif

    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE)
    {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(long long)row * N + col] = acc;
}
