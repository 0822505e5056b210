extern "C" __global__ void scale(int n, float* x) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }
extern "C" __global__ void shift(int n, float* x) { int i = threadIdx.x; if (i < n) x[i] += 1.0f; }
