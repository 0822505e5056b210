#include "engine/search/cached_backend.hpp"

#include "harness/core/log.hpp"

#include <set>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;

cached_backend::cached_backend(evaluation_backend& inner,
                               std::optional<fs::path> dir,
                               std::string run,
                               json::object timing)
    : inner_(inner), dir_(std::move(dir)), run_(std::move(run)), timing_(std::move(timing))
{
}

asio::awaitable<void> cached_backend::start(const workload& w, std::uint64_t hidden_seed)
{
    co_await inner_.start(w, hidden_seed);
    caches_.clear();
    if (dir_)
        for (int g = 0; g < inner_.gpu_count(); ++g)
            caches_.push_back(
                std::make_unique<autotune::evaluation_cache>(w, inner_.device_info(g), timing_, *dir_));
}

asio::awaitable<compile_output> cached_backend::compile(compile_request request)
{
    co_return co_await inner_.compile(std::move(request));
}

asio::awaitable<gpu_evaluation> cached_backend::evaluate(int gpu, evaluate_request request)
{
    const bool cacheable_request = gpu >= 0 && gpu < static_cast<int>(caches_.size()) &&
                                   !request.session_baseline && !request.validate_only &&
                                   request.cases.empty();
    if (!cacheable_request)
        co_return co_await inner_.evaluate(gpu, std::move(request));
    auto& cache = *caches_[static_cast<std::size_t>(gpu)];
    const auto key = cache.key(request.cand);
    if (auto hit = cache.lookup(key))
    {
        ++hits_;
        gpu_evaluation ev;
        ev.result = hit->result;
        ev.result.eval_cache = protocol::cache_hit{hit->run, hit->candidate, hit->time, key};
        ev.device = gpu;
        co_return ev;
    }
    ++misses_;
    const candidate cand = request.cand;
    const std::string name = request.name;
    auto ev = co_await inner_.evaluate(gpu, std::move(request));
    if (!ev.worker_restarted && autotune::cacheable_result(ev.result))
    {
        try
        {
            cache.store(autotune::make_cache_entry(key, cand, ev.result, name, run_));
            ++stores_;
        }
        catch (const std::exception& e)
        {
            log_warn(std::string("evaluation cache: ") + e.what());
        }
    }
    co_return ev;
}

asio::awaitable<protocol::interleaved_result> cached_backend::time_interleaved(
    int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds)
{
    co_return co_await inner_.time_interleaved(gpu, std::move(entries), rounds);
}

asio::awaitable<baseline_outcome> cached_backend::baseline(int gpu, baseline_request request)
{
    co_return co_await inner_.baseline(gpu, std::move(request));
}

asio::awaitable<profile_outcome> cached_backend::profile(int gpu, profiler_options options, profile_job job)
{
    co_return co_await inner_.profile(gpu, std::move(options), std::move(job));
}

asio::awaitable<void> cached_backend::stop()
{
    co_await inner_.stop();
}

json::object cached_backend::stats() const
{
    json::array files;
    std::set<std::string> seen;
    for (const auto& c : caches_)
        if (seen.insert(c->file().string()).second)
            files.push_back(json::value(c->file().string()));
    return json::object{{"enabled", dir_.has_value()},
                        {"files", std::move(files)},
                        {"hits", hits_},
                        {"misses", misses_},
                        {"stored", stores_}};
}

}  // namespace warpsmith
