#pragma once

// Best score against evaluations (docs/autotune.md, "tune_curve.json"): how fast a strategy finds
// good points, the figure strategies are compared by.

#include <boost/json/object.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::autotune
{

class tune_curve
{
public:
    struct step
    {
        std::size_t n = 0;    ///< 1-based evaluation index.
        std::string id;       ///< Candidate id (or the point, offline).
        double score_us = 0;  ///< +inf: invalid.
        double best_us = 0;   ///< Best finite score so far; +inf before the first valid one.
    };

    /// Appends an evaluation (+inf or a non-positive score: invalid).
    void add(std::string id, double score_us);

    const std::vector<step>& steps() const { return steps_; }
    std::size_t size() const { return steps_.size(); }
    std::optional<double> best() const;
    /// Best score after the first n evaluations.
    std::optional<double> best_after(std::size_t n) const;
    /// The evaluation index at which the final best was first reached.
    std::optional<std::size_t> time_to_best() const;

    /// {"evaluations": N, "best_us": x|null, "time_to_best": n|null,
    ///  "curve": [{"n": 1, "id": "c0001", "score_us": x|null, "best_us": x|null}, ...]}
    boost::json::object to_json() const;

private:
    std::vector<step> steps_;
};

}  // namespace warpsmith::autotune
