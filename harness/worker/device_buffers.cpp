#include "harness/worker/device_buffers.hpp"

#include <algorithm>

namespace warpsmith::worker
{

namespace
{

// Set once by main() before any buffer exists; the worker is single-threaded.
bool g_exact_allocations = false;

/// Head guard + payload + tail guard (the tail padded to the payload alignment, so at least 4096).
std::size_t guarded_bytes(std::size_t payload_bytes)
{
    if (g_exact_allocations)
        return payload_bytes;
    const std::size_t padded =
        (payload_bytes + payload_alignment - 1) / payload_alignment * payload_alignment;
    return guard_bytes + padded + guard_bytes;
}

}  // namespace

std::size_t whole_pages(std::size_t bytes)
{
    if (g_exact_allocations)
        return bytes;
    return (std::max<std::size_t>(bytes, 1) + allocation_page - 1) / allocation_page * allocation_page;
}

void set_exact_allocations(bool exact)
{
    g_exact_allocations = exact;
}
bool exact_allocations()
{
    return g_exact_allocations;
}

poison_pattern poison_for(dtype t)
{
    switch (t)
    {
        case dtype::float16:
            return {0x7CA5, 2, 0x7CA5};
        case dtype::bfloat16:
            return {0x7FA5, 2, 0x7FA5};
        case dtype::float32:
            return {0x7FA5A5A5u, 4, 0x7FA5A5A5u};
        // Both 32-bit halves equal, so a 32-bit memset writes it; the high word makes it a NaN whose
        // quiet bit (bit 51) is clear.
        case dtype::float64:
            return {0x7FF4A5A57FF4A5A5ull, 4, 0x7FF4A5A5u};
        case dtype::int8:
        case dtype::uint8:
            return {0xA5, 1, 0xA5};
        case dtype::int16:
            return {0xA5A5, 2, 0xA5A5};
        case dtype::int32:
        case dtype::uint32:
            return {0xA5A5A5A5u, 4, 0xA5A5A5A5u};
        case dtype::int64:
        case dtype::uint64:
            return {0xA5A5A5A5A5A5A5A5ull, 4, 0xA5A5A5A5u};
    }
    return {0xA5, 1, 0xA5};
}

guarded_buffer::guarded_buffer(std::size_t payload_bytes)
    : memory_(whole_pages(guarded_bytes(payload_bytes))),
      payload_bytes_(payload_bytes),
      head_bytes_(g_exact_allocations ? 0 : guard_bytes),
      // The tail guard runs to the end of the allocation: every byte a kernel can reach past its
      // buffer without faulting is checked after every checked launch, so data kept there between
      // launches is caught on the first one that finds it, whichever launch that is.
      tail_bytes_(memory_.size() - head_bytes_ - payload_bytes)
{
}

void guarded_buffer::poison(CUstream s, dtype t) const
{
    if (payload_bytes_ == 0)
        return;
    const poison_pattern p = poison_for(t);
    switch (p.memset_width)
    {
        case 1:
            WARPSMITH_CU(
                cuMemsetD8Async, payload(), static_cast<unsigned char>(p.memset_value), payload_bytes_, s);
            break;
        case 2:
            WARPSMITH_CU(cuMemsetD16Async,
                         payload(),
                         static_cast<unsigned short>(p.memset_value),
                         payload_bytes_ / 2,
                         s);
            break;
        default:
            WARPSMITH_CU(cuMemsetD32Async, payload(), p.memset_value, payload_bytes_ / 4, s);
            break;
    }
}

void guarded_buffer::copy_from(CUstream s, CUdeviceptr src) const
{
    copy_device(s, payload(), src, payload_bytes_);
}

void copy_device(CUstream s, CUdeviceptr dst, CUdeviceptr src, std::size_t bytes)
{
    if (bytes > 0)
        WARPSMITH_CU(cuMemcpyDtoDAsync, dst, src, bytes, s);
}

}  // namespace warpsmith::worker
