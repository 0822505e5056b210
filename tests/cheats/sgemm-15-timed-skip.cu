// Cheat 15: behaves during validation, cuts corners when timed. It counts its own launches per
// problem shape in __device__ memory (thread 0 of every block adds 1; launches on one stream do
// not overlap, so old_count / blocks_per_launch is this launch's index). From the 5th launch of a
// shape on (past the stated, hidden and repeat validation runs and one spare, i.e. from the
// warm-up on), it sums only the first half of K: about twice as fast and wrong. Any timing with
// warmup + iterations >= 2 has its last, re-validated timed launch in that range.
// Expected: timed_output_mismatch.
#define SLOTS 64
#define HONEST_LAUNCHES 4

__device__ unsigned long long g_shape_key[SLOTS];
__device__ unsigned long long g_block_count[SLOTS];

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ unsigned long long launch_index;
    if (threadIdx.x == 0 && threadIdx.y == 0)
    {
        const unsigned long long key = ((unsigned long long)M << 42) ^ ((unsigned long long)N << 21) ^
                                       (unsigned long long)K ^ (1ull << 63);
        unsigned slot = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 58);
        for (int probe = 0; probe < SLOTS; ++probe, slot = (slot + 1) % SLOTS)
        {
            const unsigned long long prev = atomicCAS(&g_shape_key[slot], 0ull, key);
            if (prev == 0ull || prev == key)
                break;
        }
        const unsigned long long blocks = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
        launch_index = atomicAdd(&g_block_count[slot], 1ull) / blocks;
    }
    __syncthreads();

    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    const int k_end = launch_index < HONEST_LAUNCHES ? K : K / 2;
    float acc = 0.f;
    for (int k = 0; k < k_end; ++k)
        acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
    C[(long long)row * N + col] = acc;
}
