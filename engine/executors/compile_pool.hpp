#pragma once

// Compiles candidates on CPU workers (SPEC §1 "Compile pool"). NVRTC serializes compiles inside a
// process on the H200 host, so the default mode drives N persistent `warpsmith-worker --compile`
// processes; the in-process mode (N threads sharing one nvrtc_compiler) serves small machines and
// tests. Both share the on-disk compile cache, so a hit costs ~0.
//
// Threading: compile() is called from the io_context thread and completes there; at most N
// compiles run at once, the rest wait in FIFO order.
//
// Compile workers run where the secrets are not (docs/hardening.md, "Model code reads no host
// file"): each starts with an environment without credentials, in an empty temporary directory that
// the pool removes when it is destroyed, and sandboxes itself with Landlock before its first compile.
// Every compile output is redacted of registered secrets before compile() returns it.

#include "engine/executors/worker_launch.hpp"
#include "harness/compile/compile_limits.hpp"
#include "harness/compile/compile_request.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct compile_pool_options
{
    int workers = 0;                       ///< 0: number of hardware threads.
    bool in_process = false;               ///< Threads + one nvrtc_compiler instead of processes.
    std::optional<std::string> cache_dir;  ///< Default: compile_cache::default_dir().
    bool use_cache = true;
    std::chrono::milliseconds compile_deadline{300000};  ///< Per compile (process mode): then killed.
    std::chrono::milliseconds start_deadline{60000};     ///< Compile worker start + hello.
    /// Process mode: each compile worker's memory limit in MiB (warpsmith-worker
    /// --memory-limit-mib); 0 for none. A compile that needs more fails, with the limit named.
    std::uint64_t memory_limit_mib = default_compile_memory_mib;
    /// Process mode: further variables kept from compile workers, beyond every credential-named one
    /// and every variable holding a registered secret (harness/compile/compile_sandbox.hpp).
    std::vector<std::string> secret_env_names;
};

class compile_pool
{
public:
    compile_pool(boost::asio::io_context& ioc, worker_launch launch, compile_pool_options opts);
    ~compile_pool();

    /// Compiles one request. A kernel that does not compile is a value (compiled == false); a dead
    /// compile worker is restarted and the request retried once (a second death, or a compile past
    /// compile_deadline, is compiled == false with the reason). Throws user_error when the compile
    /// worker cannot be started; system_error(errc::nvrtc_failure) when NVRTC itself fails
    /// (in-process mode). Completes on the io_context's executor. Cancellation: terminal (process
    /// mode: the compile worker is killed and replaced on next use).
    boost::asio::awaitable<compile_output> compile(compile_request request);
    boost::asio::awaitable<void> stop();

    int workers() const;
    int in_flight() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace warpsmith
