// Cheat 28: a parameter larger than the signature's. The worker hands the driver one 8-byte word per
// parameter, and the driver copies as many bytes as the cubin declares from it: declaring M as a
// 2 KiB struct would copy 2 KiB of the worker's host memory (its heap and stack around the argument
// words) into the kernel, which writes them to C, where a failure message shows them to the model.
// Expected: bad_launch (the parameters are checked against the signature before any launch).
struct window
{
    int words[512];
};

extern "C" __global__ void sgemm(window m, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    const int M = m.words[0];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M * N)
        C[i] = __int_as_float(m.words[i % 512]) + 0.0f * A[0] * B[0] * K;
}
