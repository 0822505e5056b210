// Writes through a null pointer: an illegal address that leaves a sticky context error.
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        reinterpret_cast<float*>(0)[i] = a[i] + b[i];
}
