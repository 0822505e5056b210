// Scripted candidate 02.
// FAKE: median_us=136

extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        { c[i] = a[i] + b[i]; }
    if (i + gridDim.x * blockDim.x < n)
        c[i + gridDim.x * blockDim.x] = a[i + gridDim.x * blockDim.x] + b[i + gridDim.x * blockDim.x];
}
