// Row softmax, the tunable kernel: out[r, :] = softmax(in[r, :]), rows x cols row-major FP32.
//
// A row is handled by a "group": one warp (warp mode, THREADS/32 rows per block) or the whole
// block (block mode, one row per block). MODE 0 is always warp mode, MODE 1 always block mode,
// MODE 2 picks per launch: warp mode when a row fits the warp's register cache
// (cols <= 32*VEC*max(CACHE,1)), block mode otherwise; the launch plan's grid uses the same test.
// Two paths, chosen per launch (cols is the same for every row):
//   * cached: when the row fits in CACHE vectors of VEC floats per group member, it is read from
//     global memory once into registers; maximum, sum of exponentials and the normalized write all
//     work from registers (8 bytes of traffic per element, the minimum);
//   * streaming: longer rows are read twice (ONLINE=1: maximum and sum together with the online
//     rescaling of Milakov & Gimelshein, then the write pass) or three times (ONLINE=0: maximum,
//     sum, write). The re-reads mostly hit L2.
// Vector loads and stores (VEC 2 or 4) are used only when cols % VEC == 0 and both base pointers
// are aligned to VEC*4 bytes (a uniform decision); otherwise the same element mapping runs with
// scalar accesses. FASTEXP=1 uses __expf (ex2.approx with a pre-scale; at most 2 + 1.16|x| ulp,
// about 1e-6 relative where outputs matter), FASTEXP=0 the accurate expf.
//
// MODE 3 (adaptive row groups; the kernel at the end of this file, modes 0-2 are unchanged):
//   * the number of threads cooperating on a row adapts to cols at run time: a group is the
//     smallest power of two T of threads whose CACHE slots of VEC floats each hold the row
//     (T*CACHE >= nv, nv = ceil(cols/VEC)), at most GMAX. T can be 1..32 (T aligned lanes of one
//     warp: reductions are shuffles only, no barrier) or 64..1024 (T/32 warps: the per-warp
//     (max, sum) pairs meet in shared memory behind ONE barrier). A block has
//     B = max(THREADS, T) threads and holds B/T groups, one row each;
//   * cached path (T*CACHE >= nv, i.e. rows up to GMAX*CACHE*VEC floats): every member issues all
//     its loads (CACHE VEC-wide loads, or CACHE*VEC coalesced scalar loads when vectors are not
//     possible) before using any, keeps them in registers, computes its own max mt and
//     st = sum exp(v - mt) (one exp per element), the group merges the (max, sum) pairs once (the
//     online-softmax merge), and out = exp(v - mt) * (exp(mt - M) / S): the row is read once and
//     written once;
//   * streaming path (longer rows, e.g. 1x100003): the group (T = GMAX) walks the row in chunks of
//     CACHE slots per member, all loads of a chunk in flight together; pass 1 keeps a running
//     (max, sum) rescaled once per chunk, one merge over the group, pass 2 re-reads the row (mostly
//     from L2) and writes. ONLINE is pinned to 1 for MODE 3 (a restriction), it has no effect;
//   * HINT=1 uses cache hints: last reads of the input with ld.global.cs (evict-first) and stores
//     with st.global.cs, so the output does not push L2-resident input out before a streaming
//     pass 2 re-reads it; HINT=0 plain loads (ld.global.nc) and stores;
//   * the kernel computes T and B from cols exactly as the launch plan does and traps if blockDim
//     differs (a launch-plan bug then fails loudly instead of skipping rows); a grid-stride loop
//     over row groups (block-uniform, so barriers stay convergent; inactive groups run along
//     with -inf and store nothing) makes any grid correct, the launch plan's grid gives each
//     block exactly one row group.
//
// Tunables: MODE [0,1,2,3], THREADS (modes 0-2: the block; mode 3: the least block, rows per block
// = THREADS/T for short rows), VEC [1,2,4], CACHE (vectors per thread held in registers, 0 = always
// stream; mode 3 needs >= 1), ONLINE [0,1], FASTEXP [0,1], GMAX (mode 3: the largest group, 32,
// 256, 512 or 1024), HINT (mode 3: cache hints). Restrictions: GMAX and HINT only vary in mode 3
// (elsewhere 1024 and 0, so modes 0-2 keep their 1176 points), mode 3 needs CACHE >= 1 and
// ONLINE == 1, and max(THREADS,GMAX)*CACHE*VEC <= 32768 keeps the cached floats within half the
// register budget of the largest block (at 1024 threads, 32 floats under the 64-register cap;
// ptxas -v: 64 registers, no spills, for CACHE=8 VEC=4 at GMAX=1024; 128 for CACHE=16 at 512);
// VEC == 4 || CACHE*VEC <= 32 drops VEC=2 CACHE=32 (64 floats in 32 slots: 324-336 bytes of
// spills at the 128-register cap). All 1248 mode-3 points compile with NVRTC 13.0 for sm_90; 1182
// have no spills, the rest spill 16-48 bytes (VEC=1 with CACHE 4 or 32 at a 1024-thread bound,
// VEC=4 CACHE=16 with FASTEXP=0 HINT=1).
//
// Launch: modes 0-2: grid (W*ceil_div(rows, THREADS/32) + (1-W)*rows) with W = 1 for warp mode,
// else 0, block (THREADS):
//   "(MODE==0 || (MODE==2 && cols <= 32*VEC*max(CACHE,1)))*ceil_div(rows,THREADS/32)
//    + (MODE==1 || (MODE==2 && cols > 32*VEC*max(CACHE,1)))*rows", block (THREADS).
// Mode 3: with NV = cols/VEC + (cols%VEC != 0) and C = max(CACHE,1),
//   T = min(GMAX, 1 + (NV > C) + 2*(NV > 2*C) + 4*(NV > 4*C) + ... + 512*(NV > 512*C))
// (the sum is the smallest power of two P with P*C >= NV, at most 1024: a term 2^k counts when
// more than 2^k*C slots are needed), grid min(rows, ceil_div(rows*T, THREADS)) (= ceil_div(rows,
// THREADS/T) when T <= THREADS, rows otherwise), block max(THREADS, T). The expression language
// has no log2 or power-of-two rounding, hence the sum of comparisons written out in workload.json.
//
// Expected best (not timed yet; H100/H200, 132 SMs, ~25 GB/s of HBM per SM needs ~25-40 KB in
// flight per SM at ~1-1.5 us of loaded latency, more is safe):
//   P1 = MODE=3 THREADS=256 GMAX=1024 VEC=4 CACHE=8 FASTEXP=1 (HINT 0 or 1), 64 registers:
//     4096x1024: T=32, a warp per row with 8 float4 per lane, no barrier; 8 rows per 256-thread
//       block, 512 blocks, 4 blocks (1024 threads) per SM: all 512 resident at once (one wave)
//       with ~124 KB of loads in flight per SM, issued at kernel start;
//     256x32768: T=1024, one 1024-thread block per row holding the whole row (8 float4 per
//       thread), one barrier; 1 block per SM, so 132 rows then 124 (two waves, 128 KB in flight
//       per SM each): the register file (33 MB chip-wide) cannot hold the 32 MB input at once;
//     65536x128: T=4, 4 lanes per row with 8 float4 each, 64 rows per block, 1024 blocks, 4 per
//       SM, 128 KB in flight per SM.
//   Today's best (MODE=2 CACHE=1 THREADS=256) uses a 256-thread block per row with one float4 per
//   thread and two block reductions for 1024 columns, and streams 32768 columns.
//   Alternatives the search should compare: CACHE=16 GMAX=512 (T=16 lanes x 16 float4 on 1024
//   columns, 2 blocks of 256 per SM; 256x32768 as 512-thread blocks, 128 registers); THREADS=1024
//   GMAX=512 CACHE=8 (256x32768 streams two rows per block, all 256 rows resident in 128 blocks,
//   pass 2 from L2, HINT=1 to keep the input there; but 4 SMs idle on every case); THREADS=128
//   (finer blocks for the 65536x128 tail). FASTEXP=1 stays within rtol 1e-4 (see docs/workloads.md:
//   __expf's error is ~1e-6 relative where outputs exceed atol; the split exp(v - mt)*exp(mt - M)
//   adds one more such error).

#ifndef MODE
#define MODE 0
#endif
#ifndef THREADS
#define THREADS 256
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef CACHE
#define CACHE 8
#endif
#ifndef ONLINE
#define ONLINE 1
#endif
#ifndef FASTEXP
#define FASTEXP 0
#endif

#define SM_NEG_INF (__int_as_float(0xff800000))  // NVRTC has no INFINITY macro
#define SM_WARPS (THREADS / 32)
#define SM_CACHE_N (CACHE > 0 ? CACHE : 1)

static_assert(THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024, "THREADS is a multiple of 32");
static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC is 1, 2 or 4");
static_assert(MODE == 0 || MODE == 1 || MODE == 2 || MODE == 3, "MODE is 0, 1, 2 or 3");

__device__ __forceinline__ float sm_exp(float x)
{
#if FASTEXP
    return __expf(x);
#else
    return expf(x);
#endif
}

__device__ __forceinline__ float sm_warp_max(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float sm_warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Merges running (max, sum-of-exp) pairs; a pair with m = -inf and s = 0 is the identity.
__device__ __forceinline__ void sm_merge(float& m, float& s, float m2, float s2)
{
    const float mn = fmaxf(m, m2);
    const float a = (m == mn) ? s : s * sm_exp(m - mn);
    const float b = (m2 == mn) ? s2 : s2 * sm_exp(m2 - mn);
    m = mn;
    s = a + b;
}

__device__ __forceinline__ void sm_warp_merge(float& m, float& s)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
    {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        sm_merge(m, s, m2, s2);
    }
}

// Group-wide reductions. In block mode they go through shared memory and contain barriers, so every
// thread of the block must call them; the trailing barrier lets the scratch be reused at once.
__device__ __forceinline__ float sm_group_max(float v, float* scratch, bool block_mode)
{
    v = sm_warp_max(v);
    if (block_mode)
    {
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        if (lane == 0)
            scratch[warp] = v;
        __syncthreads();
        v = lane < SM_WARPS ? scratch[lane] : SM_NEG_INF;
        v = sm_warp_max(v);
        __syncthreads();
    }
    return v;
}

__device__ __forceinline__ float sm_group_sum(float v, float* scratch, bool block_mode)
{
    v = sm_warp_sum(v);
    if (block_mode)
    {
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        if (lane == 0)
            scratch[warp] = v;
        __syncthreads();
        v = lane < SM_WARPS ? scratch[lane] : 0.f;
        v = sm_warp_sum(v);
        __syncthreads();
    }
    return v;
}

__device__ __forceinline__ void sm_group_merge(float& m, float& s, float* scratch, bool block_mode)
{
    sm_warp_merge(m, s);
    if (block_mode)
    {
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        if (lane == 0)
        {
            scratch[warp] = m;
            scratch[32 + warp] = s;
        }
        __syncthreads();
        m = lane < SM_WARPS ? scratch[lane] : SM_NEG_INF;
        s = lane < SM_WARPS ? scratch[32 + lane] : 0.f;
        sm_warp_merge(m, s);
        __syncthreads();
    }
}

template <int V>
struct sm_vec;
template <>
struct sm_vec<1>
{
    float v[1];
};
template <>
struct __align__(8) sm_vec<2>
{
    float v[2];
};
template <>
struct __align__(16) sm_vec<4>
{
    float v[4];
};

#if MODE != 3
extern "C" __global__ void __launch_bounds__(THREADS) softmax(int rows, int cols, const float* __restrict__ in,
                                                              float* __restrict__ out)
{
    __shared__ float scratch[64];
    // Uniform over the launch: every block takes the same mode.
    const bool warp_mode = MODE == 0 || (MODE == 2 && cols <= 32 * VEC * SM_CACHE_N);
    const bool block_mode = !warp_mode;
    const int G = warp_mode ? 32 : THREADS;
    const int g = warp_mode ? (int)(threadIdx.x % 32) : (int)threadIdx.x;
    const int row = warp_mode ? (int)(blockIdx.x * SM_WARPS + threadIdx.x / 32) : (int)blockIdx.x;
    if (row >= rows)
        return;  // warp mode only (block mode launches exactly rows blocks): the whole warp leaves
                 // together, and warp mode has no block-wide barriers
    const float* x = in + (long long)row * cols;
    float* y = out + (long long)row * cols;
    const bool vec_ok = VEC > 1 && (cols % VEC == 0) &&
                        (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) &
                          (VEC * 4 - 1)) == 0);

    if (CACHE > 0 && cols <= CACHE * G * VEC)
    {
        // Element e of vector it of member g is column (it*G + g)*VEC + e. Vector slots past the
        // row's end for the whole group are skipped by a group-uniform test (it*G*VEC < cols), so
        // short rows in a large cache cost no loads or exponentials; the remaining padding inside
        // the last slot holds -inf, whose exponential is 0.
        float v[SM_CACHE_N][VEC];
        float m = SM_NEG_INF;
#pragma unroll
        for (int it = 0; it < SM_CACHE_N; ++it)
        {
            if (it * G * VEC >= cols)
                break;
            const int c0 = (it * G + g) * VEC;
            if (vec_ok)
            {
                if (c0 < cols)
                {
                    const sm_vec<VEC> t = *reinterpret_cast<const sm_vec<VEC>*>(x + c0);
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        v[it][e] = t.v[e];
                }
                else
                {
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        v[it][e] = SM_NEG_INF;
                }
            }
            else
            {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    v[it][e] = (c0 + e < cols) ? x[c0 + e] : SM_NEG_INF;
            }
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                m = fmaxf(m, v[it][e]);
        }
        m = sm_group_max(m, scratch, block_mode);
        float s = 0.f;
#pragma unroll
        for (int it = 0; it < SM_CACHE_N; ++it)
        {
            if (it * G * VEC >= cols)
                break;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
            {
                v[it][e] = sm_exp(v[it][e] - m);
                s += v[it][e];
            }
        }
        s = sm_group_sum(s, scratch, block_mode);
        const float inv = __fdividef(1.f, s);  // s >= 1: 2 ulp, no slow-path call
#pragma unroll
        for (int it = 0; it < SM_CACHE_N; ++it)
        {
            if (it * G * VEC >= cols)
                break;
            const int c0 = (it * G + g) * VEC;
            if (vec_ok)
            {
                if (c0 < cols)
                {
                    sm_vec<VEC> t;
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        t.v[e] = v[it][e] * inv;
                    *reinterpret_cast<sm_vec<VEC>*>(y + c0) = t;
                }
            }
            else
            {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (c0 + e < cols)
                        y[c0 + e] = v[it][e] * inv;
            }
        }
        return;
    }

    // Streaming path. With vectors, member g handles vectors g, g+G, ...; without, elements.
    const int nvec = vec_ok ? cols / VEC : cols;
    const int width = vec_ok ? VEC : 1;
    float m = SM_NEG_INF;
    float s = 0.f;
#if ONLINE
    for (int j = g; j < nvec; j += G)
    {
        float t[VEC];
        if (vec_ok)
        {
            const sm_vec<VEC> q = *reinterpret_cast<const sm_vec<VEC>*>(x + j * VEC);
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                t[e] = q.v[e];
        }
        else
        {
            t[0] = x[j];
        }
        float tm = t[0];
#pragma unroll
        for (int e = 1; e < VEC; ++e)
            if (e < width)
                tm = fmaxf(tm, t[e]);
        if (tm > m)
        {
            s = (m == SM_NEG_INF) ? 0.f : s * sm_exp(m - tm);
            m = tm;
        }
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            if (e < width)
                s += sm_exp(t[e] - m);
    }
    sm_group_merge(m, s, scratch, block_mode);
#else
    for (int j = g; j < nvec; j += G)
    {
        if (vec_ok)
        {
            const sm_vec<VEC> q = *reinterpret_cast<const sm_vec<VEC>*>(x + j * VEC);
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                m = fmaxf(m, q.v[e]);
        }
        else
        {
            m = fmaxf(m, x[j]);
        }
    }
    m = sm_group_max(m, scratch, block_mode);
    for (int j = g; j < nvec; j += G)
    {
        if (vec_ok)
        {
            const sm_vec<VEC> q = *reinterpret_cast<const sm_vec<VEC>*>(x + j * VEC);
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                s += sm_exp(q.v[e] - m);
        }
        else
        {
            s += sm_exp(x[j] - m);
        }
    }
    s = sm_group_sum(s, scratch, block_mode);
#endif
    const float inv = __fdividef(1.f, s);  // s >= 1: 2 ulp, no slow-path call
    for (int j = g; j < nvec; j += G)
    {
        if (vec_ok)
        {
            const sm_vec<VEC> q = *reinterpret_cast<const sm_vec<VEC>*>(x + j * VEC);
            sm_vec<VEC> t;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                t.v[e] = sm_exp(q.v[e] - m) * inv;
            *reinterpret_cast<sm_vec<VEC>*>(y + j * VEC) = t;
        }
        else
        {
            y[j] = sm_exp(x[j] - m) * inv;
        }
    }
}

#else  // MODE == 3: adaptive row groups (see the header)

#ifndef GMAX
#define GMAX 1024
#endif
#ifndef HINT
#define HINT 0
#endif
#define SM3_BMAX (THREADS > GMAX ? THREADS : GMAX)  // the largest block this kernel is launched with

static_assert(CACHE >= 1 && CACHE <= 64, "MODE 3 holds CACHE >= 1 slots of VEC floats per thread");
static_assert(GMAX >= 32 && GMAX <= 1024 && (GMAX & (GMAX - 1)) == 0, "GMAX is a power of two in [32, 1024]");
static_assert((THREADS & (THREADS - 1)) == 0, "MODE 3 needs a power-of-two THREADS");
static_assert(HINT == 0 || HINT == 1, "HINT is 0 or 1");

// One float: __ldg (read-only path, stays in L1/L2) or, for a last use with HINT=1, __ldcs
// (ld.global.cs: evict-first, the line is not needed again).
__device__ __forceinline__ float sm3_ld1(const float* p, bool last)
{
    return (HINT && last) ? __ldcs(p) : __ldg(p);
}

__device__ __forceinline__ void sm3_st1(float* p, float v)
{
    if (HINT)
        __stcs(p, v);  // st.global.cs: the output is not read again
    else
        *p = v;
}

// VEC floats at a VEC*4-byte aligned address.
__device__ __forceinline__ void sm3_ldv(float (&d)[VEC], const float* p, bool last)
{
#if VEC == 4
    const float4 t = (HINT && last) ? __ldcs(reinterpret_cast<const float4*>(p))
                                    : __ldg(reinterpret_cast<const float4*>(p));
    d[0] = t.x;
    d[1] = t.y;
    d[2] = t.z;
    d[3] = t.w;
#elif VEC == 2
    const float2 t = (HINT && last) ? __ldcs(reinterpret_cast<const float2*>(p))
                                    : __ldg(reinterpret_cast<const float2*>(p));
    d[0] = t.x;
    d[1] = t.y;
#else
    d[0] = sm3_ld1(p, last);
#endif
}

__device__ __forceinline__ void sm3_stv(float* p, const float (&d)[VEC])
{
#if VEC == 4
    const float4 t = make_float4(d[0], d[1], d[2], d[3]);
    if (HINT)
        __stcs(reinterpret_cast<float4*>(p), t);
    else
        *reinterpret_cast<float4*>(p) = t;
#elif VEC == 2
    const float2 t = make_float2(d[0], d[1]);
    if (HINT)
        __stcs(reinterpret_cast<float2*>(p), t);
    else
        *reinterpret_cast<float2*>(p) = t;
#else
    sm3_st1(p, d[0]);
#endif
}

// The element mapping of one chunk of a row. A chunk is CACHE slots of VEC floats per member g of a
// group of T threads; `cb` is the chunk's first slot (0 for the cached path).
//   vec (VEC > 1, cols % VEC == 0 and both bases VEC*4-byte aligned, so every row is aligned):
//     slot `it` of member g is the vector u = cb + it*T + g, columns u*VEC .. u*VEC + VEC-1, one
//     VEC-wide access; consecutive members access consecutive vectors (coalesced).
//   scalar (otherwise): element e of slot `it` is column (cb + it*T)*VEC + e*T + g, so consecutive
//     members access consecutive columns (coalesced scalar accesses, all CACHE*VEC of them issued
//     before any use, like the vectors).
// Columns past the row's end, and everything of an inactive group (row >= rows), read as -inf and
// are never stored. Column arithmetic is int: fine for cols <= 2^31 - 2^16 (the restrictions keep
// T*CACHE*VEC <= 32768).
__device__ __forceinline__ void sm3_load(float (&v)[CACHE][VEC], const float* __restrict__ x, int cols, int cb,
                                         int T, int g, bool vec, bool active, bool last)
{
    const int lim = active ? cols : 0;  // columns below lim exist
    if (vec)
    {
        // Member g's vectors are VEC*T floats apart: one pointer stepped by a uniform stride.
        int c = (cb + g) * VEC;
        const float* p = x + c;
#pragma unroll
        for (int it = 0; it < CACHE; ++it)
        {
            if (c < lim)
            {
                sm3_ldv(v[it], p, last);
            }
            else
            {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    v[it][e] = SM_NEG_INF;
            }
            c += T * VEC;
            p += T * VEC;
        }
    }
    else
    {
        int c = cb * VEC + g;
        const float* p = x + c;
#pragma unroll
        for (int it = 0; it < CACHE; ++it)
        {
#pragma unroll
            for (int e = 0; e < VEC; ++e)
            {
                v[it][e] = c < lim ? sm3_ld1(p, last) : SM_NEG_INF;
                c += T;
                p += T;
            }
        }
    }
}

// Stores v (final values) with the mapping of sm3_load.
__device__ __forceinline__ void sm3_store(float* __restrict__ y, const float (&v)[CACHE][VEC], int cols, int cb, int T,
                                          int g, bool vec, bool active)
{
    const int lim = active ? cols : 0;
    if (vec)
    {
        int c = (cb + g) * VEC;
        float* p = y + c;
#pragma unroll
        for (int it = 0; it < CACHE; ++it)
        {
            if (c < lim)
                sm3_stv(p, v[it]);
            c += T * VEC;
            p += T * VEC;
        }
    }
    else
    {
        int c = cb * VEC + g;
        float* p = y + c;
#pragma unroll
        for (int it = 0; it < CACHE; ++it)
        {
#pragma unroll
            for (int e = 0; e < VEC; ++e)
            {
                if (c < lim)
                    sm3_st1(p, v[it][e]);
                c += T;
                p += T;
            }
        }
    }
}

// Merges the (max, sum) pairs of a group of T threads (T a power of two) so that every member ends
// with the group's pair. T <= 32: the group is T aligned lanes of one warp, a shuffle butterfly over
// offsets < T (sm_merge is symmetric, so all lanes get bit-identical results). T > 32: T/32 aligned
// warps; each warp's pair goes to shared memory, one barrier, and every lane merges the group's
// T/32 pairs (lane l takes pair l % (T/32), then a butterfly over offsets < T/32). Every thread of
// the block calls this (it contains the barrier when T > 32).
__device__ __forceinline__ void sm3_group_merge(float& m, float& s, int T, float* pm, float* ps)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
    {
        if (o < T)
        {
            const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
            const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
            sm_merge(m, s, m2, s2);
        }
    }
    if (T > 32)
    {
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        const int wg = T / 32;                // warps per group, a power of two <= 32
        const int first = warp & ~(wg - 1);   // the group's first warp
        if (lane == 0)
        {
            pm[warp] = m;
            ps[warp] = s;
        }
        __syncthreads();
        m = pm[first + (lane & (wg - 1))];
        s = ps[first + (lane & (wg - 1))];
#pragma unroll
        for (int o = 16; o > 0; o /= 2)
        {
            if (o < wg)
            {
                const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
                const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
                sm_merge(m, s, m2, s2);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(SM3_BMAX) softmax(int rows, int cols, const float* __restrict__ in,
                                                               float* __restrict__ out)
{
    __shared__ float pm[SM3_BMAX / 32];
    __shared__ float ps[SM3_BMAX / 32];

    // Group size T: the smallest power of two whose CACHE slots of VEC floats per member hold the
    // row (nv = ceil(cols/VEC) slots), at most GMAX. The launch plan computes the same T (see the
    // header); the block is max(THREADS, T) threads holding max(THREADS, T)/T groups, one row each.
    const int nv = cols / VEC + (cols % VEC != 0);
    int T = 1;
    while (T < GMAX && T * CACHE < nv)
        T *= 2;
    const int B = T > THREADS ? T : THREADS;
    if ((int)blockDim.x != B)
        __trap();  // the launch plan disagrees with this kernel: fail loudly rather than skip rows
    const int rpb = B / T;
    const bool cached = T * CACHE >= nv;  // uniform over the launch
    const int lg = __ffs(T) - 1;
    const int grp = (int)threadIdx.x >> lg;
    const int g = (int)threadIdx.x & (T - 1);
    const bool vec = VEC > 1 && cols % VEC == 0 &&
                     (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) &
                       (VEC * 4 - 1)) == 0);

    // One pass with the launch plan's grid; the loop only makes any grid correct. Its condition is
    // uniform over the block, and inactive groups (row >= rows) run along with -inf values and no
    // stores, so every thread reaches the barriers.
    const long long first = (long long)blockIdx.x * rpb;
    for (long long base = first; base < rows; base += (long long)gridDim.x * rpb)
    {
        if (T > 32 && base != first)
            __syncthreads();  // pm/ps of the previous row have been read by everyone
        const long long r = base + grp;
        const bool active = r < rows;
        const long long rr = active ? r : 0;
        const float* x = in + rr * cols;
        float* y = out + rr * cols;

        if (cached)
        {
            // Read once into registers; thread-local max mt and sum st of exp(v - mt); one merge of
            // the (max, sum) pairs over the group; out = exp(v - mt) * exp(mt - M) / S.
            float v[CACHE][VEC];
            sm3_load(v, x, cols, 0, T, g, vec, active, true);
            float mt = SM_NEG_INF;
#pragma unroll
            for (int it = 0; it < CACHE; ++it)
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    mt = fmaxf(mt, v[it][e]);
            const float ms = mt == SM_NEG_INF ? 0.f : mt;  // a member without elements: exp(-inf) = 0
            float st = 0.f;
#pragma unroll
            for (int it = 0; it < CACHE; ++it)
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                {
                    v[it][e] = sm_exp(v[it][e] - ms);
                    st += v[it][e];
                }
            float M = mt, S = st;
            sm3_group_merge(M, S, T, pm, ps);
            // S >= 1 for an active row (its maximum contributes exp(0)): 2 ulp, no slow path.
            const float sc = mt == SM_NEG_INF ? 0.f : sm_exp(mt - M) * __fdividef(1.f, S);
#pragma unroll
            for (int it = 0; it < CACHE; ++it)
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    v[it][e] *= sc;
            sm3_store(y, v, cols, 0, T, g, vec, active);
        }
        else
        {
            // Streaming: chunks of CACHE slots per member, all loads of a chunk in flight together.
            // Pass 1: running (max, sum) rescaled once per chunk; one merge over the group. Pass 2
            // re-reads the row (mostly from L2) and writes exp(v - M) / S.
            const int step = T * CACHE;
            float m = SM_NEG_INF, s = 0.f;
            for (int cb = 0; cb < nv; cb += step)
            {
                float v[CACHE][VEC];
                sm3_load(v, x, cols, cb, T, g, vec, active, false);
                float cm = SM_NEG_INF;
#pragma unroll
                for (int it = 0; it < CACHE; ++it)
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        cm = fmaxf(cm, v[it][e]);
                if (cm > m)
                {
                    s = m == SM_NEG_INF ? 0.f : s * sm_exp(m - cm);
                    m = cm;
                }
                if (m != SM_NEG_INF)
                {
#pragma unroll
                    for (int it = 0; it < CACHE; ++it)
#pragma unroll
                        for (int e = 0; e < VEC; ++e)
                            s += sm_exp(v[it][e] - m);
                }
            }
            sm3_group_merge(m, s, T, pm, ps);
            const float inv = __fdividef(1.f, s);
            for (int cb = 0; cb < nv; cb += step)
            {
                float v[CACHE][VEC];
                sm3_load(v, x, cols, cb, T, g, vec, active, true);
#pragma unroll
                for (int it = 0; it < CACHE; ++it)
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        v[it][e] = sm_exp(v[it][e] - m) * inv;
                sm3_store(y, v, cols, cb, T, g, vec, active);
            }
        }
    }
}
#endif  // MODE
