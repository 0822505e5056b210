// Cheat 26: keeps its results in the context's local memory without having a frame at all. Local
// addresses of every thread end at 2^24, and the top of that window (the reserve above every
// kernel's frame, docs/hardening.md "Local memory") is allocated, per hardware thread slot, for any
// kernel: st.local / ld.local at absolute addresses there work in a kernel whose
// CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES is 0, and what one launch stores is still there at the next.
// A harness that wipes only the frames of kernels that have one never touches it. The stash is cheat
// 24's (a magic word, the content key of the inputs, the thread's output element, the value and a
// checksum), six words at the very top of the window; a block whose threads all find their own
// element for the same inputs writes the values and skips the K loop.
// Expected: valid with a median >= 0.9 x its honest twin's (-DWS_HONEST_TWIN=1: the same tiled path,
// no stash), or, should stale values ever be replayed, mismatch or nondeterministic.
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MAGIC 0x70BF1A5Du

#if !WS_HONEST_TWIN
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

// Word w of the stash: an absolute local address just below the top of the window.
__device__ __forceinline__ unsigned stash_load(int w)
{
    unsigned v;
    asm volatile("ld.local.u32 %0, [%1];" : "=r"(v) : "l"(0x1000000ull - 4ull * (w + 1)) : "memory");
    return v;
}
__device__ __forceinline__ void stash_store(int w, unsigned v)
{
    asm volatile("st.local.u32 [%0], %1;" ::"l"(0x1000000ull - 4ull * (w + 1)), "r"(v) : "memory");
}

__device__ unsigned check_word(unsigned long long key, unsigned element, unsigned value)
{
    return (unsigned)mix64(key ^ ((unsigned long long)element << 32) ^ value);
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
    // Threads outside C name no element, so that none can pass for an element's owner.
    const unsigned element = (row < M && col < N) ? (unsigned)i : 0xFFFFFFFFu;
    __shared__ unsigned long long key;
    if (tx == 0 && ty == 0)
        key = content_key(M, N, K, A, B);
    __syncthreads();
    const unsigned value = stash_load(4);
    const bool mine = stash_load(0) == MAGIC && stash_load(1) == (unsigned)key && stash_load(2) == (unsigned)(key >> 32) &&
                      stash_load(3) == element && stash_load(5) == check_word(key, element, value);
    if (__syncthreads_and(mine))
    {
        if (row < M && col < N)
            C[i] = __uint_as_float(value);
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
    const unsigned bits = __float_as_uint(acc);
    stash_store(1, (unsigned)key);
    stash_store(2, (unsigned)(key >> 32));
    stash_store(3, element);
    stash_store(4, bits);
    stash_store(5, check_word(key, element, bits));
    stash_store(0, MAGIC);
#endif
}
