#include "harness/worker/local_window.hpp"

#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"

#include <atomic>

namespace warpsmith::worker
{

namespace
{

// One per process, as the context's local allocation is (one context per worker).
std::atomic<std::size_t> high_water{0};

}  // namespace

void note_local_frame(std::size_t bytes)
{
    std::size_t seen = high_water.load();
    while (bytes > seen && !high_water.compare_exchange_weak(seen, bytes))
    {
    }
}

std::size_t local_frame_high_water()
{
    return high_water.load();
}

std::size_t limit_dynamic_stack()
{
    // A driver that refuses 0 keeps its own limit, which is then what the wipe must cover.
    (void)cuda::driver().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 0);
    std::size_t limit = 0;
    WARPSMITH_CU(cuCtxGetLimit, &limit, CU_LIMIT_STACK_SIZE);
    note_local_frame(limit);
    return limit;
}

}  // namespace warpsmith::worker
