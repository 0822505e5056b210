// FAKE: median_us=90
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}
