// Cheat 28: a parameter larger than the signature's. The worker hands the driver one 8-byte word per
// parameter, and the driver copies as many bytes as the cubin declares from it: declaring M as a
// 2 KiB struct would copy 2 KiB of the worker's host memory (its heap and stack around the argument
// words) into the kernel, which writes words of it to C, where a failure message shows them to the
// model. Reading a struct parameter the plain way makes NVRTC address parameter space through a
// register, which the compiler refuses on its own (ptx_parameter_space_refusal), so this one reads
// its words by name in inline asm. Expected: bad_launch (the parameters are checked against the
// signature before any launch).
struct window
{
    int words[512];
};

#define WORD(k, out) asm("ld.param.u32 %0, [sgemm_param_0+" #k "];" : "=r"(out))

extern "C" __global__ void sgemm(window m, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    int w0, w1, w2, w3;
    WORD(0, w0);
    WORD(8, w1);
    WORD(1024, w2);
    WORD(2040, w3);
    const int M = w0;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int pick = i & 3;
    const int v = pick == 0 ? w0 : pick == 1 ? w1 : pick == 2 ? w2 : w3;
    if (i < M * N)
        C[i] = __int_as_float(v) + 0.0f * A[0] * B[0] * K;
}
