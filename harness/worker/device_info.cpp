#include "harness/worker/device_info.hpp"

#include "harness/cuda/handles.hpp"
#include "harness/worker/timer.hpp"
#include "harness/worker/watchdog.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <vector>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

constexpr int k_copy_runs = 10;
constexpr int k_cold_copy_runs = 21;
constexpr std::size_t k_cold_copy_smallest = std::size_t{1} << 20;  // each way
constexpr std::size_t k_cold_copy_largest = std::size_t{1} << 29;   // each way
constexpr int k_fma_runs = 5;
constexpr int k_fma_iterations = 4096;
constexpr int k_fma_blocks_per_sm = 8;

json::value optional_int(const std::optional<int>& v)
{
    return v ? json::value(*v) : json::value(nullptr);
}

json::array triple(const std::array<int, 3>& a)
{
    return json::array{a[0], a[1], a[2]};
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times `runs` executions of enqueue (after one untimed warm-up), each between its own events,
// with prepare (when given) queued before each of them, outside the events.
template <class F, class P = void (*)()>
std::vector<double> time_runs(
    CUstream s, int runs, std::chrono::milliseconds timeout, F&& enqueue, P prepare = [] {})
{
    prepare();
    enqueue();
    wait_for_stream(s, timeout, "device measurement warm-up");
    std::vector<std::pair<cuda::event, cuda::event>> events;
    for (int i = 0; i < runs; ++i)
    {
        prepare();
        auto& [start, stop] = events.emplace_back(cuda::event(), cuda::event());
        start.record(s);
        enqueue();
        stop.record(s);
    }
    wait_for_stream(s, timeout, "device measurement");
    std::vector<double> ms;
    ms.reserve(events.size());
    for (const auto& [start, stop] : events)
        ms.push_back(cuda::event::elapsed_ms(start, stop));
    return ms;
}

}  // namespace

json::object device_info_json(const gpu_device& device)
{
    const device_limits& l = device.limits();
    const cuda::clock_reading clocks = device.clocks();
    return json::object{
        {"name", device.name()},
        {"index", device.ordinal()},
        {"arch", device.arch()},
        {"compute_capability", json::array{l.cc_major, l.cc_minor}},
        {"sm_count", l.sm_count},
        {"total_memory_bytes", device.total_memory()},
        {"free_memory_bytes", device.free_memory()},
        {"l2_bytes", l.l2_bytes},
        {"shared_memory_per_block_bytes", l.shared_per_block},
        {"shared_memory_per_block_optin_bytes", l.shared_per_block_optin},
        {"shared_memory_per_sm_bytes", l.shared_per_sm},
        {"registers_per_block", l.registers_per_block},
        {"registers_per_sm", l.registers_per_sm},
        {"max_threads_per_block", l.max_threads_per_block},
        {"max_threads_per_sm", l.max_threads_per_sm},
        {"warp_size", l.warp_size},
        {"max_grid", triple(l.max_grid)},
        {"max_block", triple(l.max_block)},
        {"clock_mhz", l.clock_khz / 1000},
        {"memory_clock_mhz", l.memory_clock_khz / 1000},
        {"memory_bus_bits", l.memory_bus_bits},
        {"driver_version", device.driver_version()},
        {"uuid", device.uuid()},
        {"pci_bus_id", device.pci_bus_id()},
        {"clocks",
         json::object{{"sm_mhz", optional_int(clocks.sm_mhz)}, {"mem_mhz", optional_int(clocks.mem_mhz)}}}};
}

json::object measure_device(gpu_device& device,
                            const helper_kernels& helpers,
                            std::chrono::milliseconds timeout)
{
    const auto t0 = std::chrono::steady_clock::now();
    const CUstream s = device.stream();

    // Copy bandwidth: 1 GiB each way when memory allows (about 17x the H200's L2), never more than
    // an eighth of the free memory, so a loaded workload is never pushed out.
    const std::size_t bytes = std::max<std::size_t>(
        std::min<std::size_t>(std::size_t{1} << 30, device.free_memory() / 8) / 256 * 256, 1 << 20);
    double copy_gbps = 0;
    {
        cuda::device_buffer src(bytes), dst(bytes);
        WARPSMITH_CU(cuMemsetD32Async, src.ptr(), 0x3F800000u, bytes / 4, s);
        const std::vector<double> ms =
            time_runs(s,
                      k_copy_runs,
                      timeout,
                      [&] { WARPSMITH_CU(cuMemcpyDtoDAsync, dst.ptr(), src.ptr(), bytes, s); });
        copy_gbps = 2.0 * static_cast<double>(bytes) / (median(ms) * 1e-3) / 1e9;
    }

    // Cold copies by size: what a kernel that reads and writes that many bytes can reach under the
    // timer's cold mode. Each copy's destination is poisoned and the L2 overwritten before it,
    // outside its events, as before a measured launch. Below about 64 MiB a copy reaches only
    // 70-85% of the figure above (run X, docs/performance.md): the start of the launch and the
    // write-back of the scrub's dirty lines weigh on a short copy.
    json::array cold_copy;
    {
        const std::size_t largest = std::min(k_cold_copy_largest, device.free_memory() / 8) / 256 * 256;
        if (largest >= k_cold_copy_smallest)
        {
            cuda::device_buffer src(largest), dst(largest);
            WARPSMITH_CU(cuMemsetD32Async, src.ptr(), 0x3F800000u, largest / 4, s);
            l2_scrubber scrubber(device.limits().l2_bytes);
            std::uint32_t poison = 0;
            for (std::size_t each = k_cold_copy_smallest; each <= largest; each *= 2)
            {
                const std::vector<double> ms = time_runs(
                    s,
                    k_cold_copy_runs,
                    timeout,
                    [&] { WARPSMITH_CU(cuMemcpyDtoDAsync, dst.ptr(), src.ptr(), each, s); },
                    [&]
                    {
                        WARPSMITH_CU(cuMemsetD32Async, dst.ptr(), ++poison, each / 4, s);
                        scrubber.scrub(s);
                    });
                cold_copy.push_back(
                    json::object{{"bytes", 2 * each},
                                 {"gbps", 2.0 * static_cast<double>(each) / (median(ms) * 1e-3) / 1e9}});
            }
        }
    }

    // FP32 FMA rate.
    const int blocks = device.limits().sm_count * k_fma_blocks_per_sm;
    double flops = 0;
    double tflops = 0;
    {
        cuda::device_buffer out(static_cast<std::size_t>(blocks) * 256 * sizeof(float));
        const std::vector<double> ms =
            time_runs(s,
                      k_fma_runs,
                      timeout,
                      [&] { flops = helpers.fp32_fma(s, blocks, k_fma_iterations, out.ptr()); });
        tflops = flops / (median(ms) * 1e-3) / 1e12;
    }

    return json::object{
        {"copy_bandwidth_gbps", copy_gbps},
        {"fp32_tflops", tflops},
        {"copy_bytes", bytes},
        {"cold_copy", std::move(cold_copy)},
        {"fp32_flops_per_launch", flops},
        {"measure_ms",
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()}};
}

}  // namespace warpsmith::worker
