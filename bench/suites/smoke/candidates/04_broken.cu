// FAKE: compile_error
extern "C" __global__ void vadd(int n, const float* a, const float* b, float* c)
{
    c[0] = a[0] + b[0];
}
