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
// Tunables: MODE [0,1,2], THREADS, VEC [1,2,4], CACHE (vectors per thread held in registers, 0 =
// always stream), ONLINE [0,1], FASTEXP [0,1].
// Launch: grid (W*ceil_div(rows, THREADS/32) + (1-W)*rows) with W = 1 for warp mode, else 0:
//   "(MODE==0 || (MODE==2 && cols <= 32*VEC*max(CACHE,1)))*ceil_div(rows,THREADS/32)
//    + (MODE==1 || (MODE==2 && cols > 32*VEC*max(CACHE,1)))*rows", block (THREADS).

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
static_assert(MODE == 0 || MODE == 1 || MODE == 2, "MODE is 0, 1 or 2");

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
