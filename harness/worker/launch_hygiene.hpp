#pragma once

// Wiping the places where a kernel could keep state from one launch to the next, outside the
// timed events (docs/hardening.md, "State between launches"). Three wipes, each a kernel of the
// worker's own small module:
//
// * SM scrub: every SM's shared memory filled with a fresh pattern (one block per SM half, each
//   with the opt-in maximum of dynamic shared memory), and, in cold mode, in the same launch, the
//   L2-sized scrub buffer overwritten (what the memset used to do). A kernel that reads shared
//   memory it did not write finds noise, never what its previous launch left there.
// * Local scrub: the first `bytes` of every thread's local (stack) window overwritten at full
//   occupancy on every SM. Local memory is a per-context pool reused by every launch; a kernel
//   that reads a stack slot before writing it would otherwise find its previous launch's values.
//   Only candidates with a local frame (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES > 0) need it.
// * Seal digest: an order-sensitive 64-bit digest of sampled words (one 8-byte word per 512
//   bytes, at a random phase) of the worker's own buffers that no candidate may change (pristine
//   inputs, masked references, guard tables), taken before and after an evaluation.
//
// Module globals are restored by module_state (module_state.hpp), not here.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/worker/gpu_device.hpp"

#include <cstdint>
#include <string>

namespace warpsmith::worker
{

/// The module's source and compile request (compiled once per worker, cached like any kernel).
const std::string& launch_hygiene_source();
compile_request launch_hygiene_request(const std::string& arch);

/// One entry of the seal table (device layout of ws_seal_region).
struct seal_region
{
    std::uint64_t ptr = 0;    ///< 8-byte aligned.
    std::uint64_t words = 0;  ///< 8-byte words.
    std::uint32_t stride = 1;
    std::uint32_t pad = 0;
};

class launch_hygiene
{
public:
    /// Compiles (or takes from the cache) and loads the module. Throws std::runtime_error when it
    /// does not compile.
    launch_hygiene(const nvrtc_compiler& compiler, const gpu_device& device);

    /// Fills the shared memory of every SM; with l2_bytes > 0 also overwrites [l2_buffer,
    /// l2_buffer + l2_bytes) (16-byte multiple) in the same launch.
    void scrub_sm(CUstream s, std::uint32_t seed, CUdeviceptr l2_buffer = 0, std::size_t l2_bytes = 0) const;

    /// Overwrites the first `bytes` of every thread's local window (rounded up to 4; at most
    /// max_local_scrub_bytes, beyond which the rest of a larger frame is not covered).
    void scrub_local(CUstream s, std::uint32_t seed, std::size_t bytes) const;
    static constexpr std::size_t max_local_scrub_bytes = 16 * 1024;

    /// XORs into *out an order-sensitive digest of the words at phase, phase + 64, ... of the
    /// `bytes` (a multiple of 8) at p.
    void digest(CUstream s, CUdeviceptr p, std::size_t bytes, std::uint32_t phase, CUdeviceptr out) const;
    static constexpr std::uint32_t digest_stride_words = 64;

    /// One launch: for each of `count` seal_region entries at table, XORs the region's digest into
    /// out[region] (pre-zeroed). A region's stride of 1 reads every word; a larger stride reads the
    /// words at phase % stride, + stride, ...
    void digest_regions(CUstream s, CUdeviceptr table, int count, std::uint32_t phase, CUdeviceptr out) const;

private:
    cuda::module module_;
    CUfunction scrub_sm_ = nullptr;
    CUfunction scrub_local_1k_ = nullptr;
    CUfunction scrub_local_4k_ = nullptr;
    CUfunction scrub_local_16k_ = nullptr;
    CUfunction digest_ = nullptr;
    CUfunction digest_regions_ = nullptr;
    int sm_count_ = 1;
    int blocks_per_sm_ = 2;  ///< 1024-thread blocks that fill an SM's thread slots.
    int shared_bytes_ = 0;
};

}  // namespace warpsmith::worker
