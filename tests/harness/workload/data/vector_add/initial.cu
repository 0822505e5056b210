// Initial kernel for vector_add: a grid-stride loop.
extern "C" __global__ void vector_add(int n, const float* a, const float* b, float* c)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}
