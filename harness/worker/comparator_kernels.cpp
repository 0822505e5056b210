#include "harness/worker/comparator_kernels.hpp"

#include "harness/worker/device_buffers.hpp"
#include "harness/worker/local_window.hpp"

#include <algorithm>
#include <stdexcept>

namespace warpsmith::worker
{
namespace
{

constexpr unsigned k_block = 256;
constexpr int k_fma_per_iteration = 64;

void launch(CUfunction f,
            unsigned grid_x,
            unsigned grid_y,
            unsigned block,
            unsigned shared,
            CUstream s,
            void** args,
            const char* what)
{
    CUresult rc = cuda::driver().cuLaunchKernel(f, grid_x, grid_y, 1, block, 1, 1, shared, s, args, nullptr);
    cuda::check(rc, what);
}

void note_frame_of(CUfunction f)
{
    note_local_frame(
        static_cast<std::size_t>(cuda::function_attribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)));
}
}  // namespace

helper_kernels::helper_kernels(const std::string& cubin, int sm_count, int max_shared_optin)
    : module_(cuda::module::load(cubin)),
      sm_count_(std::max(1, sm_count)),
      scrub_shared_bytes_(max_shared_optin)
{
    for (dtype t : helper_kernel_dtypes)
    {
        const auto i = static_cast<std::size_t>(t);
        const std::string sfx(dtype_suffix(t));
        compare_.at(i) = module_.function("ws_compare_" + sfx);
        first_bad_.at(i) = module_.function("ws_first_bad_" + sfx);
        find_abs_.at(i) = module_.function("ws_find_abs_" + sfx);
        ref_stats_.at(i) = module_.function("ws_ref_stats_" + sfx);
    }
    diff_bytes_ = module_.function("ws_diff_bytes");
    check_guards_ = module_.function("ws_check_guards");
    scrub_ = module_.function("ws_scrub_shared");
    fma_ = module_.function("ws_fp32_fma");
    mask_ = module_.function("ws_mask_reference");
    // Their frames, if any, are part of the local allocation every later launch can reach.
    for (const auto* group : {&compare_, &first_bad_, &find_abs_, &ref_stats_})
        for (CUfunction f : *group)
            note_frame_of(f);
    for (CUfunction f : {diff_bytes_, check_guards_, scrub_, fma_, mask_})
        note_frame_of(f);
    // The scrubber takes the whole opt-in shared memory of a block, which needs the attribute
    // raised beyond the 48 KiB default first.
    WARPSMITH_CU(
        cuFuncSetAttribute, scrub_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, scrub_shared_bytes_);
}

unsigned helper_kernels::grid_for(std::uint64_t n) const
{
    const std::uint64_t blocks = (n + k_block - 1) / k_block;
    return static_cast<unsigned>(
        std::clamp<std::uint64_t>(blocks, 1, static_cast<std::uint64_t>(sm_count_) * 8));
}

void helper_kernels::compare(CUstream s,
                             dtype t,
                             CUdeviceptr got,
                             CUdeviceptr ref,
                             std::uint64_t n,
                             double atol,
                             double rtol,
                             CUdeviceptr counters,
                             reference_mask mask) const
{
    if (n == 0)
        return;
    std::uint64_t poison = poison_for(t).element_bits;
    void* args[] = {&got, &ref, &n, &poison, &atol, &rtol, &counters, &mask.k1, &mask.k2};
    launch(compare_.at(static_cast<std::size_t>(t)),
           grid_for(n),
           1,
           k_block,
           0,
           s,
           args,
           "cuLaunchKernel(ws_compare)");
}

void helper_kernels::first_bad(CUstream s,
                               dtype t,
                               CUdeviceptr got,
                               CUdeviceptr ref,
                               std::uint64_t n,
                               std::uint64_t start,
                               double atol,
                               double rtol,
                               CUdeviceptr out_index,
                               reference_mask mask) const
{
    if (start >= n)
        return;
    std::uint64_t poison = poison_for(t).element_bits;
    void* args[] = {&got, &ref, &n, &start, &poison, &atol, &rtol, &out_index, &mask.k1, &mask.k2};
    launch(first_bad_.at(static_cast<std::size_t>(t)),
           grid_for(n - start),
           1,
           k_block,
           0,
           s,
           args,
           "cuLaunchKernel(ws_first_bad)");
}

void helper_kernels::find_abs_error(CUstream s,
                                    dtype t,
                                    CUdeviceptr got,
                                    CUdeviceptr ref,
                                    std::uint64_t n,
                                    std::uint64_t target_bits,
                                    CUdeviceptr out_index,
                                    reference_mask mask) const
{
    if (n == 0)
        return;
    std::uint64_t poison = poison_for(t).element_bits;
    void* args[] = {&got, &ref, &n, &poison, &target_bits, &out_index, &mask.k1, &mask.k2};
    launch(find_abs_.at(static_cast<std::size_t>(t)),
           grid_for(n),
           1,
           k_block,
           0,
           s,
           args,
           "cuLaunchKernel(ws_find_abs)");
}

void helper_kernels::apply_mask(
    CUstream s, dtype t, CUdeviceptr v, std::uint64_t n, reference_mask mask) const
{
    if (n == 0 || !mask.enabled())
        return;
    unsigned size = static_cast<unsigned>(size_of(t));
    void* args[] = {&v, &n, &size, &mask.k1, &mask.k2};
    launch(mask_, grid_for(n), 1, k_block, 0, s, args, "cuLaunchKernel(ws_mask_reference)");
}

std::uint64_t reference_mask_bits(const reference_mask& mask, std::uint64_t index)
{
    if (!mask.enabled())
        return 0;
    const auto mix = [](std::uint64_t z)
    {
        z += 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    return mix(mask.k1 ^ mix(mask.k2 ^ index));
}

void helper_kernels::diff_bytes(
    CUstream s, CUdeviceptr a, CUdeviceptr b, std::uint64_t n, CUdeviceptr out_count) const
{
    if (n == 0)
        return;
    void* args[] = {&a, &b, &n, &out_count};
    launch(diff_bytes_, grid_for(n / 4 + 1), 1, k_block, 0, s, args, "cuLaunchKernel(ws_diff_bytes)");
}

void helper_kernels::check_guards(CUstream s,
                                  CUdeviceptr ranges,
                                  int count,
                                  std::uint64_t largest_bytes,
                                  unsigned char fill,
                                  CUdeviceptr counters,
                                  guard_refill refill) const
{
    if (count <= 0)
        return;
    unsigned fill_word = fill;
    unsigned refill_word = refill == guard_refill::yes ? 1u : 0u;
    void* args[] = {&ranges, &fill_word, &counters, &refill_word};
    // Enough blocks per range that every thread reads the largest range in one pass of four 16-byte
    // vectors (16 KiB per block: a 2 MiB tail guard gets 128 blocks), and at most what fills the
    // GPU a few times over.
    const std::uint64_t per_block = std::uint64_t(k_block) * 16 * 4;
    const std::uint64_t wanted = (largest_bytes + per_block - 1) / per_block;
    const std::uint64_t most =
        std::max<std::uint64_t>(1, std::uint64_t(sm_count_) * 16 / std::uint64_t(count));
    launch(check_guards_,
           static_cast<unsigned>(std::clamp<std::uint64_t>(wanted, 1, most)),
           static_cast<unsigned>(count),
           k_block,
           0,
           s,
           args,
           "cuLaunchKernel(ws_check_guards)");
}

void helper_kernels::reference_stats(
    CUstream s, dtype t, CUdeviceptr v, std::uint64_t n, CUdeviceptr out) const
{
    if (n == 0)
        return;
    void* args[] = {&v, &n, &out};
    launch(ref_stats_.at(static_cast<std::size_t>(t)),
           grid_for(n),
           1,
           k_block,
           0,
           s,
           args,
           "cuLaunchKernel(ws_ref_stats)");
}

void helper_kernels::scrub_shared_memory(CUstream s, std::uint32_t seed) const
{
    void* args[] = {&seed};
    launch(scrub_,
           static_cast<unsigned>(sm_count_) * 2,
           1,
           1024,
           static_cast<unsigned>(scrub_shared_bytes_),
           s,
           args,
           "cuLaunchKernel(ws_scrub_shared)");
}

double helper_kernels::fp32_fma(CUstream s, int blocks, int iters, CUdeviceptr out) const
{
    float a = 0.999999f;
    float b = 1.0e-6f;
    void* args[] = {&out, &iters, &a, &b};
    launch(fma_, static_cast<unsigned>(blocks), 1, k_block, 0, s, args, "cuLaunchKernel(ws_fp32_fma)");
    return 2.0 * k_fma_per_iteration * static_cast<double>(iters) * blocks * k_block;
}

}  // namespace warpsmith::worker
