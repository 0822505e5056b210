// Cheat 20: cheat 17's content memo kept on the device heap instead of in a __device__ array. The
// last block of the first launch allocates the table with device-side malloc (once; the pointer is
// kept in a __device__ variable); launches then key it by the shape and 16 values of each input and
// replay it when the key matches, as cheat 17 does. Heap blocks are not part of the module image, so
// restoring the module's globals would not clear a table whose address the kernel could find again,
// and a harness that only reloads the module per evaluation keeps it for the whole evaluation:
// valid, and its timed launches are a 1 MiB copy.
// The worker refuses modules that call the device heap (malloc, free, new, delete) when it loads
// them, before anything runs. Expected: compile_error, with a message that names malloc. The honest
// twin (-DWS_HONEST_TWIN=1) is the same tiled path without the heap and is valid.
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define MEMO_ELEMS (512 * 512)  // The largest output of tests/cheats/workloads/sgemm-small.

#if !WS_HONEST_TWIN
__device__ float* g_heap_memo;              // Device-heap table, allocated once.
__device__ unsigned long long g_memo_key;   // 0: empty (a real key has its top bit set).
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
    __shared__ float* memo;
    __shared__ int hit;
    const bool memoizable = (long long)M * N <= MEMO_ELEMS;
    if (tx == 0 && ty == 0)
    {
        key = content_key(M, N, K, A, B);
        memo = *(float* volatile*)&g_heap_memo;
        hit = memoizable && memo != nullptr && *(volatile unsigned long long*)&g_memo_key == key;
    }
    __syncthreads();
    if (hit)
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
    if (!memoizable)
        return;
    if (memo != nullptr && row < M && col < N)
        memo[i] = acc;
    __threadfence();
    __syncthreads();
    if (tx == 0 && ty == 0)
    {
        const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&g_blocks_done, 1u) == blocks - 1)
        {
            g_blocks_done = 0;
            if (memo == nullptr)  // First launch: allocate; the next launch fills the table.
                *(float* volatile*)&g_heap_memo = static_cast<float*>(malloc(MEMO_ELEMS * sizeof(float)));
            else
                *(volatile unsigned long long*)&g_memo_key = key;
            __threadfence();
        }
    }
#endif
}
