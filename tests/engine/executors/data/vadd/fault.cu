// Writes through a wild pointer (an address in the unmapped first page): an illegal address that
// leaves a sticky context error. The pointer is volatile: a plain null-pointer store is undefined
// behaviour that NVRTC 13 removes, and the kernel would then simply write nothing.
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
    {
        volatile float* wild = reinterpret_cast<volatile float*>(0x40ull);
        wild[i & 7] = a[i] + b[i];
        c[i] = a[i] + b[i];
    }
}
