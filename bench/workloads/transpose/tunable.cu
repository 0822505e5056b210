// Transpose, the tunable kernel: out[c][r] = in[r][c], in is rows x cols, out is cols x rows.
//
// A block moves one TILE x TILE tile through shared memory with (TILE/VEC) x BR threads:
//   load:  thread (tx, ty) reads VEC consecutive elements of input rows ty, ty+BR, ... (a vector
//          load when allowed) and puts them in tile[r][tx*VEC + e];
//   store: thread (tx, ty) writes VEC consecutive elements of output rows ty, ty+BR, ..., taken
//          from tile[tx*VEC + e][c] (a column of the tile), as one vector store when allowed.
// Every thread has TILE/BR loads in flight before the barrier, which is what keeps HBM busy.
// The tile rows are padded by PAD floats: with VEC=1 and TILE=32, PAD=1 makes the column reads
// conflict-free; other shapes trade a few conflicts for wider global accesses.
// Vector loads need cols % VEC == 0, vector stores rows % VEC == 0, and 16-byte (VEC*4) aligned
// bases: decided per launch (uniform). Interior tiles run without bounds checks; edge tiles check
// every element.
//
// Tunables: TILE [32,64], BR (thread rows) [4,8,16,32], VEC [1,2,4], PAD [0,1,2,4].
// Launch: grid (ceil_div(cols,TILE), ceil_div(rows,TILE)), block (TILE/VEC, BR),
// static shared memory TILE*(TILE+PAD)*4 bytes.

#ifndef TILE
#define TILE 32
#endif
#ifndef BR
#define BR 8
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef PAD
#define PAD 1
#endif

static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC is 1, 2 or 4");
static_assert(TILE % VEC == 0 && TILE % BR == 0, "tile shape");
static_assert((TILE / VEC) * BR <= 1024, "threads per block");

template <int V>
struct tr_vec;
template <>
struct tr_vec<1>
{
    float v[1];
};
template <>
struct __align__(8) tr_vec<2>
{
    float v[2];
};
template <>
struct __align__(16) tr_vec<4>
{
    float v[4];
};

extern "C" __global__ void __launch_bounds__((TILE / VEC) * BR)
transpose(int rows, int cols, const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float tile[TILE][TILE + PAD];
    const int c0 = blockIdx.x * TILE;
    const int r0 = blockIdx.y * TILE;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const bool vec_in = VEC > 1 && (cols % VEC == 0) && ((reinterpret_cast<unsigned long long>(in) & (VEC * 4 - 1)) == 0);
    const bool vec_out = VEC > 1 && (rows % VEC == 0) && ((reinterpret_cast<unsigned long long>(out) & (VEC * 4 - 1)) == 0);
    const bool interior = r0 + TILE <= rows && c0 + TILE <= cols;

    if (interior && (VEC == 1 || vec_in))
    {
        const float* src = in + (long long)(r0 + ty) * cols + c0 + tx * VEC;
        tr_vec<VEC> t[TILE / BR];
#pragma unroll
        for (int i = 0; i < TILE / BR; ++i)  // all loads first: TILE/BR in flight per thread
            t[i] = *reinterpret_cast<const tr_vec<VEC>*>(src + (long long)i * BR * cols);
#pragma unroll
        for (int i = 0; i < TILE / BR; ++i)
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                tile[ty + i * BR][tx * VEC + e] = t[i].v[e];
    }
    else
    {
#pragma unroll
        for (int i = 0; i < TILE / BR; ++i)
        {
            const int r = ty + i * BR;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
            {
                const int c = tx * VEC + e;
                if (r0 + r < rows && c0 + c < cols)
                    tile[r][c] = in[(long long)(r0 + r) * cols + c0 + c];
            }
        }
    }
    __syncthreads();

    if (interior && (VEC == 1 || vec_out))
    {
        float* dst = out + (long long)(c0 + ty) * rows + r0 + tx * VEC;
#pragma unroll
        for (int i = 0; i < TILE / BR; ++i)
        {
            tr_vec<VEC> t;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                t.v[e] = tile[tx * VEC + e][ty + i * BR];
            *reinterpret_cast<tr_vec<VEC>*>(dst + (long long)i * BR * rows) = t;
        }
    }
    else
    {
#pragma unroll
        for (int i = 0; i < TILE / BR; ++i)
        {
            const int c = ty + i * BR;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
            {
                const int r = tx * VEC + e;
                if (c0 + c < cols && r0 + r < rows)
                    out[(long long)(c0 + c) * rows + r0 + r] = tile[r][c];
            }
        }
    }
}
