// Cheat 15 (elementwise): counts its launches per n in __device__ memory and, from the 5th launch
// of a size on (after the stated, hidden and repeat validation runs and one spare), writes nothing
// at all: the timed launches then cost almost nothing. Catching it needs the output of a timed
// launch to be poisoned before that launch and validated after it (warmup + iterations >= 2).
// Expected: timed_output_mismatch.
#define SLOTS 64
#define HONEST_LAUNCHES 4

__device__ int g_size_key[SLOTS];
__device__ unsigned long long g_block_count[SLOTS];

extern "C" __global__ void axpb(int n, const float* __restrict__ x, const float* __restrict__ a,
                                const float* __restrict__ b, float* __restrict__ y)
{
    __shared__ unsigned long long launch_index;
    if (threadIdx.x == 0)
    {
        unsigned slot = ((unsigned)n * 2654435761u) >> 26;
        for (int probe = 0; probe < SLOTS; ++probe, slot = (slot + 1) % SLOTS)
        {
            const int prev = atomicCAS(&g_size_key[slot], 0, n);
            if (prev == 0 || prev == n)
                break;
        }
        launch_index = atomicAdd(&g_block_count[slot], 1ull) / gridDim.x;
    }
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && launch_index < HONEST_LAUNCHES)
        y[i] = fmaf(x[i], a[i], b[i]);
}
