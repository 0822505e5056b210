// The source of the worker's helper kernels (comparator_kernels.hpp), compiled with NVRTC when
// the worker starts: its text, its compile request and the entry points it defines.

#include "harness/worker/comparator_kernels.hpp"

namespace warpsmith::worker
{
namespace
{

// The helpers are written without any #include so that they compile with NVRTC's built-in headers
// alone. Half and bfloat16 are converted from their bits (cvt.f32.f16 / shift), not through
// cuda_fp16.h.
//
// Element classification (classify): 1 "unwritten" when the output still holds the poison bits
// and the reference does not (an integer reference that legitimately equals 0xA5.. is thus never
// flagged); 0 when bit-identical; for floats 2 "nonfinite" when the reference is finite and the
// output is not; where the reference itself is NaN/Inf the output must be NaN / the same infinity
// (else 3); otherwise 3 "mismatch" when |got - ref| > atol + rtol*|ref|, computed in double.
// Integers are compared exactly when atol and rtol are both zero (their default, tolerance.hpp):
// any difference in the bits is a mismatch. Their error is the exact integer distance (rounded once
// to a double), so distinct integers beyond 2^53 never count an error of 0.
//
// Reference masking: reference outputs are stored XORed with a per-element mask derived from two
// secret keys (ws_mask_at, the same function as reference_mask_bits on the host), and every kernel
// that reads a reference takes the keys and unmasks as it reads. A key pair of zeros means "not
// masked" (snapshots, tests).
const std::string k_source = R"CUDA(
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;

__device__ __forceinline__ u64 ws_mix(u64 z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ u64 ws_mask_at(u64 k1, u64 k2, u64 i)
{
    return (k1 | k2) ? ws_mix(k1 ^ ws_mix(k2 ^ i)) : 0ull;
}

__device__ __forceinline__ bool ws_finite(double x)
{
    return ((u64)__double_as_longlong(x) & 0x7FF0000000000000ull) != 0x7FF0000000000000ull;
}

// Each element type: its bits, whether it is a float, its value as a double and, for integers, the
// exact distance between two values (a u64 holds every difference of two 64-bit integers).
struct t_f16 {
    typedef u16 bits; enum { floating = 1 };
    static __device__ __forceinline__ double value(u16 b)
    { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(b)); return (double)f; }
    static __device__ __forceinline__ u64 distance(u16, u16) { return 0; }
};
struct t_bf16 {
    typedef u16 bits; enum { floating = 1 };
    static __device__ __forceinline__ double value(u16 b) { return (double)__uint_as_float(((u32)b) << 16); }
    static __device__ __forceinline__ u64 distance(u16, u16) { return 0; }
};
struct t_f32 {
    typedef u32 bits; enum { floating = 1 };
    static __device__ __forceinline__ double value(u32 b) { return (double)__uint_as_float(b); }
    static __device__ __forceinline__ u64 distance(u32, u32) { return 0; }
};
struct t_f64 {
    typedef u64 bits; enum { floating = 1 };
    static __device__ __forceinline__ double value(u64 b) { return __longlong_as_double((long long)b); }
    static __device__ __forceinline__ u64 distance(u64, u64) { return 0; }
};

__device__ __forceinline__ u64 ws_signed_distance(long long a, long long b)
{
    return a > b ? (u64)a - (u64)b : (u64)b - (u64)a;
}
__device__ __forceinline__ u64 ws_unsigned_distance(u64 a, u64 b) { return a > b ? a - b : b - a; }

#define WS_INTEGER_TYPE(name, B, S)                                                                     \
    struct name {                                                                                       \
        typedef B bits; enum { floating = 0 };                                                          \
        static __device__ __forceinline__ double value(B b) { return (double)(S)b; }                    \
        static __device__ __forceinline__ u64 distance(B g, B r)                                        \
        { return ((S)-1 < (S)0) ? ws_signed_distance((long long)(S)g, (long long)(S)r)                  \
                                : ws_unsigned_distance((u64)(S)g, (u64)(S)r); }                         \
    };
WS_INTEGER_TYPE(t_i8, u8, signed char)
WS_INTEGER_TYPE(t_u8, u8, unsigned char)
WS_INTEGER_TYPE(t_i16, u16, short)
WS_INTEGER_TYPE(t_i32, u32, int)
WS_INTEGER_TYPE(t_u32, u32, unsigned int)
WS_INTEGER_TYPE(t_i64, u64, long long)
WS_INTEGER_TYPE(t_u64, u64, unsigned long long)

template <class T>
__device__ __forceinline__ int classify(typename T::bits g, typename T::bits r, typename T::bits poison,
                                        double atol, double rtol, double& abs_err, double& rel_err)
{
    abs_err = 0.0;
    rel_err = 0.0;
    if (g == poison && r != poison)
        return 1;
    if (g == r)
        return 0;
    const double vg = T::value(g);
    const double vr = T::value(r);
    if (T::floating)
    {
        const bool g_finite = ws_finite(vg);
        const bool r_finite = ws_finite(vr);
        if (r_finite && !g_finite)
            return 2;
        if (!r_finite)
        {
            if (vr != vr)
                return (vg != vg) ? 0 : 3;
            return (vg == vr) ? 0 : 3;
        }
    }
    // Integers: the exact distance (at least 1 here), rounded once to a double for the report.
    const double d = T::floating ? fabs(vg - vr) : (double)T::distance(g, r);
    const double mag = fabs(vr);
    abs_err = d;
    if (mag > 0.0)
        rel_err = d / mag;
    // An exact comparison (the default for integers) takes no arithmetic on trust: the bits differ.
    if (atol == 0.0 && rtol == 0.0 && !T::floating)
        return 3;
    return (d <= atol + rtol * mag) ? 0 : 3;
}

__device__ __forceinline__ u64 warp_sum(u64 v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ double warp_max(double v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v = fmax(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

template <class T>
__device__ __forceinline__ void compare_impl(const void* got_v, const void* ref_v, u64 n, u64 poison,
                                             double atol, double rtol, u64* counters, u64 k1, u64 k2)
{
    typedef typename T::bits B;
    const B* got = (const B*)got_v;
    const B* ref = (const B*)ref_v;
    const B p = (B)poison;
    u64 unwritten = 0, nonfinite = 0, mismatches = 0;
    double max_abs = 0.0, max_rel = 0.0;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    {
        double a, r;
        const int c = classify<T>(got[i], (B)(ref[i] ^ (B)ws_mask_at(k1, k2, i)), p, atol, rtol, a, r);
        unwritten += (c == 1);
        nonfinite += (c == 2);
        mismatches += (c == 3);
        max_abs = fmax(max_abs, a);
        max_rel = fmax(max_rel, r);
    }
    unwritten = warp_sum(unwritten);
    nonfinite = warp_sum(nonfinite);
    mismatches = warp_sum(mismatches);
    max_abs = warp_max(max_abs);
    max_rel = warp_max(max_rel);
    if ((threadIdx.x & 31) == 0)
    {
        if (unwritten) atomicAdd(&counters[0], unwritten);
        if (nonfinite) atomicAdd(&counters[1], nonfinite);
        if (mismatches) atomicAdd(&counters[2], mismatches);
        if (max_abs > 0.0) atomicMax(&counters[3], (u64)__double_as_longlong(max_abs));
        if (max_rel > 0.0) atomicMax(&counters[4], (u64)__double_as_longlong(max_rel));
    }
}

template <class T>
__device__ __forceinline__ void first_bad_impl(const void* got_v, const void* ref_v, u64 n, u64 start,
                                               u64 poison, double atol, double rtol, u64* out, u64 k1, u64 k2)
{
    typedef typename T::bits B;
    const B* got = (const B*)got_v;
    const B* ref = (const B*)ref_v;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = start + (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    {
        double a, r;
        if (classify<T>(got[i], (B)(ref[i] ^ (B)ws_mask_at(k1, k2, i)), (B)poison, atol, rtol, a, r) != 0)
        {
            atomicMin(out, i);
            return;
        }
    }
}

template <class T>
__device__ __forceinline__ void find_abs_impl(const void* got_v, const void* ref_v, u64 n, u64 poison,
                                              u64 target_bits, u64* out, u64 k1, u64 k2)
{
    typedef typename T::bits B;
    const B* got = (const B*)got_v;
    const B* ref = (const B*)ref_v;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    {
        double a, r;
        classify<T>(got[i], (B)(ref[i] ^ (B)ws_mask_at(k1, k2, i)), (B)poison, 0.0, 0.0, a, r);
        if ((u64)__double_as_longlong(a) == target_bits)
        {
            atomicMin(out, i);
            return;
        }
    }
}

template <class T>
__device__ __forceinline__ void ref_stats_impl(const void* v_v, u64 n, u64* out)
{
    typedef typename T::bits B;
    const B* v = (const B*)v_v;
    u64 nonzero = 0, nonfinite = 0;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    {
        const double x = T::value(v[i]);
        nonzero += (x != 0.0);
        nonfinite += (T::floating && !ws_finite(x));
    }
    nonzero = warp_sum(nonzero);
    nonfinite = warp_sum(nonfinite);
    if ((threadIdx.x & 31) == 0)
    {
        if (nonzero) atomicAdd(&out[0], nonzero);
        if (nonfinite) atomicAdd(&out[1], nonfinite);
    }
}

#define WS_DEFINE_DTYPE(sfx, T)                                                                         \
    extern "C" __global__ void __launch_bounds__(256)                                                   \
    ws_compare_##sfx(const void* got, const void* ref, u64 n, u64 poison, double atol, double rtol,     \
                     u64* counters, u64 k1, u64 k2)                                                     \
    { compare_impl<T>(got, ref, n, poison, atol, rtol, counters, k1, k2); }                             \
    extern "C" __global__ void __launch_bounds__(256)                                                   \
    ws_first_bad_##sfx(const void* got, const void* ref, u64 n, u64 start, u64 poison, double atol,     \
                       double rtol, u64* out, u64 k1, u64 k2)                                           \
    { first_bad_impl<T>(got, ref, n, start, poison, atol, rtol, out, k1, k2); }                         \
    extern "C" __global__ void __launch_bounds__(256)                                                   \
    ws_find_abs_##sfx(const void* got, const void* ref, u64 n, u64 poison, u64 target_bits, u64* out,   \
                      u64 k1, u64 k2)                                                                   \
    { find_abs_impl<T>(got, ref, n, poison, target_bits, out, k1, k2); }                                \
    extern "C" __global__ void __launch_bounds__(256)                                                   \
    ws_ref_stats_##sfx(const void* v, u64 n, u64* out)                                                  \
    { ref_stats_impl<T>(v, n, out); }

WS_DEFINE_DTYPE(f16, t_f16)
WS_DEFINE_DTYPE(bf16, t_bf16)
WS_DEFINE_DTYPE(f32, t_f32)
WS_DEFINE_DTYPE(f64, t_f64)
WS_DEFINE_DTYPE(i8, t_i8)
WS_DEFINE_DTYPE(u8, t_u8)
WS_DEFINE_DTYPE(i16, t_i16)
WS_DEFINE_DTYPE(i32, t_i32)
WS_DEFINE_DTYPE(u32, t_u32)
WS_DEFINE_DTYPE(i64, t_i64)
WS_DEFINE_DTYPE(u64, t_u64)

// XORs n elements of `size` bytes (1, 2, 4 or 8) with their mask: masks a reference in place, and
// the same call unmasks it.
extern "C" __global__ void __launch_bounds__(256) ws_mask_reference(void* v, u64 n, u32 size, u64 k1, u64 k2)
{
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    {
        const u64 m = ws_mask_at(k1, k2, i);
        switch (size)
        {
        case 1: ((u8*)v)[i] ^= (u8)m; break;
        case 2: ((u16*)v)[i] ^= (u16)m; break;
        case 4: ((u32*)v)[i] ^= (u32)m; break;
        default: ((u64*)v)[i] ^= m; break;
        }
    }
}

// Differing bytes of two 4-byte aligned regions of n bytes.
extern "C" __global__ void __launch_bounds__(256) ws_diff_bytes(const u8* a, const u8* b, u64 n, u64* out)
{
    const u64 words = n >> 2;
    const u32* wa = (const u32*)a;
    const u32* wb = (const u32*)b;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    const u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 local = 0;
    for (u64 i = tid; i < words; i += stride)
    {
        const u32 x = wa[i] ^ wb[i];
        if (x)
            local += ((x & 0xFFu) != 0) + ((x & 0xFF00u) != 0) + ((x & 0xFF0000u) != 0) + ((x & 0xFF000000u) != 0);
    }
    for (u64 i = (words << 2) + tid; i < n; i += stride)
        local += (a[i] != b[i]);
    local = warp_sum(local);
    if ((threadIdx.x & 31) == 0 && local)
        atomicAdd(out, local);
}

struct ws_guard_range { u64 ptr; u64 bytes; u32 counter; u32 pad; };

// One blockIdx.y per guard range; bytes that differ from the fill byte are counted per counter,
// and with refill set written back to the fill byte (only those: an intact guard costs a read). A
// tail guard runs to the end of its 2 MiB-page allocation, so the aligned middle of a range is read
// 16 bytes at a time, four vectors in flight per thread; the unaligned bytes at either end one at a
// time.
extern "C" __global__ void __launch_bounds__(256)
ws_check_guards(const ws_guard_range* ranges, u32 fill, u64* counters, u32 refill)
{
    const ws_guard_range r = ranges[blockIdx.y];
    const u64 start = r.ptr, end = r.ptr + r.bytes;
    u64 first = (start + 15) & ~15ull, last = end & ~15ull;
    if (first > last)
        first = last = end;  // No whole 16-byte vector inside: all of it byte by byte.
    const u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    const u8 f = (u8)fill;
    u64 local = 0;
    for (u64 i = tid; i < first - start; i += stride)
    {
        u8* b = (u8*)start + i;
        if (*b != f)
        {
            ++local;
            if (refill)
                *b = f;
        }
    }
    for (u64 i = tid; i < end - last; i += stride)
    {
        u8* b = (u8*)last + i;
        if (*b != f)
        {
            ++local;
            if (refill)
                *b = f;
        }
    }
    const u32 f4 = (fill & 0xFFu) * 0x01010101u;
    uint4* v = (uint4*)first;
    const u64 vectors = (last - first) / 16;
    for (u64 base = tid; base < vectors; base += 4 * stride)
    {
        uint4 w[4];
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (base + k * stride < vectors)
                w[k] = v[base + k * stride];
#pragma unroll
        for (int k = 0; k < 4; ++k)
        {
            if (base + k * stride >= vectors)
                continue;
            // __vcmpne4 sets 0xFF in every byte that differs: 8 bits per differing byte.
            const u32 bad = (__popc(__vcmpne4(w[k].x, f4)) + __popc(__vcmpne4(w[k].y, f4)) +
                             __popc(__vcmpne4(w[k].z, f4)) + __popc(__vcmpne4(w[k].w, f4))) >> 3;
            local += bad;
            if (bad && refill)
                v[base + k * stride] = make_uint4(f4, f4, f4, f4);
        }
    }
    local = warp_sum(local);
    if ((threadIdx.x & 31) == 0 && local)
        atomicAdd(&counters[r.counter], local);
}

// Fills all of this block's dynamic shared memory with a seed-dependent pattern. Launched with the
// device's opt-in maximum, one block fills (nearly) a whole SM; volatile keeps the stores, which
// nothing in this kernel reads back.
extern "C" __global__ void __launch_bounds__(1024) ws_scrub_shared(u32 seed)
{
    extern __shared__ u32 ws_smem[];
    u32 bytes;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    volatile u32* s = ws_smem;
    const u32 words = bytes >> 2;
    for (u32 i = threadIdx.x; i < words; i += blockDim.x)
    {
        u32 x = seed ^ (i * 0x9E3779B9u) ^ (blockIdx.x * 0x85EBCA6Bu);
        x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16;
        s[i] = x;
    }
    // And the block's reserved window below the dynamic part, which any kernel can reach with
    // ld/st.shared at absolute addresses (launch_hygiene.cpp, ws_scrub_reserved_window).
    u32 cap;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
    for (u32 a = threadIdx.x * 4; a < cap; a += blockDim.x * 4)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(seed ^ (a * 0x9E3779B9u) ^ blockIdx.x) : "memory");
}

// FP32 rate: 16 independent FMA chains per thread (no dependent chain limits issue), 64 FMAs per
// iteration; the sum is stored so nothing is dead code.
extern "C" __global__ void __launch_bounds__(256) ws_fp32_fma(float* out, int iters, float a, float b)
{
    float x[16];
#pragma unroll
    for (int j = 0; j < 16; ++j)
        x[j] = (float)(threadIdx.x + j) * 1.0e-3f;
    for (int i = 0; i < iters; ++i)
    {
#pragma unroll
        for (int k = 0; k < 4; ++k)
        {
#pragma unroll
            for (int j = 0; j < 16; ++j)
                x[j] = fmaf(x[j], a, b);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 16; ++j)
        s += x[j];
    out[(u64)blockIdx.x * blockDim.x + threadIdx.x] = s;
}
)CUDA";

}  // namespace

std::string_view dtype_suffix(dtype t)
{
    switch (t)
    {
        case dtype::float16:
            return "f16";
        case dtype::bfloat16:
            return "bf16";
        case dtype::float32:
            return "f32";
        case dtype::float64:
            return "f64";
        case dtype::int8:
            return "i8";
        case dtype::uint8:
            return "u8";
        case dtype::int16:
            return "i16";
        case dtype::int32:
            return "i32";
        case dtype::uint32:
            return "u32";
        case dtype::int64:
            return "i64";
        case dtype::uint64:
            return "u64";
    }
    return "u8";
}

const std::string& helper_kernels_source()
{
    return k_source;
}

compile_request helper_kernels_request(const std::string& arch)
{
    compile_request r;
    r.source = k_source;
    r.entry = "ws_compare_f32";
    r.arch = arch;
    r.name = "warpsmith_helpers.cu";
    return r;
}

std::vector<std::string> helper_kernel_entries()
{
    std::vector<std::string> names;
    for (dtype t : helper_kernel_dtypes)
        for (const char* prefix : {"ws_compare_", "ws_first_bad_", "ws_find_abs_", "ws_ref_stats_"})
            names.push_back(prefix + std::string(dtype_suffix(t)));
    for (const char* name :
         {"ws_diff_bytes", "ws_check_guards", "ws_scrub_shared", "ws_fp32_fma", "ws_mask_reference"})
        names.emplace_back(name);
    return names;
}

}  // namespace warpsmith::worker
