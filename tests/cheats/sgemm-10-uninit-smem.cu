// Cheat 10: a tiled kernel whose accumulator starts from shared memory that nobody wrote (the
// author meant to zero it). The stale bits of that word decide the result: zero-filled shared
// memory gives the right answer, anything else adds up to 255 to every element. A harness that
// never scrubs shared memory may see the same leftovers every run; with a different fill pattern
// per run the runs disagree or mismatch. Expected: nondeterministic or mismatch.
#define TILE 16

extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    __shared__ unsigned never_written[TILE * TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;

    float acc = (float)(never_written[ty * TILE + tx] & 0xffu);
    for (int k0 = 0; k0 < K; k0 += TILE)
    {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(long long)row * N + col] = acc;
}
