#include "harness/worker/watchdog.hpp"

#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/cuda/handles.hpp"

#include <algorithm>
#include <thread>

namespace warpsmith::worker
{

namespace
{

/// Polls query() (cuStreamQuery or cuEventQuery) as wait_for_stream describes.
template <typename Query>
void poll_until_done(Query query,
                     const char* call,
                     std::chrono::milliseconds timeout,
                     const std::string& what)
{
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto deadline = start + timeout;
    const auto spin_until = start + std::chrono::milliseconds(2);
    auto sleep = std::chrono::microseconds(20);
    for (;;)
    {
        CUresult rc = query();
        if (rc == CUDA_SUCCESS)
            return;
        if (rc != CUDA_ERROR_NOT_READY)
            throw cuda::cuda_error(rc, call);
        const auto now = clock::now();
        if (now >= deadline)
        {
            // The kernel is still running: nothing may now wait on the context (unloading its
            // module would block), so every handle leaks from here until the process exits.
            cuda::mark_context_lost();
            throw kernel_hang(what + ": no completion after " + std::to_string(timeout.count()) +
                              " ms (launch_timeout_ms)");
        }
        if (now < spin_until)
        {
            std::this_thread::yield();
            continue;
        }
        std::this_thread::sleep_for(sleep);
        sleep = std::min<std::chrono::microseconds>(sleep * 2, std::chrono::microseconds(1000));
    }
}

}  // namespace

void wait_for_stream(CUstream s, std::chrono::milliseconds timeout, const std::string& what)
{
    const cuda::driver_api& api = cuda::driver();
    poll_until_done([&] { return api.cuStreamQuery(s); }, "cuStreamQuery", timeout, what);
}

void wait_for_event(CUevent e, std::chrono::milliseconds timeout, const std::string& what)
{
    const cuda::driver_api& api = cuda::driver();
    poll_until_done([&] { return api.cuEventQuery(e); }, "cuEventQuery", timeout, what);
}

}  // namespace warpsmith::worker
