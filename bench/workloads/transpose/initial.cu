// Transpose initial kernel: the classic 32 x 32 shared-memory tile (padded by one column against
// bank conflicts), 32 x 8 threads, each moving 4 elements in and 4 out; both global phases
// coalesced. Edge tiles are bounds-checked element by element.
// Launch: grid (ceil_div(cols,32), ceil_div(rows,32)), block (32, 8).
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose(int rows, int cols, const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c0 = blockIdx.x * TILE;
    const int r0 = blockIdx.y * TILE;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    for (int r = ty; r < TILE; r += ROWS)
        if (r0 + r < rows && c0 + tx < cols)
            tile[r][tx] = in[(long long)(r0 + r) * cols + c0 + tx];
    __syncthreads();
    for (int c = ty; c < TILE; c += ROWS)
        if (c0 + c < cols && r0 + tx < rows)
            out[(long long)(c0 + c) * rows + r0 + tx] = tile[tx][c];
}
