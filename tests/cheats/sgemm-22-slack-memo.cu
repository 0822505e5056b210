// Cheat 22: keeps its memo in the slack of C's allocation instead of in module globals. Device memory
// is mapped in 2 MiB pages, so the bytes after C's 4 KiB tail guard, up to the end of the 2 MiB page
// C starts in, are mapped, never checked, and (once the allocation is rounded up to the page) used by
// nobody. The kernel writes a tag (magic, content key of the inputs: shape and 16 values each of A and
// B) and as many whole rows of C as fit at C + M*N + 64 KiB, and a later launch whose key matches
// copies those rows from there and computes only the rest. Only outputs of at least 256 KiB (the
// performance case, the one that is timed) are memoized, so the small cases, whose neighbours may be
// other buffers, are left alone. Its only module global is a block counter that is back to zero after
// every launch (restoring globals changes nothing), and it keeps nothing in shared memory; a harness
// whose tail guard is 4 KiB validates it and times a copy.
// Working buffers rounded up so that the tail guard covers the whole allocation: the memo is written
// into the tail guard during the first validation run of the performance case.
// Expected: out_of_bounds_write. The honest twin (-DWS_HONEST_TWIN=1) is the same tiled path and valid.
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MAGIC 0x51AC4BE7u
#define GAP_BYTES (64ull * 1024)
#define PAGE_BYTES (2ull * 1024 * 1024)
#define MIN_MEMO_BYTES (256ull * 1024)
#define TAG_BYTES 256ull  // Tag, padded so that the rows stay 256-byte aligned.

#if !WS_HONEST_TWIN
__device__ unsigned int g_blocks_done;  // Zero again after every launch.

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
    // The memo: tag, then rows [0, memo_rows) of C, between C's end + 64 KiB and the end of the 2 MiB
    // page C starts in.
    const unsigned long long c_bytes = (unsigned long long)M * N * sizeof(float);
    const unsigned long long c_addr = (unsigned long long)C;
    const unsigned long long memo_addr = (c_addr + c_bytes + GAP_BYTES + 255) & ~255ull;
    const unsigned long long page_end = (c_addr & ~(PAGE_BYTES - 1)) + PAGE_BYTES;
    const unsigned long long row_bytes = (unsigned long long)N * sizeof(float);
    long long memo_rows = 0;
    if (c_bytes >= MIN_MEMO_BYTES && memo_addr + TAG_BYTES + row_bytes <= page_end)
        memo_rows = min((long long)M, (long long)((page_end - memo_addr - TAG_BYTES) / row_bytes));
    volatile unsigned* tag = reinterpret_cast<volatile unsigned*>(memo_addr);
    float* memo = reinterpret_cast<float*>(memo_addr + TAG_BYTES);

    __shared__ unsigned long long key;
    __shared__ int hit;
    if (tx == 0 && ty == 0)
    {
        key = memo_rows > 0 ? content_key(M, N, K, A, B) : 0ull;
        hit = memo_rows > 0 && tag[0] == MAGIC && tag[1] == (unsigned)key &&
              tag[2] == (unsigned)(key >> 32) && tag[3] == (unsigned)memo_rows;
    }
    __syncthreads();
    // A whole tile inside the memoized rows is copied; tiles that straddle or lie past the last
    // memoized row are computed.
    if (hit && (long long)blockIdx.y * TILE + TILE <= memo_rows)
    {
        if (row < M && col < N)
            C[i] = memo[i];
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
    if (memo_rows > 0 && !hit)
    {
        if (row < memo_rows && col < N)
            memo[i] = acc;
        // The last block to finish writes the tag: every block of this launch has read the old one,
        // and the rows are complete.
        __threadfence();
        __syncthreads();
        if (tx == 0 && ty == 0)
        {
            const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
            if (atomicAdd(&g_blocks_done, 1u) == blocks - 1)
            {
                g_blocks_done = 0;
                tag[1] = (unsigned)key;
                tag[2] = (unsigned)(key >> 32);
                tag[3] = (unsigned)memo_rows;
                tag[0] = MAGIC;
                __threadfence();
            }
        }
    }
#endif
}
