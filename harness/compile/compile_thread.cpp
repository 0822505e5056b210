#include "harness/compile/compile_thread.hpp"

namespace warpsmith
{

compile_thread::compile_thread(std::optional<std::filesystem::path> cache_dir)
    : thread_([this, dir = std::move(cache_dir)] { loop(dir); })
{
}

compile_thread::~compile_thread()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    ready_.notify_all();
    thread_.join();
}

sandbox_outcome compile_thread::outcome() const
{
    std::unique_lock lock(mutex_);
    entered_.wait(lock, [&] { return outcome_.has_value(); });
    return *outcome_;
}

void compile_thread::post(std::function<void()> job)
{
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
    }
    ready_.notify_one();
}

void compile_thread::loop(const std::optional<std::filesystem::path>& cache_dir)
{
    const sandbox_outcome entered = enter_compile_sandbox_on_this_thread(cache_dir);
    {
        std::lock_guard lock(mutex_);
        outcome_ = entered;
    }
    entered_.notify_all();
    for (;;)
    {
        std::function<void()> job;
        {
            std::unique_lock lock(mutex_);
            ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
            if (jobs_.empty())
                return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        job();
    }
}

}  // namespace warpsmith
