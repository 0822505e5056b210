// Softmax initial kernel: one block of 256 threads per row, three passes over the row (maximum,
// sum of exponentials, normalized write), each reduction through a shared-memory tree.
// Launch: grid (rows), block (256).
#define THREADS 256

extern "C" __global__ void softmax(int rows, int cols, const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float red[THREADS];
    const int r = blockIdx.x;
    const int t = threadIdx.x;
    const float* x = in + (long long)r * cols;
    float* y = out + (long long)r * cols;

    float m = __int_as_float(0xff800000);  // -inf (NVRTC has no INFINITY macro)
    for (int c = t; c < cols; c += THREADS)
        m = fmaxf(m, x[c]);
    red[t] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2)
    {
        if (t < s)
            red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.f;
    for (int c = t; c < cols; c += THREADS)
        sum += expf(x[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2)
    {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    const float inv = 1.f / red[0];

    for (int c = t; c < cols; c += THREADS)
        y[c] = expf(x[c] - m) * inv;
}
