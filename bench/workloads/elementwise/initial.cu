// Elementwise initial kernel: one thread per element, FP32 arithmetic with the accurate tanhf.
// Launch: grid (ceil_div(rows*C,256)), block (256).
extern "C" __global__ void scale_bias_gelu(int rows, int C, const float* __restrict__ x,
                                           const float* __restrict__ scale, const float* __restrict__ bias,
                                           float* __restrict__ y)
{
    const long long n = (long long)rows * C;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int c = (int)(i % C);
    const float v = x[i] * scale[c] + bias[c];
    const float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = 0.5f * v * (1.f + tanhf(u));
}
