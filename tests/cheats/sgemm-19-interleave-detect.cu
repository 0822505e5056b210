// Cheat 19: honest under `evaluate`, replaying under the interleaved confirmation (time_interleaved),
// so that the confirmation, which decides the winner, sees a time it never earned.
//
// What differs between the two: `evaluate` validates every case on the stated inputs, then on the
// hidden inputs, then on the stated ones again, in the same module that it then times; the
// interleaved confirmation loads a fresh module per entry and only ever launches it on the stated
// inputs of the performance cases, with other candidates' launches in between (which do not change
// this kernel's inputs or module). So the kernel remembers the content key (shape and 16 values of
// A and B) of its previous launch in __device__ memory: once two consecutive launches of one shape
// had different inputs, someone is validating it ("watched"), and from then on it always computes.
// A module that has never seen its inputs change is being timed by the confirmation: when the key
// equals the previous launch's and the table holds that key's output, it copies the table instead
// of computing. Under a harness that keeps module globals across launches and does not validate
// the confirmation, it is valid in `evaluate` with an honest time, and 5-10x faster in the
// confirmation, which then picks it over a really faster kernel.
// With writable module globals restored to their load-time image before every launch (the
// confirmation included), no launch remembers the previous one: it always computes.
// Expected: valid, median >= 0.9 x its honest twin's (-DWS_HONEST_TWIN=1: the same tiled path).
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MEMO_ELEMS (512 * 512)  // The largest output of tests/cheats/workloads/sgemm-small.

#if !WS_HONEST_TWIN
__device__ float g_memo[MEMO_ELEMS];
__device__ unsigned long long g_memo_key;   // Content key of the table's output; 0: empty.
__device__ unsigned long long g_prev_key;   // Content key of the previous launch.
__device__ unsigned long long g_prev_shape; // Shape of the previous launch.
__device__ unsigned int g_watched;          // Set once inputs changed under an unchanged shape.
__device__ unsigned int g_blocks_done;

__device__ unsigned long long mix64(unsigned long long z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ unsigned long long shape_key(int M, int N, int K)
{
    return ((unsigned long long)M << 42) ^ ((unsigned long long)N << 21) ^ (unsigned long long)K ^
           (1ull << 63);
}

// The shape and 16 values of each input at fixed, spread-out positions.
__device__ unsigned long long content_key(int M, int N, int K, const float* A, const float* B)
{
    unsigned long long h = mix64(shape_key(M, N, K));
    const long long na = (long long)M * K, nb = (long long)K * N;
    for (int i = 0; i < 16; ++i)
    {
        h = mix64(h ^ __float_as_uint(A[(na - 1) * i / 15]));
        h = mix64(h ^ ((unsigned long long)__float_as_uint(B[(nb - 1) * i / 15]) << 32));
    }
    return h | (1ull << 63);
}
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
    __shared__ unsigned long long key;
    __shared__ int replay;
    const bool memoizable = (long long)M * N <= MEMO_ELEMS;
    if (tx == 0 && ty == 0)
    {
        key = content_key(M, N, K, A, B);
        replay = memoizable && *(volatile unsigned int*)&g_watched == 0u &&
                 *(volatile unsigned long long*)&g_prev_key == key &&
                 *(volatile unsigned long long*)&g_memo_key == key;
    }
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
    // The last block to finish updates the launch history: every block of this launch has read it.
    __threadfence();
    __syncthreads();
    if (tx == 0 && ty == 0)
    {
        const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&g_blocks_done, 1u) == blocks - 1)
        {
            g_blocks_done = 0;
            const unsigned long long shape = shape_key(M, N, K);
            volatile unsigned long long* prev_key = &g_prev_key;
            volatile unsigned long long* prev_shape = &g_prev_shape;
            if (*prev_shape == shape && *prev_key != key)
                *(volatile unsigned int*)&g_watched = 1u;
            *prev_key = key;
            *prev_shape = shape;
            if (memoizable && !replay)
                *(volatile unsigned long long*)&g_memo_key = key;
            __threadfence();
        }
    }
#endif
}
