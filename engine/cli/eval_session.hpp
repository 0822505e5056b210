#pragma once

// One GPU evaluation session shared by `warpsmith eval` and `warpsmith run`: a GPU executor
// (one warpsmith-worker), an in-process compile pool, the workload loaded with a hidden seed, and
// kernels compiled for the device's architecture and evaluated one after another. Also the
// result.json document both commands write (docs/cli.md, "result.json").

#include "engine/cli/eval_report.hpp"
#include "engine/executors/compile_pool.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "harness/compile/compile_request.hpp"
#include "harness/core/defaults.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct session_options
{
    int device = 0;
    worker_launch launch;
    std::optional<std::string> arch;  ///< Default: the device's (from hello).
    std::chrono::milliseconds launch_timeout{default_launch_timeout_ms};
    bool use_cache = true;
};

/// One kernel taken through compile and GPU evaluation.
struct kernel_run
{
    std::string name;
    candidate cand;
    compile_output compile;
    gpu_evaluation gpu;  ///< For a compile error: an invalid result, failure compile_error.

    bool valid() const;
};

class eval_session
{
public:
    eval_session(boost::asio::io_context& ioc, session_options opts);
    ~eval_session();

    /// Starts the worker (hello). Throws user_error when there is no GPU or no worker.
    boost::asio::awaitable<void> start();
    /// Loads the workload with this hidden seed (kept for restarts).
    boost::asio::awaitable<boost::json::object> load(const workload& w, std::uint64_t hidden_seed);
    /// Compiles cand for the device and evaluates it (cases empty: all).
    boost::asio::awaitable<kernel_run> run(std::string name,
                                           candidate cand,
                                           timing_options timing,
                                           std::vector<std::string> cases,
                                           bool validate_only);
    boost::asio::awaitable<void> stop();

    const std::string& arch() const;
    const boost::json::object& hello() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// compile_output as JSON without the cubin (its size instead).
boost::json::object compile_summary(const compile_output& c);

/// result.json of eval / run: the candidate, its compile output, its result, the reference's and
/// initial kernel's results, speedups, timing options, hidden seed, device and environment.
boost::json::object result_document(const std::string& command,
                                    const workload& w,
                                    const kernel_run& cand,
                                    const kernel_run* reference,
                                    const kernel_run* initial,
                                    const eval_report& report,
                                    const timing_options& timing,
                                    std::uint64_t hidden_seed,
                                    const boost::json::object& hello);

/// A random 64-bit hidden seed (std::random_device).
std::uint64_t random_hidden_seed();

}  // namespace warpsmith
