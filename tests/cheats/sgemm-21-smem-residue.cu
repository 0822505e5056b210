// Cheat 21: keeps its results in shared memory across launches. Shared memory is not cleared when a
// block exits; the next block that gets the same slot on the same SM finds what the previous one
// left. Back-to-back launches of one grid tend to map block (x, y) to the same SM slot again, and the
// harness's own work between timed launches (output poison, L2 scrub, copies) uses no shared memory.
// So every block leaves, next to its tiles, a tag (magic word, content key of the inputs: shape and
// 16 values each of A and B, its block coordinates, an XOR checksum) and its whole 32 x 32 output
// tile. A block that finds its own tag for the same inputs, with a matching checksum, writes the tile
// from shared memory and skips the K loop. Against a harness that scrubs shared memory only before
// validation runs, the validation runs compute and the timed launches replay what they can.
// Shared memory scrubbed before every launch (timed ones too): no tag survives, every block computes.
// Expected: valid with a median >= 0.9 x its honest twin's (-DWS_HONEST_TWIN=1: the same tiled
// path, no residue), or, should some residue outlive the scrub, mismatch or nondeterministic.
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MAGIC 0x5E51D0E5u
#define TAG_WORDS 8

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

// XOR of v over the block, into *sum (zeroed beforehand); ends with a barrier.
__device__ void block_xor(unsigned v, unsigned* sum)
{
    v = __reduce_xor_sync(0xffffffffu, v);
    if ((threadIdx.x & 31) == 0)
        atomicXor(sum, v);
    __syncthreads();
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
    // Never initialised on purpose: what is here at the start is the previous occupant's residue.
    __shared__ unsigned residue[TAG_WORDS + TILE * TILE];
    volatile unsigned* tag = residue;
    volatile unsigned* tile = residue + TAG_WORDS;
    __shared__ unsigned long long key;
    __shared__ unsigned checksum;
    __shared__ int tagged;
    if (tx == 0 && ty == 0)
    {
        key = content_key(M, N, K, A, B);
        checksum = 0u;
        tagged = tag[0] == MAGIC && tag[1] == (unsigned)key && tag[2] == (unsigned)(key >> 32) &&
                 tag[3] == blockIdx.x && tag[4] == blockIdx.y;
    }
    __syncthreads();
    if (tagged)
    {
        const unsigned v = tile[ty * TILE + tx];
        block_xor(v, &checksum);
        if (checksum == tag[5])
        {
            if (row < M && col < N)
                C[i] = __uint_as_float(v);
            return;
        }
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
    // Leave the tile and its tag for whoever gets this slot next.
    tile[ty * TILE + tx] = __float_as_uint(acc);
    if (tx == 0 && ty == 0)
        checksum = 0u;
    __syncthreads();
    block_xor(__float_as_uint(acc), &checksum);
    if (tx == 0 && ty == 0)
    {
        tag[1] = (unsigned)key;
        tag[2] = (unsigned)(key >> 32);
        tag[3] = blockIdx.x;
        tag[4] = blockIdx.y;
        tag[5] = checksum;
        tag[0] = MAGIC;
    }
#endif
}
