#pragma once

// A thread that compiles inside the compile sandbox, for processes that must keep their own file
// access: the GPU worker (which opens the driver's devices and writes nothing of a kernel's choosing,
// but compiles the reference, candidates sent as source and `compile` requests) and `tune
// --offline` in the CLI, which holds the key. Landlock binds a thread, so one thread enters the
// sandbox (enter_compile_sandbox_on_this_thread) when it starts and runs every compile handed to it,
// one at a time; the caller waits for each. docs/hardening.md, "Model code reads no host file".

#include "harness/compile/compile_sandbox.hpp"

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

namespace warpsmith
{

class compile_thread
{
public:
    /// Starts the thread, which enters the sandbox with `cache_dir` (read and write) before its first
    /// job.
    explicit compile_thread(std::optional<std::filesystem::path> cache_dir);
    /// Runs the jobs already handed over, then ends the thread.
    ~compile_thread();
    compile_thread(const compile_thread&) = delete;
    compile_thread& operator=(const compile_thread&) = delete;

    /// How entering the sandbox went (waits for the thread to have tried).
    sandbox_outcome outcome() const;
    /// True on the compile thread itself.
    bool on_this_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

    /// Runs job on the thread and returns its result (or rethrows its exception). Called from the
    /// thread itself, runs it in place.
    template <class F>
    std::invoke_result_t<F> run(F&& job)
    {
        if (on_this_thread())
            return job();
        std::packaged_task<std::invoke_result_t<F>()> task(std::forward<F>(job));
        auto result = task.get_future();
        post([&task] { task(); });
        return result.get();
    }

private:
    void post(std::function<void()> job);
    void loop(const std::optional<std::filesystem::path>& cache_dir);

    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> jobs_;
    bool stopping_ = false;
    std::optional<sandbox_outcome> outcome_;
    mutable std::condition_variable entered_;
    std::thread thread_;
};

}  // namespace warpsmith
