#pragma once

// One GPU, one worker process, strictly serial use (SPEC §1 "GPU isolation"): load the workload,
// validate and time candidates one after another, restart the worker after a fault, hang or crash
// and re-send the workload, and account for busy time. Nothing else is sent to the worker while it
// times a candidate.
//
// Threading: all member functions must be called from the io_context thread; requests queue in
// FIFO order inside (an async mutex / channel), so several branches may await evaluate() at once.

#include "engine/executors/worker_launch.hpp"
#include "harness/core/defaults.hpp"
#include "harness/protocol/baseline_result.hpp"
#include "harness/protocol/evaluation_result.hpp"
#include "harness/protocol/interleaved_result.hpp"
#include "harness/protocol/timing_options.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

/// The evaluate request's "timing" (docs/worker-protocol.md): one type for both ends.
using protocol::timing_mode;
using protocol::timing_options;

struct gpu_executor_options
{
    std::chrono::milliseconds launch_timeout{
        default_launch_timeout_ms};                      ///< Per launch, enforced by the worker.
    std::chrono::milliseconds request_deadline{600000};  ///< Backstop per request (worker killed).
    std::chrono::milliseconds start_deadline{120000};
    int max_restarts = 1000;  ///< Then the executor gives up (throws).
};

/// What the engine asks the GPU to do with one compiled candidate.
struct evaluate_request
{
    std::string name;          ///< Candidate id ("c0007", "reference").
    candidate cand;            ///< Launch plan, overrides, defines, entry.
    std::string cubin;         ///< Compiled binary (from the compile pool).
    bool local_memory = true;  ///< compile_output::local_memory of that compile.
    timing_options timing;
    bool validate_only = false;
    std::vector<std::string> cases;  ///< Empty: all cases.
    /// The reference or the initial kernel, timed by the search engine before the search: what the
    /// session's speedups are measured against, so a backend never answers it from measurements of
    /// earlier sessions (engine/search/cached_backend.hpp). The worker does not see it.
    bool session_baseline = false;
    /// Under Nsight Compute only (docs/nsight.md): the case whose repeat validation run is the
    /// profiled launch (protocol field "profile_case"). Requires validate_only in practice.
    std::optional<std::string> profile_case;
};

struct gpu_evaluation
{
    protocol::evaluation_result result;  ///< The worker's evaluation result (protocol doc).
    bool worker_restarted = false;       ///< A fault/hang/crash restarted the worker.
    std::string restart_reason;          ///< "fault", "hang", "worker_crash".
    double restart_ms = 0;               ///< Time to restart and reload after it.
    double queued_ms = 0;                ///< Waiting for the GPU.
    double busy_ms = 0;                  ///< Worker time on this request.
    int device = 0;
};

/// A vendor baseline to time (worker protocol op `baseline`; SPEC §6).
struct baseline_request
{
    std::string name;           ///< The workload's declaration ("cublas").
    std::string kind;           ///< "cublas_sgemm".
    std::string math = "fp32";  ///< "fp32" or "tf32".
    timing_options timing;
    std::vector<std::string> cases;  ///< Empty: all cases (the performance ones are timed).
};

/// What became of a baseline request. A baseline that cannot be timed is a value, never a failure
/// of the run: the search goes on without it.
struct baseline_outcome
{
    /// The worker's answer when it timed the baseline; none otherwise.
    std::optional<protocol::baseline_result> baseline;
    std::string error_kind;         ///< Otherwise why: "no_baseline" (no cuBLAS, unknown kind,
                                    ///< nothing declared), "internal", "worker_crash", "hang", ...
    std::string message;            ///< One line.
    double busy_ms = 0;             ///< Worker time on this request.
    bool worker_restarted = false;  ///< The worker died or lost its context and was restarted.

    bool available() const { return baseline.has_value(); }
};

/// The protocol's candidate object of a request (evaluate, time_interleaved): a cubin when the
/// compile pool made one, else the source and options for the worker to compile itself.
boost::json::object candidate_json(const evaluate_request& req);
/// The protocol's evaluate message for a request (op, name, candidate, timing, cases, ...), without
/// an id. A cubin from the compile pool replaces the source (the worker loads it as is).
boost::json::object evaluate_message(const evaluate_request& req);
/// The protocol's load_workload message.
boost::json::object load_workload_message(const boost::json::value& workload,
                                          std::uint64_t hidden_seed,
                                          std::chrono::milliseconds launch_timeout);

class gpu_executor
{
public:
    gpu_executor(boost::asio::io_context& ioc, worker_launch launch, int device, gpu_executor_options opts);
    ~gpu_executor();

    /// Starts the worker (hello). Throws user_error when no GPU / no worker.
    boost::asio::awaitable<boost::json::object> start();
    /// Loads the workload (kept for restarts). Returns the worker's load response; a reference that
    /// fails throws user_error with the worker's message.
    boost::asio::awaitable<boost::json::object> load(const workload& w, std::uint64_t hidden_seed);
    /// Validates and times one candidate; a fault, hang or crash becomes an invalid result (never an
    /// exception) and the worker is restarted and reloaded before this returns. A worker that exits
    /// without answering (a dropped ssh connection, a cancelled Slurm step) is restarted and given
    /// the candidate once more; only a second death makes it invalid (worker_crash). A request the
    /// worker refuses (ok: false) is an invalid result with failure.kind "worker_error". Throws
    /// system_error(errc::cancelled) when stop() was called while it waited, user_error when
    /// a restart cannot start or reload a worker. Completes on the io_context; requests are served
    /// in FIFO order, one at a time (docs/executors.md).
    boost::asio::awaitable<gpu_evaluation> evaluate(evaluate_request req);
    /// Final confirmation (protocol op time_interleaved). entries: key -> (candidate, cubin); the
    /// timing options of the first entry apply. Returns the typed answer (timings per key and case,
    /// invalid entries). A worker that dies during it is restarted, then this throws; so does an
    /// answer that does not have the protocol's shape (naming the field).
    boost::asio::awaitable<protocol::interleaved_result> time_interleaved(
        std::vector<std::pair<std::string, evaluate_request>> entries, int rounds);
    boost::asio::awaitable<boost::json::object> device_info(bool measure);
    /// Times a vendor baseline on this GPU's resident cases (protocol op baseline). Never throws
    /// for what the worker reports (ok: false, a crash, a hang: the worker is restarted); throws
    /// like evaluate() when the executor stops or a restart fails.
    boost::asio::awaitable<baseline_outcome> baseline(baseline_request req);
    /// Runs `body` while holding this GPU, in FIFO order with the requests above: nothing this
    /// executor serves runs on the GPU until it completes, and it waits for what runs now. A
    /// profile under Nsight Compute (a second process on the same GPU, which serialises and slows
    /// kernels) runs this way so that it never overlaps a timing. The time counts as busy.
    /// Throws like evaluate() when stop() was called while it waited; exceptions of body propagate.
    boost::asio::awaitable<void> exclusive(std::function<boost::asio::awaitable<void>()> body);
    /// Fails the queued requests (errc::cancelled), lets the running one finish, stops the worker.
    boost::asio::awaitable<void> stop();

    int device() const;
    const boost::json::object& hello() const;  ///< Device info and versions from hello.
    int queued() const;                        ///< Requests waiting.
    bool busy() const;                         ///< A request is running on the worker.
    double busy_seconds() const;               ///< Total worker time on requests so far.
    int restarts() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace warpsmith
