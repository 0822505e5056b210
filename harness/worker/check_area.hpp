#pragma once

// Device memory where the check kernels of one run leave their counters, and its page-locked
// mirror on the host. A run queues all its checks (guards, inputs, every output) behind the kernel
// on the worker's stream, then one copy brings every counter back: one round trip per run, however
// many buffers the signature has.
//
// A slot holds, for buffers b = 0..B-1 of a case (B = the workload's buffer parameter count):
//   words [2b], [2b+1]      guard bytes changed before / after buffer b
//   word  [2B + b]          bytes of input buffer b that differ from the pristine copy
//   words [3B + 5b, +5)     compare_counters of output buffer b
// Several slots exist because a timed run keeps the counters of two launches (a random one and
// the last) until the end of the measured loop.

#include "harness/cuda/handles.hpp"
#include "harness/worker/comparator_kernels.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace warpsmith::worker
{

class check_area
{
public:
    check_area(std::size_t buffers, int slots);

    CUdeviceptr guard_counter(int slot, std::size_t b, int side) const;
    CUdeviceptr input_diff(int slot, std::size_t b) const;
    CUdeviceptr compare(int slot, std::size_t b) const;

    /// Zeroes a slot (asynchronous).
    void clear(int slot, CUstream s) const { clear(slot, 1, s); }
    /// Zeroes `count` consecutive slots from `first` in one memset (asynchronous).
    void clear(int first, int count, CUstream s) const;
    /// Copies a slot to the host mirror (asynchronous; read it after the stream is waited on).
    void fetch(int slot, CUstream s) const { fetch(slot, 1, s); }
    /// Copies `count` consecutive slots from `first` in one copy (asynchronous).
    void fetch(int first, int count, CUstream s) const;

    std::uint64_t host_guard(int slot, std::size_t b, int side) const;
    std::uint64_t host_input_diff(int slot, std::size_t b) const;
    compare_counters host_compare(int slot, std::size_t b) const;

    /// Runs one index search: sets the index word to ~0, lets enqueue launch a kernel that
    /// atomicMin's into the given device word, waits (polling, with timeout) and returns the index,
    /// or nullopt when the kernel found nothing.
    std::optional<std::uint64_t> find_index(CUstream s,
                                            std::chrono::milliseconds timeout,
                                            const std::function<void(CUdeviceptr)>& enqueue) const;

    std::size_t device_bytes() const { return device_.size() + index_.size(); }

private:
    /// Throws std::logic_error unless [first, first + count) are slots of this area.
    void require_slots(int first, int count) const;
    std::size_t word(int slot, std::size_t w) const
    {
        return static_cast<std::size_t>(slot) * slot_words_ + w;
    }

    std::size_t buffers_;
    int slots_;
    std::size_t slot_words_;
    cuda::device_buffer device_;
    cuda::pinned_buffer host_;
    cuda::device_buffer index_;
    cuda::pinned_buffer index_host_;
};

}  // namespace warpsmith::worker
