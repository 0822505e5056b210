#pragma once

// The worker's own device code (SPEC §3 "Comparison runs on the GPU; only a summary comes back"):
// per-dtype comparison of a candidate's output against the reference, the first-mismatch and
// worst-element searches, byte-exact comparison (input intact, reference depends on inputs), guard
// checks, reference statistics, the shared-memory scrubber and the FP32 rate kernel. The source is
// compiled with NVRTC for the device's architecture when the worker starts, through the compile
// cache, so a warm worker pays nothing. The source and its compile request are in
// helper_kernels_source.cpp; comparator_kernels.cpp loads the module and launches.

#include "harness/compile/compile_request.hpp"
#include "harness/cuda/handles.hpp"
#include "harness/workload/dtype.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace warpsmith::worker
{

/// Per-output comparison counters as the compare kernel leaves them in device memory: five
/// 64-bit words in this order. max_abs_bits/max_rel_bits are the bit patterns of non-negative
/// doubles (whose bit patterns order like their values, so atomicMax on the bits is a max).
struct compare_counters
{
    std::uint64_t unwritten;     ///< Elements still holding the poison pattern.
    std::uint64_t nonfinite;     ///< NaN/Inf where the reference is finite.
    std::uint64_t mismatches;    ///< Outside atol + rtol*|ref| (or wrong NaN/Inf class).
    std::uint64_t max_abs_bits;  ///< Largest |got - ref| over elements where both are finite.
    std::uint64_t max_rel_bits;  ///< Largest |got - ref| / |ref| over those with ref != 0.
};
inline constexpr std::size_t compare_counter_words = 5;

/// Layout of one guard range for the guard-check kernel (matches the device struct).
/// Whether a guard check also puts the fill byte back where it found another.
enum class guard_refill
{
    no,
    yes
};

struct guard_range
{
    std::uint64_t ptr;
    std::uint64_t bytes;
    std::uint32_t counter;  ///< Index of the 64-bit counter this range adds its changed bytes to.
    std::uint32_t pad;
};

/// The secret of the reference masking (SPEC §3 "reference outputs stay on the GPU"; see
/// docs/hardening.md): reference outputs live in the same address space as the candidate, so they
/// are stored XORed with a per-element mask that a kernel cannot derive without the two keys. The
/// keys are random per workload load and input set (case_store) and only ever travel as arguments
/// of the worker's own kernels. Both zero: not masked.
struct reference_mask
{
    std::uint64_t k1 = 0;
    std::uint64_t k2 = 0;

    bool enabled() const { return (k1 | k2) != 0; }
};

/// The 64-bit mask of element `index` (an element uses its low size_of(t) bytes); 0 when disabled.
/// The same function as the device code's ws_mask_at.
std::uint64_t reference_mask_bits(const reference_mask& mask, std::uint64_t index);

/// "f32", "bf16", "i64", ...: the suffix of the per-dtype kernels.
std::string_view dtype_suffix(dtype t);

/// Every element type the helpers have per-dtype kernels for (helper_kernels_source.cpp).
inline constexpr std::array<dtype, 11> helper_kernel_dtypes{dtype::float16,
                                                            dtype::bfloat16,
                                                            dtype::float32,
                                                            dtype::float64,
                                                            dtype::int8,
                                                            dtype::uint8,
                                                            dtype::int16,
                                                            dtype::int32,
                                                            dtype::uint32,
                                                            dtype::int64,
                                                            dtype::uint64};

/// The CUDA C++ source of every helper kernel.
const std::string& helper_kernels_source();

/// The compile request for the helpers on an architecture ("sm_90"). Entry: ws_compare_f32.
compile_request helper_kernels_request(const std::string& arch);

/// Every entry point the helper module must have (used by tests and by load()).
std::vector<std::string> helper_kernel_entries();

/// The loaded helper module and typed launchers. All launches go to the given stream and are
/// asynchronous; pointers are device addresses.
class helper_kernels
{
public:
    /// Loads the cubin and resolves every entry; sm_count sizes the grids.
    helper_kernels(const std::string& cubin, int sm_count, int max_shared_optin);

    /// Adds compare_counters of got vs ref (n elements of t) into counters (5 words, pre-zeroed).
    /// ref is unmasked with `mask` as it is read.
    void compare(CUstream s,
                 dtype t,
                 CUdeviceptr got,
                 CUdeviceptr ref,
                 std::uint64_t n,
                 double atol,
                 double rtol,
                 CUdeviceptr counters,
                 reference_mask mask = {}) const;
    /// atomicMin into *out_index (pre-set to ~0) of the first bad element index >= start.
    void first_bad(CUstream s,
                   dtype t,
                   CUdeviceptr got,
                   CUdeviceptr ref,
                   std::uint64_t n,
                   std::uint64_t start,
                   double atol,
                   double rtol,
                   CUdeviceptr out_index,
                   reference_mask mask = {}) const;
    /// atomicMin into *out_index of the first index whose |got - ref| has exactly the bits target.
    void find_abs_error(CUstream s,
                        dtype t,
                        CUdeviceptr got,
                        CUdeviceptr ref,
                        std::uint64_t n,
                        std::uint64_t target_bits,
                        CUdeviceptr out_index,
                        reference_mask mask = {}) const;
    /// XORs n elements of t at v with their mask, in place (masks, and applied again unmasks).
    void apply_mask(CUstream s, dtype t, CUdeviceptr v, std::uint64_t n, reference_mask mask) const;
    /// Adds the number of differing bytes of a and b (4-byte aligned, n bytes) to *out_count.
    void diff_bytes(CUstream s, CUdeviceptr a, CUdeviceptr b, std::uint64_t n, CUdeviceptr out_count) const;
    /// For each of `count` guard_range entries at ranges (the largest `largest_bytes` long), adds its
    /// bytes != fill to counters[counter]; with guard_refill::yes also writes those bytes back to
    /// fill, in the same launch.
    void check_guards(CUstream s,
                      CUdeviceptr ranges,
                      int count,
                      std::uint64_t largest_bytes,
                      unsigned char fill,
                      CUdeviceptr counters,
                      guard_refill refill) const;
    /// Adds {non-zero elements, non-finite elements} of v into out (2 words).
    void reference_stats(CUstream s, dtype t, CUdeviceptr v, std::uint64_t n, CUdeviceptr out) const;
    /// Fills the shared memory of every SM with a pattern derived from seed.
    void scrub_shared_memory(CUstream s, std::uint32_t seed) const;
    /// The FP32 FMA rate kernel: `blocks` x 256 threads, each 64*iters FMAs; out gets one float per
    /// thread. Returns the FLOPs of one launch.
    double fp32_fma(CUstream s, int blocks, int iters, CUdeviceptr out) const;

private:
    CUfunction get(std::string_view prefix, dtype t) const;
    unsigned grid_for(std::uint64_t n) const;

    cuda::module module_;
    int sm_count_ = 1;
    int scrub_shared_bytes_ = 0;
    std::array<CUfunction, 11> compare_{}, first_bad_{}, find_abs_{}, ref_stats_{};
    CUfunction diff_bytes_ = nullptr, check_guards_ = nullptr, scrub_ = nullptr, fma_ = nullptr,
               mask_ = nullptr;
};

}  // namespace warpsmith::worker
