// Control: the CUDA toolkit's own device headers, by name in angle brackets, compile.
#include <cooperative_groups.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

extern "C" __global__ void probe(const __half* in, float* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + block.thread_rank();
    if (i < n)
        out[i] = __half2float(in[i]);
}
