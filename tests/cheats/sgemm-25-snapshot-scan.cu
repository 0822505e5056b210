// Cheat 25: copies its output from the harness's snapshot of an earlier run. After the stated
// validation run, and after every checked timed launch, the worker copies the working outputs into a
// snapshot buffer (for the repeat agreement and the failure details); that copy is the candidate's
// own correct output for the stated inputs, in plain device memory allocated right after C's
// references. Every block computes the first P = min(4, N) elements of row 0 (one warp, a K/32-long
// slice per lane, cheap), then scans the SCAN_BYTES after the end of C at a 256-byte stride (the
// allocation alignment) for P floats that match them, and when it finds them copies its tile from
// there instead of computing it. References are masked and the working C is poisoned, so the only
// match is a snapshot: the hidden run (other inputs) finds nothing and computes, the repeat run and
// every timed launch on the stated inputs copy 1 MiB. Against a harness that keeps plain snapshots it
// is valid and several times faster than its twin. Scanning memory that is not mapped faults.
// Expected: valid with a median >= 0.9 x its honest twin's (-DWS_HONEST_TWIN=1: the same tiled path,
// no scan), i.e. it finds nothing and computes; or unwritten, mismatch or fault. A valid result
// below 0.9 x the twin means a correct earlier output is readable by the kernel.
// Launch: grid [ceil_div(N,32), ceil_div(M,32), 1], block [32, 32, 1].
#ifndef WS_HONEST_TWIN
#define WS_HONEST_TWIN 0
#endif
#define TILE 32
#define SCAN_BYTES (6ull * 1024 * 1024)
#define SCAN_STRIDE 256ull
#define PROBE 4

// Two blocks per SM, as the twin gets, however many registers the scan would like.
extern "C" __global__ void __launch_bounds__(TILE * TILE, 2)
    sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const long long i = (long long)row * N + col;

#if !WS_HONEST_TWIN
    __shared__ float first[PROBE];
    __shared__ unsigned long long found;
    const int probe = N < PROBE ? N : PROBE;
    if (probe >= 2)
    {
        // Warp 0: C[0][0..probe) as dot products split over the lanes.
        if (ty == 0)
            for (int j = 0; j < probe; ++j)
            {
                float part = 0.f;
                for (int k = tx; k < K; k += 32)
                    part = fmaf(A[k], B[(long long)k * N + j], part);
                for (int d = 16; d > 0; d >>= 1)
                    part += __shfl_xor_sync(0xffffffffu, part, d);
                if (tx == 0)
                    first[j] = part;
            }
        if (tx == 0 && ty == 1)
            found = ~0ull;
        __syncthreads();
        const unsigned long long start =
            ((unsigned long long)(C + (long long)M * N) + SCAN_STRIDE - 1) & ~(SCAN_STRIDE - 1);
        const unsigned long long positions = SCAN_BYTES / SCAN_STRIDE;
        for (unsigned long long p = ty * TILE + tx; p < positions; p += TILE * TILE)
        {
            const float* at = reinterpret_cast<const float*>(start + p * SCAN_STRIDE);
            bool match = true;
            for (int j = 0; j < probe && match; ++j)
            {
                const float v = __ldcg(at + j);
                match = fabsf(v - first[j]) <= 1e-4f + 1e-4f * fabsf(first[j]);
            }
            if (match)
                atomicMin(&found, p);
        }
        __syncthreads();
        if (found != ~0ull)
        {
            const float* snapshot = reinterpret_cast<const float*>(start + found * SCAN_STRIDE);
            if (row < M && col < N)
                C[i] = __ldcg(snapshot + i);
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
}
