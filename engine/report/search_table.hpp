#pragma once

// The final table of `warpsmith optimize` (docs/cli.md): the run's outcome from summary.json and
// history.json, the reference, the initial kernel and the five best valid candidates with their
// scores, speedups and confirmation timings, the winner, and the tokens spent.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <string>

namespace warpsmith::report
{

/// The table for summary `s` of the run in `run_path`; `history` is its history.json (null when it
/// could not be read: then only the reference and initial kernel rows).
std::string search_table(const boost::json::object& s,
                         const std::filesystem::path& run_path,
                         const boost::json::value& history);

}  // namespace warpsmith::report
