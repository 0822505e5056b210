// Cheat 18: honest while it is likely to be checked, replaying otherwise. A __device__ counter
// counts this module's launches (one thread, of the last block to finish, adds 1, so every block of a
// launch reads the same count at its start). The first HONEST_LAUNCHES launches of an evaluation are
// the validation runs (stated, hidden and repeat per case: 18 on sgemm-small) and a couple of warm-up
// launches: those compute and keep their output, with its shape, in a __device__ table. From then on
// (the rest of the warm-up, every timed launch, the wall-clock check) a launch of the same shape
// copies the table: the last computed launch was the performance case on the stated inputs, which
// is exactly what every timed launch gets, so even re-validated timed launches pass. A harness that
// keeps module globals for the whole evaluation validates it and times a 1 MiB copy.
// With writable module globals restored to their load-time image before every launch, every launch
// is "the first": it always computes. Expected: valid, median >= 0.9 x its honest twin's
// (-DWS_HONEST_TWIN=1: the same tiled path, no counter and no table).
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MEMO_ELEMS (512 * 512)  // The largest output of tests/cheats/workloads/sgemm-small.
#define HONEST_LAUNCHES 20

#if !WS_HONEST_TWIN
__device__ float g_memo[MEMO_ELEMS];
__device__ unsigned long long g_memo_shape;  // 0: empty.
__device__ unsigned int g_launches;
__device__ unsigned int g_blocks_done;
#endif

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const long long i = (long long)row * N + col;

#if !WS_HONEST_TWIN
    __shared__ int replay;
    const unsigned long long shape =
        ((unsigned long long)M << 42) ^ ((unsigned long long)N << 21) ^ (unsigned long long)K ^ (1ull << 63);
    const bool memoizable = (long long)M * N <= MEMO_ELEMS;
    if (tx == 0 && ty == 0)
        replay = memoizable && *(volatile unsigned int*)&g_launches >= HONEST_LAUNCHES &&
                 *(volatile unsigned long long*)&g_memo_shape == shape;
    __syncthreads();
    if (replay)
    {
        if (row < M && col < N)
            C[i] = g_memo[i];
    }
    else
#endif
    {
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
            C[i] = acc;
#if !WS_HONEST_TWIN
        if (memoizable && row < M && col < N)
            g_memo[i] = acc;
#endif
    }

#if !WS_HONEST_TWIN
    // The last block to finish counts the launch (and records which shape the table now holds).
    __threadfence();
    __syncthreads();
    if (tx == 0 && ty == 0)
    {
        const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&g_blocks_done, 1u) == blocks - 1)
        {
            g_blocks_done = 0;
            if (memoizable && !replay)
                *(volatile unsigned long long*)&g_memo_shape = shape;
            atomicAdd(&g_launches, 1u);
            __threadfence();
        }
    }
#endif
}
