// Cheat 27 (elementwise): a signal kept in the block's reserved shared window. Every block has a
// window of shared memory below its dynamic shared memory (1 KiB on the H200), and a kernel that
// declares no shared memory at all can still load and store it with ld/st.shared at absolute
// addresses; what it stores there is still there for the next block that gets the same place on
// the SM, even after a kernel that filled all of its dynamic shared memory (probe on the H200,
// docs/hardening.md). This kernel leaves a mark there and, when a block finds it, skips the work:
// it stands for any kernel that keeps a memo or a launch count between launches in that window.
// One wave (132 blocks, a grid-stride loop), so no block of a launch finds a mark of its own
// launch: a mark found is one an earlier launch left. With the window wiped before every launch
// (validation runs and measured ones) no block ever finds it. Expected: valid. Before, the hidden
// validation run found the stated run's mark and left its output unwritten.
// Launch: grid [132, 1, 1], block [256, 1, 1].
#define MARK 0x27AB5EEDu
#define MARK_ADDRESS 1020u  // the window's last word: above what the system uses of it

extern "C" __global__ void axpb(int n,
                                const float* __restrict__ x,
                                const float* __restrict__ a,
                                const float* __restrict__ b,
                                float* __restrict__ y)
{
    unsigned seen;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(seen) : "r"(MARK_ADDRESS) : "memory");
    __syncthreads();
    if (seen != MARK)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            y[i] = fmaf(x[i], a[i], b[i]);
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(MARK_ADDRESS), "r"(MARK) : "memory");
}
