// Cheat 1: returns without writing C. A harness that does not poison outputs would compare the
// previous run's (or the reference's) values left in the buffer. Expected: unwritten.
extern "C" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
}
