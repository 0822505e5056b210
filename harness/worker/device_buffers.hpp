#pragma once

// Working buffers with guard regions, and the poison patterns that mark unwritten output
// (SPEC §3 "Validate" 1).
//
// Layout of a guarded buffer (one cuMemAlloc of whole 2 MiB pages):
//
//   base                  payload = base + 4096          payload + bytes
//   | head guard (4096 B)  | payload (the kernel's buffer) | tail guard (>= 4096 B, to the end)   | end
//
// Every allocation of the worker's case store is a whole number of 2 MiB pages (the GPU's large
// page; the driver gives such allocations pages of their own), so no byte a kernel can reach
// without faulting lies outside an allocation the worker knows. The tail guard takes the rest of the
// allocation (up to 2 MiB): no unused byte after a buffer goes unchecked, and a kernel that keeps
// data there between launches is caught by the first checked launch that finds it there.
//
// The payload stays 256-byte aligned (cuMemAlloc aligns base to at least 256), so vectorised
// kernels see the alignment they would get from cudaMalloc. The tail guard starts exactly at the
// payload's last byte + 1 (not at the next aligned address), so writing even one element past the
// end is caught. Guards hold guard_fill; any other byte there after a launch is an out-of-bounds
// write.
//
// Poison: outputs are filled before every run with a pattern no computation produces. For floats
// it is a *signalling* NaN with a 0xA5-ish payload; arithmetic on the GPU only ever produces the
// canonical quiet NaN, so "still poison" (never written) is distinguishable from "wrote NaN".
// Integers get 0xA5 bytes (SPEC §3); an integer reference that itself equals the pattern is
// treated as written, see classify() in comparator_kernels.cpp.
//
// Exact allocations (warpsmith-worker --exact-buffers, set once at start): every payload is its own
// cuMemAlloc of exactly its size, with no guard zones. Guards inside one allocation are invisible to
// compute-sanitizer memcheck (the write stays inside a valid allocation), so `warpsmith eval
// --sanitize` runs the worker this way and leaves out-of-bounds writes to the sanitizer.

#include "harness/cuda/handles.hpp"
#include "harness/workload/dtype.hpp"

#include <cstddef>
#include <cstdint>

namespace warpsmith::worker
{

inline constexpr std::size_t guard_bytes = 4096;
inline constexpr std::size_t payload_alignment = 256;
inline constexpr unsigned char guard_fill = 0xCB;
inline constexpr std::size_t allocation_page = std::size_t(2) << 20;

/// bytes rounded up to whole allocation pages (exactly bytes with exact allocations).
std::size_t whole_pages(std::size_t bytes);

struct poison_pattern
{
    std::uint64_t element_bits;  ///< One element's bit pattern (low size_of(t) bytes).
    unsigned memset_width;       ///< 1, 2 or 4: which cuMemsetD*Async writes it.
    std::uint32_t memset_value;  ///< The value for that memset.
};

/// Switches every guarded_buffer created afterwards to exact allocations (no guards).
void set_exact_allocations(bool exact);
bool exact_allocations();

/// float16 0x7CA5, bfloat16 0x7FA5, float32 0x7FA5A5A5, float64 0x7FF4A5A5'7FF4A5A5 (all
/// signalling NaNs: the quiet bit is clear), integers 0xA5 bytes.
poison_pattern poison_for(dtype t);

class guarded_buffer
{
public:
    guarded_buffer() = default;
    explicit guarded_buffer(std::size_t payload_bytes);

    CUdeviceptr payload() const { return memory_.ptr() + head_bytes_; }
    std::size_t payload_bytes() const { return payload_bytes_; }
    CUdeviceptr base() const { return memory_.ptr(); }
    std::size_t total_bytes() const { return memory_.size(); }
    /// guard_bytes, or 0 with exact allocations.
    std::size_t head_guard_bytes() const { return head_bytes_; }
    CUdeviceptr tail_guard() const { return payload() + payload_bytes_; }
    /// From the payload's end to the end of the allocation (0 bytes with exact allocations).
    std::size_t tail_guard_bytes() const { return tail_bytes_; }

    /// Fills the payload with the poison pattern of t (asynchronous).
    void poison(CUstream s, dtype t) const;
    /// Copies `payload_bytes()` bytes from src into the payload (asynchronous).
    void copy_from(CUstream s, CUdeviceptr src) const;

private:
    cuda::device_buffer memory_;
    std::size_t payload_bytes_ = 0;
    std::size_t head_bytes_ = guard_bytes;
    std::size_t tail_bytes_ = 0;
};

/// Asynchronous device-to-device copy (no-op for zero bytes).
void copy_device(CUstream s, CUdeviceptr dst, CUdeviceptr src, std::size_t bytes);

}  // namespace warpsmith::worker
