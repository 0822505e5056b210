#pragma once

// best.cu / best.json (docs/run-directory.md): the winner chosen from the confirmation and the
// search (choose_winner, confirmation.hpp), written to the run directory, and the winner part of
// summary.json. Reads the engine's state through best_kernel_state; writes nothing else.

#include "engine/run/candidate_record.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/search/confirmation.hpp"
#include "engine/search/search_summary.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

/// What the winner is chosen from, borrowed from the engine for the call.
struct best_kernel_state
{
    const run_directory& run;
    const workload& work;
    const std::deque<candidate_record>& records;  ///< Proposal order.
    const std::map<std::string, std::size_t, std::less<>>& by_id;
    std::optional<std::size_t> best;  ///< The search's best, an index into records.
    const std::vector<kernel_baseline>& reference;
    const std::vector<kernel_baseline>& initial;
    bool initial_invalidated = false;                 ///< The confirmation found the initial kernel invalid.
    const confirmation_decision* decision = nullptr;  ///< The last confirmation attempt's.
    bool no_candidate_survived = false;
    const boost::json::object& confirmation;  ///< summary.json "confirmation" ("skipped" read).
};

struct best_kernel
{
    boost::json::value json = nullptr;  ///< summary.json "best"; null without a winner.
    std::optional<std::string> winner;  ///< A candidate id, "initial", or none.
    std::string note;                   ///< summary.json "best_note"; "" when none.
};

/// Chooses the winner and writes best.cu and best.json (removes both without a winner, so a
/// resumed run does not keep a stale best). A write that fails is logged; the result stands.
best_kernel write_best(const best_kernel_state& s);

}  // namespace warpsmith
