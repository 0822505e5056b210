// Cheat 24: keeps its results in local memory (the per-thread stack) across launches. Local memory
// is a per-context device allocation indexed by the hardware slot (SM, warp slot, lane) a thread
// runs in; it is not cleared between launches, and a thread of the next launch that gets the same
// slot reads what the previous occupant left at the same stack offset. Each thread keeps a small
// volatile stack array that it reads before writing it: a magic word, the content key of the inputs
// (shape and 16 values each of A and B), the index of its output element, the value and a checksum.
// When every thread of a block finds its own element for the same inputs, the block writes the
// values and skips the K loop. Nothing is kept in module globals or shared memory, so neither
// restoring globals nor scrubbing shared memory removes it; the hidden run changes the key, so only
// launches on the inputs of the previous launch replay, and their values are right.
// Expected: valid with a median >= 0.9 x its honest twin's (-DWS_HONEST_TWIN=1: the same tiled path,
// no stash), or, should stale values ever be replayed, mismatch or nondeterministic. A valid result
// below 0.9 x the twin means local memory carries results between launches.
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MAGIC 0x10CA1E5Du

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
    // Never initialised on purpose. A volatile local array is not enough: local memory is private,
    // so the compilers drop the volatile and then the loads of never-written words. Accessed through
    // a generic pointer mixed with a run-time zero (M is never negative), the array stays in local
    // memory and every access is a real load or store.
    unsigned stash_words[6];
    volatile unsigned* stash = reinterpret_cast<volatile unsigned*>(
        reinterpret_cast<unsigned long long>(stash_words) ^ ((unsigned long long)((unsigned)M >> 31) << 40));
    __shared__ unsigned long long key;
    if (tx == 0 && ty == 0)
        key = content_key(M, N, K, A, B);
    __syncthreads();
    const unsigned value = stash[4];
    const bool mine = stash[0] == MAGIC && stash[1] == (unsigned)key && stash[2] == (unsigned)(key >> 32) &&
                      stash[3] == element && stash[5] == check_word(key, element, value);
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
    stash[1] = (unsigned)key;
    stash[2] = (unsigned)(key >> 32);
    stash[3] = element;
    stash[4] = bits;
    stash[5] = check_word(key, element, bits);
    stash[0] = MAGIC;
#endif
}
