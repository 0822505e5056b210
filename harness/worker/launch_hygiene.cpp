#include "harness/worker/launch_hygiene.hpp"

#include "harness/core/log.hpp"
#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/worker/device_buffers.hpp"

#include <algorithm>
#include <stdexcept>

namespace warpsmith::worker
{

namespace
{

const char* const k_source = R"CUDA(
typedef unsigned int u32;
typedef unsigned long long u64;
#define WS_LOCAL_TOP 0x1000000ull

__device__ __forceinline__ u32 ws_hash32(u32 x)
{
    x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16;
    return x;
}

__device__ __forceinline__ u64 ws_mix64(u64 z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The block's reserved shared window, [0, %reserved_smem_offset_cap) of its shared addresses (1 KiB
// on the H200, below the dynamic shared memory): every block has one, a kernel without any shared
// memory of its own can load and store it with ld/st.shared at absolute addresses, and what it
// stores there is still there for the next block that gets the same place on the SM (probe on the
// H200: docs/hardening.md). With the dynamic part, a block with the opt-in maximum covers the whole
// of its SM's shared memory.
__device__ __forceinline__ void ws_scrub_reserved_window(u32 seed)
{
    u32 cap;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
    for (u32 a = threadIdx.x * 4; a < cap; a += blockDim.x * 4)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(ws_hash32(seed ^ a)) : "memory");
}

// The shared memory of this block (launched with the opt-in maximum, one block per SM) and its
// reserved window, then this block's share of the L2 scrub buffer. The shared stores are asm
// volatile or through a volatile pointer: nothing reads them back.
extern "C" __global__ void __launch_bounds__(1024) ws_scrub_sm(u32 seed, uint4* l2, u64 l2_vectors)
{
    extern __shared__ u32 ws_smem[];
    u32 bytes;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    // 16-byte stores, one hash per vector: the pattern differs per seed, block and position.
    const u32 base = (u32)__cvta_generic_to_shared(ws_smem);
    const u32 vectors = bytes >> 4;
    for (u32 i = threadIdx.x; i < vectors; i += blockDim.x)
    {
        const u32 h = ws_hash32(seed ^ (i * 0x9E3779B9u) ^ (blockIdx.x * 0x85EBCA6Bu));
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(base + (i << 4)), "r"(h),
                     "r"(h ^ 0x5BD1E995u), "r"(h * 0x27D4EB2Fu), "r"(~h)
                     : "memory");
    }
    for (u32 i = (vectors << 2) + threadIdx.x; i < (bytes >> 2); i += blockDim.x)
        ((volatile u32*)ws_smem)[i] = ws_hash32(seed ^ i);
    ws_scrub_reserved_window(seed ^ blockIdx.x);
    const uint4 v = make_uint4(seed, ~seed, seed ^ 0xA5A5A5A5u, seed + 1u);
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < l2_vectors; i += stride)
        l2[i] = v;
}

// The local window (local_window.hpp): every thread stores a fresh pattern over its whole local
// allocation, [its own frame, the window's top), with 16-byte st.local stores at absolute
// addresses. The variant is chosen so that its frame is at least every frame the context has
// launched, so its frame starts where the allocation starts and every address up to the top is
// one this launch may store to. The frame (a volatile array the compiler must keep in memory) is
// what the variant is for; `where` (thread 0 of block 0) reports its start for the check at load.
// The stores are cache-streaming (evict-first), so that in hot mode they displace as little of
// the candidate's data in L2 as they can (launch_hygiene_bench measures what remains).
template <int WORDS>
__device__ __forceinline__ void ws_scrub_local_impl(u32 seed, u64* where)
{
    volatile u32 frame[WORDS];
    frame[threadIdx.x % WORDS] = seed;
    u64 lo;
    asm volatile("cvta.to.local.u64 %0, %1;" : "=l"(lo) : "l"((u64)&frame[0]));
    lo &= ~15ull;
    const u32 t = ws_hash32(seed ^ (blockIdx.x * 1024u + threadIdx.x));
    for (u64 a = lo; a < WS_LOCAL_TOP; a += 16)
        asm volatile("st.local.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(a), "r"(t), "r"(t ^ (u32)a), "r"(~t),
                     "r"(t + (u32)a)
                     : "memory");
    if (where && blockIdx.x == 0 && threadIdx.x == 0)
        where[0] = lo;
}
extern "C" __global__ void __launch_bounds__(1024, 2) ws_scrub_local_64(u32 seed, u64* where) { ws_scrub_local_impl<16>(seed, where); }
extern "C" __global__ void __launch_bounds__(1024, 2) ws_scrub_local_256(u32 seed, u64* where) { ws_scrub_local_impl<64>(seed, where); }
extern "C" __global__ void __launch_bounds__(1024, 2) ws_scrub_local_1k(u32 seed, u64* where) { ws_scrub_local_impl<256>(seed, where); }
extern "C" __global__ void __launch_bounds__(1024, 2) ws_scrub_local_4k(u32 seed, u64* where) { ws_scrub_local_impl<1024>(seed, where); }
extern "C" __global__ void __launch_bounds__(1024, 2) ws_scrub_local_16k(u32 seed, u64* where) { ws_scrub_local_impl<4096>(seed, where); }

// Digest of the words phase, phase + stride, ... : each sampled word is mixed with its index, so
// moving data around changes the digest too.
extern "C" __global__ void __launch_bounds__(256) ws_digest(const u64* p, u64 words, u32 stride, u32 phase, u64* out)
{
    u64 acc = 0;
    const u64 step = (u64)gridDim.x * blockDim.x;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;; j += step)
    {
        const u64 i = j * stride + phase;
        if (i >= words)
            break;
        acc ^= ws_mix64(p[i] ^ ws_mix64(i));
    }
    for (int o = 16; o > 0; o >>= 1)
        acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0 && acc)
        atomicXor(out, acc);
}

// The same over a table of regions, one per blockIdx.y, into out[region].
struct ws_seal_region
{
    const u64* p;
    u64 words;
    u32 stride;
    u32 pad;
};
extern "C" __global__ void __launch_bounds__(256) ws_digest_regions(const ws_seal_region* table, u32 phase, u64* out)
{
    const ws_seal_region r = table[blockIdx.y];
    const u32 first = r.stride > 1 ? phase % r.stride : 0u;
    u64 acc = 0;
    const u64 step = (u64)gridDim.x * blockDim.x;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;; j += step)
    {
        const u64 i = j * r.stride + first;
        if (i >= r.words)
            break;
        acc ^= ws_mix64(r.p[i] ^ ws_mix64(i));
    }
    for (int o = 16; o > 0; o >>= 1)
        acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0 && acc)
        atomicXor(&out[blockIdx.y], acc);
}
)CUDA";

void launch(
    CUfunction f, unsigned grid, unsigned block, unsigned shared, CUstream s, void** args, const char* what)
{
    cuda::check(cuda::driver().cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared, s, args, nullptr), what);
}

}  // namespace

const std::string& launch_hygiene_source()
{
    static const std::string source = k_source;
    return source;
}

compile_request launch_hygiene_request(const std::string& arch)
{
    compile_request r;
    r.source = launch_hygiene_source();
    r.entry = "ws_scrub_sm";
    r.arch = arch;
    r.name = "warpsmith_launch_hygiene.cu";
    return r;
}

launch_hygiene::launch_hygiene(const nvrtc_compiler& compiler, const gpu_device& device)
{
    const compile_request request = launch_hygiene_request(device.arch());
    compile_output out;
    try
    {
        out = compiler.compile(request);
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("compile cache unusable for the launch-hygiene kernels (") + e.what() +
                 "); compiling without it");
        out = nvrtc_compiler().compile(request);
    }
    if (!out.compiled)
        throw std::runtime_error("the worker's launch-hygiene kernels do not compile for " + device.arch() +
                                 ": " + out.error + "\n" + out.log);
    module_ = cuda::module::load(out.cubin);
    scrub_sm_ = module_.function("ws_scrub_sm");
    digest_ = module_.function("ws_digest");
    digest_regions_ = module_.function("ws_digest_regions");
    const device_limits& l = device.limits();
    sm_count_ = std::max(1, l.sm_count);
    blocks_per_sm_ = std::max(1, l.max_threads_per_sm / 1024);
    shared_bytes_ = l.shared_per_block_optin;
    WARPSMITH_CU(
        cuFuncSetAttribute, scrub_sm_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared_bytes_);
    for (CUfunction f : {scrub_sm_, digest_, digest_regions_})
        note_local_frame(
            static_cast<std::size_t>(cuda::function_attribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)));
    for (const char* name : {"ws_scrub_local_64",
                             "ws_scrub_local_256",
                             "ws_scrub_local_1k",
                             "ws_scrub_local_4k",
                             "ws_scrub_local_16k"})
    {
        local_scrubber v;
        v.function = module_.function(name);
        v.frame_bytes = static_cast<std::size_t>(
            cuda::function_attribute(v.function, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
        if (v.frame_bytes == 0 || v.frame_bytes % 16 != 0)
            throw std::runtime_error(std::string("the local scrubber ") + name + " has a frame of " +
                                     std::to_string(v.frame_bytes) +
                                     " bytes (want a non-zero multiple of 16)");
        local_scrubbers_.push_back(v);
    }
    std::sort(local_scrubbers_.begin(),
              local_scrubbers_.end(),
              [](const local_scrubber& a, const local_scrubber& b) { return a.frame_bytes < b.frame_bytes; });
    if (local_scrubbers_.back().frame_bytes < max_local_frame_bytes)
        throw std::runtime_error("the largest local scrubber's frame is smaller than max_local_frame_bytes");

    if (exact_allocations())
    {
        // compute-sanitizer (warpsmith eval --sanitize) reports the scrubbers' stores outside their
        // own frame as out of bounds; a sanitizer run checks memory errors, and its timings rank
        // nothing, so the local window is left alone there.
        local_scrubbers_.clear();
        log_debug("local window: not wiped (exact allocations, under compute-sanitizer)");
        return;
    }
    // Where the smallest scrubber's frame starts tells the reserve above the frames; the layout of
    // local_window.hpp is checked here, once, so a driver that lays the window out otherwise stops
    // the worker instead of leaving part of the allocation unwiped.
    const local_scrubber& first = local_scrubbers_.front();
    note_local_frame(first.frame_bytes);
    cuda::device_buffer where(sizeof(std::uint64_t));
    std::uint32_t seed = 1;
    CUdeviceptr where_ptr = where.ptr();
    void* args[] = {&seed, &where_ptr};
    launch(first.function,
           static_cast<unsigned>(sm_count_ * blocks_per_sm_),
           1024,
           0,
           device.stream(),
           args,
           "cuLaunchKernel(ws_scrub_local)");
    WARPSMITH_CU(cuStreamSynchronize, device.stream());
    std::uint64_t lo = 0;
    WARPSMITH_CU(cuMemcpyDtoH, &lo, where.ptr(), sizeof lo);
    const std::uint64_t top = local_window_top;
    if (lo % 16 != 0 || lo >= top || top - lo < first.frame_bytes ||
        top - lo - first.frame_bytes > std::uint64_t{64} * 1024)
        throw std::runtime_error("the local window is not laid out as the worker expects: a " +
                                 std::to_string(first.frame_bytes) + "-byte frame starts at local address " +
                                 std::to_string(lo) + " (want 16-byte aligned, within 64 KiB below 2^24)");
    local_reserve_ = static_cast<std::size_t>(top - lo - first.frame_bytes);
    log_debug("local window: " + std::to_string(local_reserve_) + "-byte reserve above the frames; " +
              std::to_string(local_frame_high_water()) + " bytes of frame recorded");
}

const launch_hygiene::local_scrubber& launch_hygiene::local_scrubber_for(std::size_t frame) const
{
    for (const local_scrubber& v : local_scrubbers_)
        if (v.frame_bytes >= frame)
            return v;
    throw std::logic_error("a kernel with " + std::to_string(frame) +
                           " bytes of local memory per thread was launched: more than the harness can wipe");
}

std::size_t launch_hygiene::local_scrub_bytes() const
{
    if (local_scrubbers_.empty())
        return 0;
    return local_reserve_ + local_scrubber_for(local_frame_high_water()).frame_bytes;
}

void launch_hygiene::scrub_sm(CUstream s,
                              std::uint32_t seed,
                              CUdeviceptr l2_buffer,
                              std::size_t l2_bytes) const
{
    std::uint64_t vectors = l2_bytes / 16;
    void* args[] = {&seed, &l2_buffer, &vectors};
    // One block per SM: each takes the opt-in maximum of shared memory, so no SM holds two, and
    // all of them run in one wave.
    launch(scrub_sm_,
           static_cast<unsigned>(sm_count_),
           1024,
           static_cast<unsigned>(shared_bytes_),
           s,
           args,
           "cuLaunchKernel(ws_scrub_sm)");
}

void launch_hygiene::scrub_local(CUstream s, std::uint32_t seed) const
{
    if (local_scrubbers_.empty())
        return;  // Under compute-sanitizer (see the constructor).
    const local_scrubber& v = local_scrubber_for(local_frame_high_water());
    // Launching it grows the allocation to its frame, so that is what the next candidate can reach.
    note_local_frame(v.frame_bytes);
    CUdeviceptr no_report = 0;
    void* args[] = {&seed, &no_report};
    launch(v.function,
           static_cast<unsigned>(sm_count_ * blocks_per_sm_),
           1024,
           0,
           s,
           args,
           "cuLaunchKernel(ws_scrub_local)");
}

void launch_hygiene::digest(
    CUstream s, CUdeviceptr p, std::size_t bytes, std::uint32_t phase, CUdeviceptr out) const
{
    std::uint64_t words = bytes / 8;
    if (words == 0)
        return;
    std::uint32_t stride = digest_stride_words;
    phase %= stride;
    void* args[] = {&p, &words, &stride, &phase, &out};
    const std::uint64_t samples = words / stride + 1;
    const auto grid =
        static_cast<unsigned>(std::clamp<std::uint64_t>((samples + 255) / 256, 1, sm_count_ * 4ull));
    launch(digest_, grid, 256, 0, s, args, "cuLaunchKernel(ws_digest)");
}

}  // namespace warpsmith::worker

namespace warpsmith::worker
{

void launch_hygiene::digest_regions(
    CUstream s, CUdeviceptr table, int count, std::uint32_t phase, CUdeviceptr out) const
{
    if (count <= 0)
        return;
    void* args[] = {&table, &phase, &out};
    cuda::check(cuda::driver().cuLaunchKernel(
                    digest_regions_, 16, static_cast<unsigned>(count), 1, 256, 1, 1, 0, s, args, nullptr),
                "cuLaunchKernel(ws_digest_regions)");
}

}  // namespace warpsmith::worker
