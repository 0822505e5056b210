#pragma once

// Wiping the places where a kernel could keep state from one launch to the next, outside the
// timed events (docs/hardening.md, "State between launches"). Three wipes, each a kernel of the
// worker's own small module:
//
// * SM scrub: every SM's shared memory filled with a fresh pattern (one block per SM, each with
//   the opt-in maximum of dynamic shared memory), and, in cold mode, in the same launch, the
//   L2-sized scrub buffer overwritten (what a memset used to do). A kernel that reads shared memory it did
//   not write finds noise, never what its previous launch left there. That includes each block's reserved
//   window below its dynamic shared memory (1 KiB on the H200), which every kernel, even one
//   without shared memory of its own, can load and store at absolute shared addresses.
// * Local scrub: every thread's whole local allocation overwritten at full occupancy on every SM
//   (local_window.hpp). Local memory is a per-context pool reused by every launch, and any kernel,
//   with a frame or without, can store to all of it with st.local at absolute addresses and load
//   it back at its next launch. Before every candidate launch.
// * Seal digest: an order-sensitive 64-bit digest of sampled words (one 8-byte word per 512
//   bytes, at a random phase) of the worker's own buffers that no candidate may change (pristine
//   inputs, masked references, guard tables), taken before and after an evaluation.
//
// Module globals are restored by module_state (module_state.hpp), not here.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/worker/gpu_device.hpp"
#include "harness/worker/local_window.hpp"

#include <cstdint>
#include <string>
#include <vector>

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
    /// Compiles (or takes from the cache) and loads the module, records its kernels' frames and
    /// finds the local window's reserve with one launch. Throws std::runtime_error when the module
    /// does not compile or the window is not laid out as local_window.hpp says.
    launch_hygiene(const nvrtc_compiler& compiler, const gpu_device& device);

    /// Fills the shared memory of every SM, each block's reserved window included; with l2_bytes > 0
    /// also overwrites [l2_buffer, l2_buffer + l2_bytes) (16-byte multiple) in the same launch.
    void scrub_sm(CUstream s, std::uint32_t seed, CUdeviceptr l2_buffer = 0, std::size_t l2_bytes = 0) const;

    /// Overwrites every thread's whole local allocation: the reserve plus the smallest scrub frame
    /// (64 B, 256 B, 1, 4 or 16 KiB) that is at least local_frame_high_water(), which it then
    /// records. Throws std::logic_error when a frame beyond max_local_frame_bytes was recorded.
    void scrub_local(CUstream s, std::uint32_t seed) const;
    /// Bytes per thread the next scrub_local writes.
    std::size_t local_scrub_bytes() const;
    /// The bytes above every frame at the top of the local window (576 on the H200).
    std::size_t local_reserve() const { return local_reserve_; }

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
    struct local_scrubber
    {
        CUfunction function = nullptr;
        std::size_t frame_bytes = 0;
    };
    const local_scrubber& local_scrubber_for(std::size_t frame) const;
    std::vector<local_scrubber> local_scrubbers_;  ///< By frame, ascending.
    std::size_t local_reserve_ = 0;
    CUfunction digest_ = nullptr;
    CUfunction digest_regions_ = nullptr;
    int sm_count_ = 1;
    int blocks_per_sm_ = 2;  ///< 1024-thread blocks that fill an SM's thread slots.
    int shared_bytes_ = 0;
};

}  // namespace warpsmith::worker
