#include "harness/workload/launch_plan.hpp"

#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/workload/workload_parse.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace warpsmith
{

namespace
{

std::int64_t evaluate_field(const expression& e, const variables& vars, const std::string& field)
{
    try
    {
        return e.evaluate(vars);
    }
    catch (const expression_error& ex)
    {
        throw expression_error(field + ": " + ex.what());
    }
}

std::array<expression, 3> parse_dims(const boost::json::value& v, const json_location& loc)
{
    std::array<expression, 3> dims{expression::constant(1), expression::constant(1), expression::constant(1)};
    if (v.is_string() || v.is_int64() || v.is_uint64())
    {
        // A bare expression is shorthand for a one-dimensional launch.
        dims[0] = detail::parse_expression(v, loc);
        return dims;
    }
    const auto& arr = as_array(v, loc);
    if (arr.empty() || arr.size() > 3)
        loc.fail("must have 1 to 3 entries, got " + std::to_string(arr.size()));
    for (std::size_t i = 0; i < arr.size(); ++i)
        dims[i] = detail::parse_expression(arr[i], loc.index(i));
    return dims;
}

}  // namespace

launch_dims launch_plan::evaluate(const variables& vars) const
{
    launch_dims d;
    for (std::size_t i = 0; i < 3; ++i)
    {
        const std::string gfield = "launch.grid[" + std::to_string(i) + "]";
        d.grid[i] = evaluate_field(grid[i], vars, gfield);
        if (d.grid[i] <= 0)
        {
            throw expression_error(gfield + ": '" + grid[i].text() + "' evaluates to " +
                                   std::to_string(d.grid[i]) + ", must be positive");
        }
        const std::string bfield = "launch.block[" + std::to_string(i) + "]";
        d.block[i] = evaluate_field(block[i], vars, bfield);
        if (d.block[i] <= 0)
        {
            throw expression_error(bfield + ": '" + block[i].text() + "' evaluates to " +
                                   std::to_string(d.block[i]) + ", must be positive");
        }
    }
    d.shared_bytes = evaluate_field(shared_bytes, vars, "launch.shared_bytes");
    if (d.shared_bytes < 0)
    {
        throw expression_error("launch.shared_bytes: '" + shared_bytes.text() + "' evaluates to " +
                               std::to_string(d.shared_bytes) + ", must not be negative");
    }
    return d;
}

// `where` already names the file ("w.json: launch"), so it is the path of a location without origin.
// The strict reader's json_error becomes the user_error callers expect (launch_plan.hpp).
launch_plan launch_plan::from_json(const boost::json::value& v, std::string_view where)
try
{
    json_reader r(v, json_location({}, std::string(where)), {"grid", "block", "shared_bytes"});
    launch_plan p;
    p.grid = parse_dims(r.require("grid"), r.at("grid"));
    p.block = parse_dims(r.require("block"), r.at("block"));
    if (const auto* s = r.find("shared_bytes"))
        p.shared_bytes = detail::parse_expression(*s, r.at("shared_bytes"));
    return p;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

boost::json::value launch_plan::to_json() const
{
    boost::json::array g, b;
    for (const auto& e : grid)
        g.emplace_back(e.text());
    for (const auto& e : block)
        b.emplace_back(e.text());
    return boost::json::object{
        {"grid", std::move(g)}, {"block", std::move(b)}, {"shared_bytes", shared_bytes.text()}};
}

boost::json::value to_json(const launch_dims& d)
{
    return boost::json::object{{"grid", boost::json::array{d.grid[0], d.grid[1], d.grid[2]}},
                               {"block", boost::json::array{d.block[0], d.block[1], d.block[2]}},
                               {"shared_bytes", d.shared_bytes}};
}

}  // namespace warpsmith
