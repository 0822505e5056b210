// SGEMM, C = A * B, row-major FP32 (M x K times K x N), the tunable SIMT kernel.
//
// Structure (the "warptiling" recipe of siboehm's "How to optimize a CUDA matmul kernel for
// cuBLAS-like performance", kernel 10, and CUTLASS's SIMT path):
//   * a block computes a BM x BN tile of C, stepping through K in BK-wide slices;
//   * the block's warps each own a WM x WN warp tile; each thread of a warp owns TM x TN outputs
//     held in registers, laid out as (TM/4) x (TN/4) sub-tiles of 4x4 spread over the warp tile so
//     that every shared-memory read is a float4 that lanes share by broadcast (conflict-free);
//   * the A slice is stored transposed in shared memory (As[k][m]) so the inner loop reads
//     float4s of A as well as of B and accumulates outer products;
//   * global loads are float4 when the row stride and the base pointer allow it (VEC=4 and
//     K % 4 == 0 for A, N % 4 == 0 for B, decided once per launch: a uniform branch), scalar
//     otherwise; tiles that lie fully inside the matrices take an unchecked path and only edge
//     tiles pay for bounds checks (out-of-range elements load as 0, so the inner loop never checks);
//   * the next slice is prefetched into registers while the current one is computed, and with
//     DB=1 it goes into a second shared-memory stage so one barrier per slice suffices.
//
// Tunables (all -D macros; the workload's restrictions keep them consistent):
//   BM, BN   block tile;            BK  k-slice;
//   WM, WN   warp tile;             TM, TN thread tile (multiples of 4);
//   VEC      1 = scalar global loads only, 4 = float4 global loads/stores when aligned;
//   DB       0 = one shared stage (two barriers per slice), 1 = two stages (one barrier);
//   MINB     minimum resident blocks per SM requested from the register allocator;
//   KU       unroll factor of the k loop inside a slice (>= BK: fully unrolled). Full unrolling
//            lets ptxas hoist shared loads of later k steps, which costs registers: at
//            128x128x8 with 8x8 per thread, KU=2 fits the 128-register cap of MINB=2 without
//            spills where full unrolling spills.
// Launch: grid (ceil_div(N,BN), ceil_div(M,BM)), block (BM/WM)*(BN/WN)*32 threads,
// dynamic shared memory (DB+1)*BK*(BM+4+BN)*4 bytes.

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef DB
#define DB 1
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef KU
#define KU BK
#endif

#define SG_THREADS ((BM / WM) * (BN / WN) * 32)
#define SG_LANES_M (WM / TM)          // lanes along M inside a warp
#define SG_LANES_N (WN / TN)          // lanes along N inside a warp
#define SG_MI (TM / 4)                // 4-row sub-tiles per thread
#define SG_NI (TN / 4)                // 4-column sub-tiles per thread
#define SG_SUBM (SG_LANES_M * 4)      // rows spanned by one sub-tile row of the warp
#define SG_SUBN (SG_LANES_N * 4)
#define SG_LDA (BM + 4)               // transposed A row (padded: fewer conflicts on the stores)
#define SG_LDB (BN)
#define SG_A_STAGE (BK * SG_LDA)
#define SG_B_STAGE (BK * SG_LDB)
#define SG_STAGES (DB + 1)
#define SG_A_VECS (BM * BK / 4)       // 4-element groups of the A slice (4 consecutive k of one row)
#define SG_B_VECS (BK * BN / 4)       // 4-element groups of the B slice (4 consecutive n of one k)
#define SG_A_PER_T ((SG_A_VECS + SG_THREADS - 1) / SG_THREADS)
#define SG_B_PER_T ((SG_B_VECS + SG_THREADS - 1) / SG_THREADS)

static_assert(BM % WM == 0 && BN % WN == 0, "the warp tile must divide the block tile");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 sub-tiles");
static_assert(WM % TM == 0 && WN % TN == 0, "the thread tile must divide the warp tile");
static_assert(SG_LANES_M * SG_LANES_N == 32, "a warp tile must hold exactly 32 thread tiles");
static_assert(BK % 4 == 0 && BN % 4 == 0, "slices load in groups of 4");
static_assert(SG_THREADS >= 32 && SG_THREADS <= 1024, "threads per block");
static_assert(VEC == 1 || VEC == 4, "VEC is 1 or 4");
static_assert(DB == 0 || DB == 1, "DB is 0 or 1");
static_assert(KU >= 1, "KU is a positive unroll factor");

// Loads slice kt of A and B into registers: a[i] holds 4 consecutive k of one row of A, b[i] 4
// consecutive n of one row of B. Elements outside the matrices load as 0.
__device__ __forceinline__ void sg_load_slice(const float* __restrict__ A, const float* __restrict__ B,
                                              int M, int N, int K, int m0, int n0, int kt,
                                              bool vec_a, bool vec_b, bool m_inside, bool n_inside,
                                              float4 (&a)[SG_A_PER_T], float4 (&b)[SG_B_PER_T])
{
    const int tid = threadIdx.x;
    const int k0 = kt * BK;
    const bool k_inside = k0 + BK <= K;
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);

#pragma unroll
    for (int i = 0; i < SG_A_PER_T; ++i)
    {
        const int s = tid + i * SG_THREADS;
        if (SG_A_VECS % SG_THREADS == 0 || s < SG_A_VECS)
        {
            const int r = s / (BK / 4);
            const int c = (s % (BK / 4)) * 4;
            const int row = m0 + r;
            const int k = k0 + c;
            const float* p = A + (long long)row * K + k;
            float4 v = zero;
            if (m_inside && k_inside)
            {
                if (VEC == 4 && vec_a)
                    v = *reinterpret_cast<const float4*>(p);
                else
                    v = make_float4(p[0], p[1], p[2], p[3]);
            }
            else if (row < M)
            {
                if (VEC == 4 && vec_a)
                {
                    if (k < K)  // K % 4 == 0 here, so the whole group is inside or outside
                        v = *reinterpret_cast<const float4*>(p);
                }
                else
                {
                    if (k < K) v.x = p[0];
                    if (k + 1 < K) v.y = p[1];
                    if (k + 2 < K) v.z = p[2];
                    if (k + 3 < K) v.w = p[3];
                }
            }
            a[i] = v;
        }
    }

#pragma unroll
    for (int i = 0; i < SG_B_PER_T; ++i)
    {
        const int s = tid + i * SG_THREADS;
        if (SG_B_VECS % SG_THREADS == 0 || s < SG_B_VECS)
        {
            const int r = s / (BN / 4);
            const int c = (s % (BN / 4)) * 4;
            const int k = k0 + r;
            const int col = n0 + c;
            const float* p = B + (long long)k * N + col;
            float4 v = zero;
            if (n_inside && k_inside)
            {
                if (VEC == 4 && vec_b)
                    v = *reinterpret_cast<const float4*>(p);
                else
                    v = make_float4(p[0], p[1], p[2], p[3]);
            }
            else if (k < K)
            {
                if (VEC == 4 && vec_b)
                {
                    if (col < N)  // N % 4 == 0 here
                        v = *reinterpret_cast<const float4*>(p);
                }
                else
                {
                    if (col < N) v.x = p[0];
                    if (col + 1 < N) v.y = p[1];
                    if (col + 2 < N) v.z = p[2];
                    if (col + 3 < N) v.w = p[3];
                }
            }
            b[i] = v;
        }
    }
}

// Stores the prefetched slice into one shared-memory stage: A transposed (As[k][m]), B as is.
__device__ __forceinline__ void sg_store_slice(float* __restrict__ As, float* __restrict__ Bs,
                                               const float4 (&a)[SG_A_PER_T], const float4 (&b)[SG_B_PER_T])
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < SG_A_PER_T; ++i)
    {
        const int s = tid + i * SG_THREADS;
        if (SG_A_VECS % SG_THREADS == 0 || s < SG_A_VECS)
        {
            const int r = s / (BK / 4);
            const int c = (s % (BK / 4)) * 4;
            As[(c + 0) * SG_LDA + r] = a[i].x;
            As[(c + 1) * SG_LDA + r] = a[i].y;
            As[(c + 2) * SG_LDA + r] = a[i].z;
            As[(c + 3) * SG_LDA + r] = a[i].w;
        }
    }
#pragma unroll
    for (int i = 0; i < SG_B_PER_T; ++i)
    {
        const int s = tid + i * SG_THREADS;
        if (SG_B_VECS % SG_THREADS == 0 || s < SG_B_VECS)
        {
            const int r = s / (BN / 4);
            const int c = (s % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[r * SG_LDB + c]) = b[i];
        }
    }
}

extern "C" __global__ void __launch_bounds__(SG_THREADS, MINB)
sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C)
{
    extern __shared__ __align__(16) float sg_smem[];
    float* As = sg_smem;                             // SG_STAGES stages of BK x (BM+4)
    float* Bs = sg_smem + SG_STAGES * SG_A_STAGE;    // SG_STAGES stages of BK x BN

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM;   // warp tile origin inside the block tile
    const int wn0 = (warp % (BN / WN)) * WN;
    const int lr = lane / SG_LANES_N;          // lane position inside the warp tile
    const int lc = lane % SG_LANES_N;

    // Uniform decisions, once per launch/block: vector global access needs a 16-byte aligned base
    // and a row stride that is a multiple of 4 floats.
    const bool vec_a = VEC == 4 && (K % 4 == 0) && ((reinterpret_cast<unsigned long long>(A) & 15) == 0);
    const bool vec_b = VEC == 4 && (N % 4 == 0) && ((reinterpret_cast<unsigned long long>(B) & 15) == 0);
    const bool vec_c = VEC == 4 && (N % 4 == 0) && ((reinterpret_cast<unsigned long long>(C) & 15) == 0);
    const bool m_inside = m0 + BM <= M;
    const bool n_inside = n0 + BN <= N;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;

    float4 pa[SG_A_PER_T];
    float4 pb[SG_B_PER_T];
    const int num_k = (K + BK - 1) / BK;

    sg_load_slice(A, B, M, N, K, m0, n0, 0, vec_a, vec_b, m_inside, n_inside, pa, pb);
    sg_store_slice(As, Bs, pa, pb);
    __syncthreads();

    for (int kt = 0; kt < num_k; ++kt)
    {
        const int cur = DB ? (kt & 1) : 0;
        if (kt + 1 < num_k)
            sg_load_slice(A, B, M, N, K, m0, n0, kt + 1, vec_a, vec_b, m_inside, n_inside, pa, pb);

        const float* Asc = As + cur * SG_A_STAGE + wm0 + lr * 4;
        const float* Bsc = Bs + cur * SG_B_STAGE + wn0 + lc * 4;
#pragma unroll KU
        for (int k = 0; k < BK; ++k)
        {
            float ra[TM];
            float rb[TN];
#pragma unroll
            for (int i = 0; i < SG_MI; ++i)
            {
                const float4 v = *reinterpret_cast<const float4*>(Asc + k * SG_LDA + i * SG_SUBM);
                ra[i * 4 + 0] = v.x;
                ra[i * 4 + 1] = v.y;
                ra[i * 4 + 2] = v.z;
                ra[i * 4 + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < SG_NI; ++j)
            {
                const float4 v = *reinterpret_cast<const float4*>(Bsc + k * SG_LDB + j * SG_SUBN);
                rb[j * 4 + 0] = v.x;
                rb[j * 4 + 1] = v.y;
                rb[j * 4 + 2] = v.z;
                rb[j * 4 + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }

        if (DB)
        {
            // The other stage was last read in the previous iteration, before its closing barrier.
            if (kt + 1 < num_k)
                sg_store_slice(As + (cur ^ 1) * SG_A_STAGE, Bs + (cur ^ 1) * SG_B_STAGE, pa, pb);
            __syncthreads();
        }
        else
        {
            __syncthreads();  // everyone is done reading the only stage
            if (kt + 1 < num_k)
            {
                sg_store_slice(As, Bs, pa, pb);
                __syncthreads();
            }
        }
    }

    // Epilogue: thread element (i, j) sits at row wm0 + (i/4)*SUBM + lr*4 + i%4 and column
    // wn0 + (j/4)*SUBN + lc*4 + j%4 of the block tile.
    const bool full = m_inside && n_inside;
#pragma unroll
    for (int i = 0; i < TM; ++i)
    {
        const int row = m0 + wm0 + (i / 4) * SG_SUBM + lr * 4 + (i % 4);
#pragma unroll
        for (int j = 0; j < SG_NI; ++j)
        {
            const int col = n0 + wn0 + j * SG_SUBN + lc * 4;
            float* p = C + (long long)row * N + col;
            if (full && vec_c)
            {
                *reinterpret_cast<float4*>(p) =
                    make_float4(acc[i][j * 4 + 0], acc[i][j * 4 + 1], acc[i][j * 4 + 2], acc[i][j * 4 + 3]);
            }
            else if (full)
            {
                p[0] = acc[i][j * 4 + 0];
                p[1] = acc[i][j * 4 + 1];
                p[2] = acc[i][j * 4 + 2];
                p[3] = acc[i][j * 4 + 3];
            }
            else if (row < M)
            {
                if (col < N) p[0] = acc[i][j * 4 + 0];
                if (col + 1 < N) p[1] = acc[i][j * 4 + 1];
                if (col + 2 < N) p[2] = acc[i][j * 4 + 2];
                if (col + 3 < N) p[3] = acc[i][j * 4 + 3];
            }
        }
    }
}
