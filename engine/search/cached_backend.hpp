#pragma once

// The evaluation cache of `warpsmith tune` in front of the GPUs (docs/autotune.md, "Evaluation
// cache"): an evaluation_backend that answers evaluations of candidates from the autotune
// evaluation cache (agents/autotune/evaluation_cache.hpp, one cache per GPU's device) and forwards
// everything else, and every miss, to an inner backend. What a miss measures is stored when the
// cache's rules say it describes the candidate (autotune::cacheable_result: valid results and
// deterministic failures; not a crashed or restarted worker, not an inconsistent timing).
//
// Never answered from the cache: the session's own baselines (evaluate_request::session_baseline:
// the reference and the initial kernel, what this session's speedups are measured against),
// validation-only requests, requests for some cases only, the final confirmation
// (time_interleaved) and vendor baselines.

#include "agents/autotune/evaluation_cache.hpp"
#include "engine/search/evaluation_backend.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

class cached_backend final : public evaluation_backend
{
public:
    /// inner: the backend that measures misses. dir: the cache directory (nullopt: no cache, every
    /// request is forwarded). run: the run name stored with each entry as its provenance. timing:
    /// the timing options, part of every cache key.
    cached_backend(evaluation_backend& inner,
                   std::optional<std::filesystem::path> dir,
                   std::string run,
                   boost::json::object timing);

    boost::asio::awaitable<void> start(const workload& w, std::uint64_t hidden_seed) override;
    boost::asio::awaitable<compile_output> compile(compile_request request) override;
    boost::asio::awaitable<gpu_evaluation> evaluate(int gpu, evaluate_request request) override;
    boost::asio::awaitable<protocol::interleaved_result> time_interleaved(
        int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds) override;
    boost::asio::awaitable<baseline_outcome> baseline(int gpu, baseline_request request) override;
    /// Profiles are never cached: they go to the backend behind.
    boost::asio::awaitable<profile_outcome> profile(int gpu,
                                                    profiler_options options,
                                                    profile_job job) override;
    boost::asio::awaitable<void> stop() override;

    int gpu_count() const override { return inner_.gpu_count(); }
    const boost::json::object& device_info(int gpu) const override { return inner_.device_info(gpu); }
    gpu_status status(int gpu) const override { return inner_.status(gpu); }
    int compiles_in_flight() const override { return inner_.compiles_in_flight(); }

    /// The summary's "eval_cache": {"enabled", "files", "hits", "misses", "stored"}.
    boost::json::object stats() const;
    /// The cache of GPU gpu's device; null without a cache (or before start).
    autotune::evaluation_cache* cache_of(int gpu) const
    {
        return gpu >= 0 && gpu < static_cast<int>(caches_.size())
                   ? caches_[static_cast<std::size_t>(gpu)].get()
                   : nullptr;
    }

private:
    evaluation_backend& inner_;
    std::optional<std::filesystem::path> dir_;
    std::string run_;
    boost::json::object timing_;
    std::vector<std::unique_ptr<autotune::evaluation_cache>> caches_;  ///< One per GPU.
    int hits_ = 0, misses_ = 0, stores_ = 0;
};

}  // namespace warpsmith
