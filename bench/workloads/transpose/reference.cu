// Transpose reference: out[c][r] = in[r][c] for a rows x cols row-major input; out is cols x rows.
// One thread per element, reads coalesced, writes strided: obviously correct, not fast.
// Launch: grid (ceil_div(cols,32), ceil_div(rows,8)), block (32, 8).
extern "C" __global__ void transpose(int rows, int cols, const float* __restrict__ in, float* __restrict__ out)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[(long long)c * rows + r] = in[(long long)r * cols + c];
}
