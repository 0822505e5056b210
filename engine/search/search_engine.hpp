#pragma once

// The search loop (SPEC §4; docs/engine.md): branches propose candidates through a strategy, every
// proposal flows propose -> compile -> validate + time as soon as it can, results are journaled
// and fed back, budgets and Ctrl-C stop the run, the best few are confirmed interleaved, and the
// run directory is finalized. The decisions live in search_scheduler (sans-I/O); this is the
// coroutine shell that performs them.
//
// Threading: construct, run() and request_stop() on one io_context thread. run() completes on it.

#include "agents/strategy.hpp"
#include "engine/run/journal.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/run/run_replay.hpp"
#include "engine/search/budget.hpp"
#include "engine/search/clock.hpp"
#include "engine/search/evaluation_backend.hpp"
#include "engine/search/progress.hpp"
#include "engine/search/search_options.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

struct search_result
{
    std::string status;                 ///< "finished", "interrupted" or "failed".
    std::string stop_reason;            ///< max_iterations, max_candidates, max_wall_time, max_tokens,
                                        ///< max_cost, exhausted, strategy_failures, interrupted, error.
    std::optional<std::string> winner;  ///< Candidate id or "initial"; none without a valid kernel.
    int exit_code = 0;                  ///< 0, 130 (interrupted) or 1 (failed).
    std::string error;                  ///< One line when failed.
    boost::json::object summary;        ///< summary.json.
};

class search_engine
{
public:
    /// run_info is the caller's part of run.json (command line, config, tool version, earlier
    /// sessions); the engine adds the devices and this session's start, end and status.
    search_engine(boost::asio::io_context& ioc,
                  evaluation_backend& backend,
                  strategy& strat,
                  clock_source& clock,
                  const workload& w,
                  search_options opts,
                  const run_directory& run,
                  journal_writer& journal,
                  boost::json::object run_info,
                  progress_sink* progress = nullptr);
    ~search_engine();
    search_engine(const search_engine&) = delete;
    search_engine& operator=(const search_engine&) = delete;

    /// Starts the backend, evaluates the reference and the initial kernel on every GPU, continues
    /// from `resume` when given (pending candidates are evaluated first, strategies restored),
    /// searches until a budget, exhaustion or a stop, confirms and finalizes the run directory.
    /// A user_error from the backend's start (no GPU, a broken reference) propagates; any later
    /// failure is a "failed" result with the journal intact. Does not stop the backend.
    boost::asio::awaitable<search_result> run(std::optional<replayed_run> resume = std::nullopt);

    /// Stops proposing (see search_scheduler::stop). interrupt: Ctrl-C semantics (also cancels work
    /// that has not reached a GPU; no confirmation). Safe to call at any time on the io_context.
    void request_stop(const std::string& reason, bool interrupt);

    /// The candidates recorded so far, in evaluation order.
    const std::vector<evaluated_candidate>& history() const;
    progress_snapshot snapshot() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace warpsmith
