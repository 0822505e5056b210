// Reference for vscale: one element per thread.
extern "C" __global__ void vscale(int n, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i];
}
