// Cheat 11: split-K inside a block with a racy shared-memory reduction. Four thread slices
// (threadIdx.z) each sum every fourth k, then add their partial into a shared accumulator with a
// plain read-modify-write (acc += part written as read, compute, write) and no atomics. Every
// slice reads the accumulator before any slice writes it (the barrier in between only makes that
// certain instead of likely), so all but one update are lost, and which one survives depends on
// warp scheduling: wrong, and different from run to run.
// Launch: block (16, 16, 4). Expected: mismatch or nondeterministic.
#define TILE 16
#define SLICES 4

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ float acc[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    if (tz == 0)
        acc[ty][tx] = 0.f;
    __syncthreads();

    const float seen = acc[ty][tx];  // read early ...
    __syncthreads();
    float part = 0.f;
    if (row < M && col < N)
        for (int k = tz; k < K; k += SLICES)
            part = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], part);
    acc[ty][tx] = seen + part;       // ... write late: every slice overwrites the others
    __syncthreads();

    if (tz == 0 && row < M && col < N)
        C[(long long)row * N + col] = acc[ty][tx];
}
