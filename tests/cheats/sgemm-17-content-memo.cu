// Cheat 17: results cached by input content (the residual risk docs/hardening.md listed first, issue
// 13). Every block hashes the shape and 16 values each of A and B at fixed positions; the output of
// the last fully computed launch is kept in a __device__ table together with that key. A launch whose
// key matches copies its tile from the table instead of computing it. The hidden-seed run changes
// every input value, so it misses and computes; the repeat run misses again (the table then holds
// the hidden output) and recomputes the stated output; every warm-up and timed launch after it hits
// and only copies 1 MiB. All outputs are right for the inputs the launch was given, so a harness that
// keeps the module's globals for the whole evaluation validates it (sampled timed launches included)
// and times the copy: several times faster than the 32 x 32 tiled SGEMM it pretends to be.
// With writable module globals restored to their load-time image before every launch, the key is
// always zero, every launch computes, and the cheat costs its honest twin's time plus the hash.
// Expected: valid, median >= 0.9 x the twin's (-DWS_HONEST_TWIN=1: the same tiled path, no memo).
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MEMO_ELEMS (512 * 512)  // The largest output of tests/cheats/workloads/sgemm-small.

#if !WS_HONEST_TWIN
__device__ float g_memo[MEMO_ELEMS];
__device__ unsigned long long g_memo_key;  // 0: empty (a real key has its top bit set).
__device__ unsigned int g_blocks_done;

__device__ unsigned long long mix64(unsigned long long z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The shape and 16 values of each input at fixed, spread-out positions.
__device__ unsigned long long content_key(int M, int N, int K, const float* A, const float* B)
{
    unsigned long long h = mix64(((unsigned long long)M << 42) ^ ((unsigned long long)N << 21) ^ (unsigned)K);
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
    __shared__ int hit;
    const bool memoizable = (long long)M * N <= MEMO_ELEMS;
    if (tx == 0 && ty == 0)
    {
        key = content_key(M, N, K, A, B);
        hit = memoizable && *(volatile unsigned long long*)&g_memo_key == key;
    }
    __syncthreads();
    if (hit)
    {
        if (row < M && col < N)
            C[i] = g_memo[i];
        return;
    }
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
        C[i] = acc;

#if !WS_HONEST_TWIN
    if (!memoizable)
        return;
    if (row < M && col < N)
        g_memo[i] = acc;
    // The last block to finish publishes the key: every block of this launch has read the old key
    // by then, and the table is complete.
    __threadfence();
    __syncthreads();
    if (tx == 0 && ty == 0)
    {
        const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&g_blocks_done, 1u) == blocks - 1)
        {
            g_blocks_done = 0;
            *(volatile unsigned long long*)&g_memo_key = key;
            __threadfence();
        }
    }
#endif
}
