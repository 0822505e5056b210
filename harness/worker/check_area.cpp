#include "harness/worker/check_area.hpp"

#include "harness/worker/watchdog.hpp"

#include <stdexcept>

namespace warpsmith::worker
{

check_area::check_area(std::size_t buffers, int slots)
    : buffers_(buffers == 0 ? 1 : buffers),
      slots_(slots),
      slot_words_(buffers_ * (3 + compare_counter_words)),
      device_(slot_words_ * static_cast<std::size_t>(slots) * sizeof(std::uint64_t)),
      host_(slot_words_ * static_cast<std::size_t>(slots) * sizeof(std::uint64_t)),
      index_(sizeof(std::uint64_t)),
      index_host_(sizeof(std::uint64_t))
{
}

CUdeviceptr check_area::guard_counter(int slot, std::size_t b, int side) const
{
    return device_.ptr() + word(slot, 2 * b + static_cast<std::size_t>(side)) * sizeof(std::uint64_t);
}

CUdeviceptr check_area::input_diff(int slot, std::size_t b) const
{
    return device_.ptr() + word(slot, 2 * buffers_ + b) * sizeof(std::uint64_t);
}

CUdeviceptr check_area::compare(int slot, std::size_t b) const
{
    return device_.ptr() + word(slot, 3 * buffers_ + compare_counter_words * b) * sizeof(std::uint64_t);
}

void check_area::require_slots(int first, int count) const
{
    if (first < 0 || first + count > slots_)
        throw std::logic_error("check_area: no slots " + std::to_string(first) + " to " +
                               std::to_string(first + count - 1));
}

void check_area::clear(int first, int count, CUstream s) const
{
    if (count <= 0)
        return;
    require_slots(first, count);
    WARPSMITH_CU(cuMemsetD32Async,
                 device_.ptr() + word(first, 0) * sizeof(std::uint64_t),
                 0u,
                 slot_words_ * 2 * static_cast<std::size_t>(count),
                 s);
}

void check_area::fetch(int first, int count, CUstream s) const
{
    if (count <= 0)
        return;
    require_slots(first, count);
    const std::size_t offset = word(first, 0) * sizeof(std::uint64_t);
    WARPSMITH_CU(cuMemcpyDtoHAsync,
                 static_cast<char*>(host_.data()) + offset,
                 device_.ptr() + offset,
                 slot_words_ * sizeof(std::uint64_t) * static_cast<std::size_t>(count),
                 s);
}

std::uint64_t check_area::host_guard(int slot, std::size_t b, int side) const
{
    return host_.as<std::uint64_t>()[word(slot, 2 * b + static_cast<std::size_t>(side))];
}

std::uint64_t check_area::host_input_diff(int slot, std::size_t b) const
{
    return host_.as<std::uint64_t>()[word(slot, 2 * buffers_ + b)];
}

compare_counters check_area::host_compare(int slot, std::size_t b) const
{
    const std::uint64_t* w = host_.as<std::uint64_t>() + word(slot, 3 * buffers_ + compare_counter_words * b);
    return {w[0], w[1], w[2], w[3], w[4]};
}

std::optional<std::uint64_t> check_area::find_index(CUstream s,
                                                    std::chrono::milliseconds timeout,
                                                    const std::function<void(CUdeviceptr)>& enqueue) const
{
    WARPSMITH_CU(cuMemsetD32Async, index_.ptr(), 0xFFFFFFFFu, 2, s);
    enqueue(index_.ptr());
    WARPSMITH_CU(cuMemcpyDtoHAsync, index_host_.data(), index_.ptr(), sizeof(std::uint64_t), s);
    wait_for_stream(s, timeout, "index search");
    const std::uint64_t value = *index_host_.as<std::uint64_t>();
    if (value == ~std::uint64_t{0})
        return std::nullopt;
    return value;
}

}  // namespace warpsmith::worker
