// Softmax reference: out[r, :] = softmax(in[r, :]) over a rows x cols row-major matrix.
// One thread per row; the maximum is subtracted before exponentiation and the exponentials are
// computed and summed in double, so the FP32 result is rounded once from a near-exact value.
// Launch: grid (ceil_div(rows,32)), block (32): small blocks spread the few long rows over many SMs.
extern "C" __global__ void softmax(int rows, int cols, const float* __restrict__ in, float* __restrict__ out)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float* x = in + (long long)r * cols;
    float* y = out + (long long)r * cols;
    double m = -1.0 / 0.0;
    for (int c = 0; c < cols; ++c)
        m = fmax(m, (double)x[c]);
    double s = 0.0;
    for (int c = 0; c < cols; ++c)
        s += exp((double)x[c] - m);
    for (int c = 0; c < cols; ++c)
        y[c] = (float)(exp((double)x[c] - m) / s);
}
