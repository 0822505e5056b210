#pragma once

// How a kernel is launched: grid, block and dynamic shared memory as expressions over the case's
// values and the candidate's numeric defines / tunables (SPEC §2).

#include "harness/workload/expression.hpp"

#include <boost/json/value.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

namespace warpsmith
{

/// A launch configuration with every expression evaluated.
struct launch_dims
{
    std::array<std::int64_t, 3> grid{1, 1, 1};
    std::array<std::int64_t, 3> block{1, 1, 1};
    std::int64_t shared_bytes = 0;

    /// The product of the block's dimensions; INT64_MAX where it overflows (a model's block of
    /// 2^32 x 2^32 x 4 is refused later, but must not be undefined behaviour on the way).
    std::int64_t threads_per_block() const
    {
        std::int64_t xy = 0, xyz = 0;
        if (__builtin_mul_overflow(block[0], block[1], &xy) || __builtin_mul_overflow(xy, block[2], &xyz))
            return std::numeric_limits<std::int64_t>::max();
        return xyz;
    }
    friend bool operator==(const launch_dims&, const launch_dims&) = default;
};

struct launch_plan
{
    std::array<expression, 3> grid{expression::constant(1), expression::constant(1), expression::constant(1)};
    std::array<expression, 3> block{
        expression::constant(1), expression::constant(1), expression::constant(1)};
    expression shared_bytes = expression::constant(0);

    /// Evaluates every field; throws expression_error naming the field ("launch.grid[0]: ...").
    /// Non-positive grid/block dimensions and negative shared bytes are errors too.
    launch_dims evaluate(const variables& vars) const;

    /// Parses {"grid": [..3 exprs..], "block": [...], "shared_bytes": expr}. Each entry may be a
    /// string expression or an integer; grid and block may have 1 to 3 entries (missing ones are 1);
    /// shared_bytes is optional (0). Throws user_error "<where>.<field>: <problem>".
    static launch_plan from_json(const boost::json::value& v, std::string_view where);
    boost::json::value to_json() const;
};

boost::json::value to_json(const launch_dims& d);

}  // namespace warpsmith
