#pragma once

// The autotuning space (SPEC §6; docs/autotune.md, "The search space"): the workload's tunables
// (name -> allowed values), cut down by its restrictions and by the device's limits before anything
// is compiled, and by the compiled kernel's resources after.
//
// A point is one index per dimension into that dimension's sorted values; dimensions are ordered
// by name. Three checks, cheapest first:
//   1. restrictions: every restriction evaluates non-zero; one that mentions case values must hold
//      for every case (it is evaluated with each case's values);
//   2. launch limits: the tunable kernel's launch plan evaluates for every case, and its block
//      (threads per block and each dimension), grid and dynamic shared memory fit the device;
//   3. resources, after compile: dynamic + static shared memory fits the per-block opt-in maximum,
//      and the registers the block needs (per-warp allocation of registers*32 rounded up to 256)
//      fit the registers per block. Points that compile but could not launch are pruned there and
//      never reach a GPU.
// A missing device limit is not checked. Everything here is plain synchronous code.

#include "harness/compile/compile_request.hpp"
#include "harness/workload/expression.hpp"
#include "harness/workload/launch_plan.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::autotune
{

/// One index per dimension into dimension::values.
using point = std::vector<int>;

struct dimension
{
    std::string name;
    std::vector<std::int64_t> values;  ///< Ascending, distinct.
};

/// The device limits the space is pruned by, from `device_info` (docs/worker-protocol.md).
struct device_limits
{
    std::optional<std::int64_t> max_threads_per_block;
    std::optional<std::array<std::int64_t, 3>> max_block;
    std::optional<std::array<std::int64_t, 3>> max_grid;
    std::optional<std::int64_t> shared_bytes_per_block;  ///< The opt-in maximum.
    std::optional<std::int64_t> registers_per_block;
    std::int64_t warp_size = 32;

    /// Reads max_threads_per_block, max_block, max_grid, shared_memory_per_block_optin_bytes (else
    /// shared_memory_per_block_bytes), registers_per_block and warp_size; absent keys stay unset.
    static device_limits from_device(const boost::json::object& device);
    boost::json::object to_json() const;
};

enum class verdict
{
    feasible,
    restricted,      ///< A restriction fails (or does not evaluate).
    over_limits,     ///< The launch plan does not evaluate or exceeds a device limit.
    compile_failed,  ///< The point does not compile (e.g. a static_assert in the tunable kernel).
    over_resources,  ///< Compiled, but registers or shared memory exceed the device's per-block limits.
};

std::string_view to_string(verdict v);

struct feasibility
{
    verdict result = verdict::feasible;
    std::string reason;  ///< One line when not feasible.

    bool ok() const { return result == verdict::feasible; }
};

/// Sizes of the space before and after pruning.
struct space_stats
{
    double total = 0;  ///< Product of the dimension sizes.
    double satisfy_restrictions = 0;
    double feasible = 0;      ///< Also within the launch limits.
    bool exact = true;        ///< false: the last two are estimated by sampling.
    std::size_t samples = 0;  ///< Points examined.

    boost::json::object to_json() const;
    /// Reads what to_json() wrote (tune.json "space", the tune_space event); missing fields are 0.
    static space_stats from_json(const boost::json::object& o);
    /// "6144 points, 2304 satisfy the restrictions, 2112 fit the device limits" ("~2304" when
    /// estimated by sampling).
    std::string describe() const;
};

class search_space
{
public:
    /// Spaces up to this many points are enumerated exactly (grid order, exact counts, a cached
    /// feasibility table); larger ones are sampled.
    static constexpr double enumeration_limit = 2'000'000;
    /// stats() counts exactly up to this many points (a check costs a few µs), else it samples.
    static constexpr double exact_count_limit = 200'000;

    /// dims: unsorted values are sorted; duplicates, empty lists and an empty space throw
    /// user_error. cases: the integer values of every case (restrictions and the launch plan are
    /// evaluated once per case; with no cases, once with no case values).
    search_space(std::vector<dimension> dims,
                 std::vector<expression> restrictions,
                 std::vector<std::pair<std::string, variables>> cases,
                 std::optional<launch_plan> launch,
                 device_limits limits);

    /// The space of a workload: its tunables, restrictions and cases, and the launch plan of its
    /// tunable kernel (else of its initial kernel). user_error when it has no tunables.
    static search_space from_workload(const workload& w, const device_limits& limits);

    const std::vector<dimension>& dimensions() const { return dims_; }
    std::size_t size() const { return dims_.size(); }
    const device_limits& limits() const { return limits_; }
    double total() const { return total_; }
    bool enumerable() const { return total_ <= enumeration_limit; }

    /// Restrictions and launch limits, for every case. Never throws.
    feasibility check(const point& p) const;
    /// check(p).ok(), memoized when the space is enumerable.
    bool feasible(const point& p) const;
    /// The post-compile check (3. above) for a point whose kernel compiled with these resources.
    feasibility check_resources(const point& p, const resource_usage& r) const;
    /// The launch of point p for every case (case name -> dims); throws expression_error.
    std::vector<std::pair<std::string, launch_dims>> launches(const point& p) const;

    /// The first point in grid order (every index 0); next() advances an odometer whose last
    /// dimension moves fastest and returns false after the last point.
    point first() const { return point(dims_.size(), 0); }
    bool next(point& p) const;
    /// Mixed-radix index of p (enumerable spaces).
    std::uint64_t index_of(const point& p) const;

    /// Counts (exactly up to exact_count_limit points, else from `samples` uniform draws of a fixed
    /// generator).
    space_stats stats(std::size_t samples = 200'000) const;

    // Conversions between points and the defines / JSON / text forms.
    std::map<std::string, std::int64_t> defines(const point& p) const;
    std::optional<point> from_defines(const std::map<std::string, std::int64_t>& d) const;
    boost::json::object to_json(const point& p) const;
    /// {"BM": 128, ...} with exactly the space's names and allowed values, else nullopt.
    std::optional<point> from_json(const boost::json::value& v) const;
    /// "BM=128 BN=64 TM=8".
    std::string describe(const point& p) const;
    /// Whether every index is in range.
    bool valid_indices(const point& p) const;

private:
    variables bind(const point& p, const variables& base) const;
    /// Evaluates the tunable launch plan for p on every case and hands each result to
    /// check(dims, where), where `where` names the case for messages; the first verdict that is not
    /// feasible is the answer. A plan that does not evaluate is over_limits.
    template <class Check>
    feasibility check_each_launch(const point& p, Check&& check) const;

    struct restriction
    {
        expression expr;
        bool uses_cases = false;
    };

    std::vector<dimension> dims_;
    std::vector<restriction> restrictions_;
    std::vector<std::pair<std::string, variables>> cases_;
    std::optional<launch_plan> launch_;
    device_limits limits_;
    double total_ = 0;
    mutable std::vector<std::int8_t> memo_;  ///< Enumerable spaces: 0 unknown, 1 feasible, 2 not.
};

}  // namespace warpsmith::autotune
