#include "agents/autotune/search_space.hpp"

#include "agents/autotune/rng.hpp"
#include "harness/core/error.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpsmith::autotune
{

namespace json = boost::json;

namespace
{

// The worker's device description, read leniently: an absent or mistyped limit is no limit.
std::optional<std::int64_t> int_field(const json::object& o, std::string_view key)
{
    if (const auto x = lenient::number_at(o, key); x && *x < 0 && !lenient::value_at(o, key)->is_int64())
        return std::nullopt;
    return lenient::int_at(o, key);
}

std::optional<std::array<std::int64_t, 3>> triple_field(const json::object& o, std::string_view key)
{
    const json::array* a = lenient::array_at(o, key);
    if (!a || a->size() != 3)
        return std::nullopt;
    std::array<std::int64_t, 3> out{};
    for (std::size_t i = 0; i < 3; ++i)
    {
        const auto& e = (*a)[i];
        if (e.is_int64())
            out[i] = e.get_int64();
        else if (e.is_uint64())
            out[i] = static_cast<std::int64_t>(e.get_uint64());
        else
            return std::nullopt;
    }
    return out;
}

json::value opt(const std::optional<std::int64_t>& v)
{
    return v ? json::value(*v) : json::value(nullptr);
}

json::value opt(const std::optional<std::array<std::int64_t, 3>>& v)
{
    if (!v)
        return nullptr;
    return json::array{(*v)[0], (*v)[1], (*v)[2]};
}

std::string case_suffix(const std::string& name, std::size_t cases)
{
    return cases > 1 || !name.empty() ? " (case " + name + ")" : "";
}

}  // namespace

device_limits device_limits::from_device(const json::object& device)
{
    device_limits l;
    l.max_threads_per_block = int_field(device, "max_threads_per_block");
    l.max_block = triple_field(device, "max_block");
    l.max_grid = triple_field(device, "max_grid");
    l.shared_bytes_per_block = int_field(device, "shared_memory_per_block_optin_bytes");
    if (!l.shared_bytes_per_block || *l.shared_bytes_per_block <= 0)
        l.shared_bytes_per_block = int_field(device, "shared_memory_per_block_bytes");
    l.registers_per_block = int_field(device, "registers_per_block");
    if (auto w = int_field(device, "warp_size"); w && *w > 0)
        l.warp_size = *w;
    return l;
}

json::object device_limits::to_json() const
{
    return json::object{{"max_threads_per_block", opt(max_threads_per_block)},
                        {"max_block", opt(max_block)},
                        {"max_grid", opt(max_grid)},
                        {"shared_bytes_per_block", opt(shared_bytes_per_block)},
                        {"registers_per_block", opt(registers_per_block)},
                        {"warp_size", warp_size}};
}

std::string_view to_string(verdict v)
{
    switch (v)
    {
        case verdict::feasible:
            return "feasible";
        case verdict::restricted:
            return "restricted";
        case verdict::over_limits:
            return "over_limits";
        case verdict::compile_failed:
            return "compile_failed";
        case verdict::over_resources:
            return "over_resources";
    }
    return "unknown";
}

json::object space_stats::to_json() const
{
    return json::object{{"total", total},
                        {"satisfy_restrictions", satisfy_restrictions},
                        {"feasible", feasible},
                        {"exact", exact},
                        {"samples", samples}};
}

space_stats space_stats::from_json(const json::object& o)
{
    space_stats s;
    s.total = lenient::number_or(o, "total");
    s.satisfy_restrictions = lenient::number_or(o, "satisfy_restrictions");
    s.feasible = lenient::number_or(o, "feasible");
    s.exact = lenient::bool_at(o, "exact").value_or(s.exact);
    s.samples = static_cast<std::size_t>(lenient::number_or(o, "samples"));
    return s;
}

std::string space_stats::describe() const
{
    auto count = [](double x, bool exact_count)
    {
        char buf[64];
        if (x < 1e9)
            std::snprintf(buf, sizeof buf, "%s%.0f", exact_count ? "" : "~", x);
        else
            std::snprintf(buf, sizeof buf, "%s%.3g", exact_count ? "" : "~", x);
        return std::string(buf);
    };
    return count(total, true) + " points, " + count(satisfy_restrictions, exact) +
           " satisfy the restrictions, " + count(feasible, exact) + " fit the device limits";
}

search_space::search_space(std::vector<dimension> dims,
                           std::vector<expression> restrictions,
                           std::vector<std::pair<std::string, variables>> cases,
                           std::optional<launch_plan> launch,
                           device_limits limits)
    : dims_(std::move(dims)), cases_(std::move(cases)), launch_(std::move(launch)), limits_(limits)
{
    if (dims_.empty())
        throw user_error("the search space has no tunables");
    std::sort(
        dims_.begin(), dims_.end(), [](const dimension& a, const dimension& b) { return a.name < b.name; });
    total_ = 1;
    for (std::size_t i = 0; i < dims_.size(); ++i)
    {
        auto& d = dims_[i];
        if (i > 0 && dims_[i - 1].name == d.name)
            throw user_error("tunable '" + d.name + "' is listed twice");
        if (d.values.empty())
            throw user_error("tunable '" + d.name + "' has no values");
        std::sort(d.values.begin(), d.values.end());
        if (std::adjacent_find(d.values.begin(), d.values.end()) != d.values.end())
            throw user_error("tunable '" + d.name + "' repeats a value");
        total_ *= static_cast<double>(d.values.size());
    }
    if (cases_.empty())
        cases_.emplace_back(std::string(), variables{});
    for (auto& e : restrictions)
    {
        restriction r{std::move(e), false};
        for (const auto& id : r.expr.identifiers())
        {
            const bool tunable =
                std::any_of(dims_.begin(), dims_.end(), [&](const dimension& d) { return d.name == id; });
            if (!tunable)
                r.uses_cases = true;
        }
        restrictions_.push_back(std::move(r));
    }
    if (enumerable())
        memo_.assign(static_cast<std::size_t>(total_), 0);
}

search_space search_space::from_workload(const workload& w, const device_limits& limits)
{
    if (w.tunables.empty())
        throw user_error("workload '" + w.name +
                         "' has no tunables to tune (add \"tunables\" to its workload.json)");
    const kernel_source* k = w.tunable ? &*w.tunable : (w.initial ? &*w.initial : nullptr);
    if (!k)
        throw user_error("workload '" + w.name + "' has neither a tunable nor an initial kernel to tune");
    std::vector<dimension> dims;
    for (const auto& [name, values] : w.tunables)
        dims.push_back(dimension{name, values});
    std::vector<std::pair<std::string, variables>> cases;
    for (const auto& c : w.cases)
        cases.emplace_back(c.name, c.values);
    return search_space(std::move(dims), w.restrictions, std::move(cases), k->launch, limits);
}

variables search_space::bind(const point& p, const variables& base) const
{
    variables v = base;
    for (std::size_t i = 0; i < dims_.size(); ++i)
        v[dims_[i].name] = dims_[i].values[static_cast<std::size_t>(p[i])];
    return v;
}

bool search_space::valid_indices(const point& p) const
{
    if (p.size() != dims_.size())
        return false;
    for (std::size_t i = 0; i < dims_.size(); ++i)
        if (p[i] < 0 || p[i] >= static_cast<int>(dims_[i].values.size()))
            return false;
    return true;
}

template <class Check>
feasibility search_space::check_each_launch(const point& p, Check&& check) const
{
    if (!launch_)
        return {};
    for (const auto& [name, values] : cases_)
    {
        launch_dims d;
        try
        {
            d = launch_->evaluate(bind(p, values));
        }
        catch (const expression_error& e)
        {
            return {verdict::over_limits, e.what() + case_suffix(name, cases_.size())};
        }
        if (auto f = check(d, case_suffix(name, cases_.size())); !f.ok())
            return f;
    }
    return {};
}

feasibility search_space::check(const point& p) const
{
    if (!valid_indices(p))
        return {verdict::restricted, "not a point of this space"};
    // Restrictions first: they are the user's statement of what makes sense, and the cheapest.
    const variables own = bind(p, variables{});
    for (const auto& r : restrictions_)
    {
        if (!r.uses_cases)
        {
            try
            {
                if (r.expr.evaluate(own) == 0)
                    return {verdict::restricted, "restriction '" + r.expr.text() + "' fails"};
            }
            catch (const expression_error& e)
            {
                return {verdict::restricted, std::string("restriction: ") + e.what()};
            }
            continue;
        }
        for (const auto& [name, values] : cases_)
        {
            try
            {
                if (r.expr.evaluate(bind(p, values)) == 0)
                    return {verdict::restricted,
                            "restriction '" + r.expr.text() + "' fails" + case_suffix(name, cases_.size())};
            }
            catch (const expression_error& e)
            {
                return {verdict::restricted,
                        std::string("restriction: ") + e.what() + case_suffix(name, cases_.size())};
            }
        }
    }
    auto within_limits = [this](const launch_dims& d, const std::string& where) -> feasibility
    {
        const auto threads = d.threads_per_block();
        if (limits_.max_threads_per_block && threads > *limits_.max_threads_per_block)
            return {verdict::over_limits,
                    "a block of " + std::to_string(threads) + " threads exceeds the device's " +
                        std::to_string(*limits_.max_threads_per_block) + where};
        static constexpr const char* axis[3] = {"x", "y", "z"};
        for (std::size_t i = 0; i < 3; ++i)
        {
            if (limits_.max_block && d.block[i] > (*limits_.max_block)[i])
                return {verdict::over_limits,
                        std::string("block.") + axis[i] + " = " + std::to_string(d.block[i]) +
                            " exceeds the device's " + std::to_string((*limits_.max_block)[i]) + where};
            if (limits_.max_grid && d.grid[i] > (*limits_.max_grid)[i])
                return {verdict::over_limits,
                        std::string("grid.") + axis[i] + " = " + std::to_string(d.grid[i]) +
                            " exceeds the device's " + std::to_string((*limits_.max_grid)[i]) + where};
        }
        if (limits_.shared_bytes_per_block && d.shared_bytes > *limits_.shared_bytes_per_block)
            return {verdict::over_limits,
                    std::to_string(d.shared_bytes) + " bytes of dynamic shared memory exceed the device's " +
                        std::to_string(*limits_.shared_bytes_per_block) + " per block" + where};
        return {};
    };
    return check_each_launch(p, within_limits);
}

bool search_space::feasible(const point& p) const
{
    if (!enumerable() || !valid_indices(p))
        return check(p).ok();
    auto& m = memo_[static_cast<std::size_t>(index_of(p))];
    if (m == 0)
        m = check(p).ok() ? 1 : 2;
    return m == 1;
}

feasibility search_space::check_resources(const point& p, const resource_usage& r) const
{
    auto fits = [this, &r](const launch_dims& d, const std::string& where) -> feasibility
    {
        if (limits_.shared_bytes_per_block &&
            d.shared_bytes + r.static_shared_bytes > *limits_.shared_bytes_per_block)
            return {verdict::over_resources,
                    std::to_string(d.shared_bytes) + " dynamic + " + std::to_string(r.static_shared_bytes) +
                        " static bytes of shared memory exceed the device's " +
                        std::to_string(*limits_.shared_bytes_per_block) + " per block" + where};
        if (limits_.registers_per_block && r.registers > 0)
        {
            // Registers are allocated per warp in units of 256 (every architecture since Kepler).
            const std::int64_t ws = limits_.warp_size;
            const std::int64_t per_warp = (static_cast<std::int64_t>(r.registers) * ws + 255) / 256 * 256;
            const std::int64_t warps = (d.threads_per_block() + ws - 1) / ws;
            if (per_warp * warps > *limits_.registers_per_block)
                return {verdict::over_resources,
                        std::to_string(r.registers) + " registers per thread x " +
                            std::to_string(d.threads_per_block()) + " threads need " +
                            std::to_string(per_warp * warps) + " registers, more than the device's " +
                            std::to_string(*limits_.registers_per_block) + " per block" + where};
        }
        return {};
    };
    return check_each_launch(p, fits);
}

std::vector<std::pair<std::string, launch_dims>> search_space::launches(const point& p) const
{
    std::vector<std::pair<std::string, launch_dims>> out;
    if (!launch_)
        return out;
    for (const auto& [name, values] : cases_)
        out.emplace_back(name, launch_->evaluate(bind(p, values)));
    return out;
}

bool search_space::next(point& p) const
{
    for (std::size_t i = dims_.size(); i-- > 0;)
    {
        if (++p[i] < static_cast<int>(dims_[i].values.size()))
            return true;
        p[i] = 0;
    }
    return false;
}

std::uint64_t search_space::index_of(const point& p) const
{
    std::uint64_t idx = 0;
    for (std::size_t i = 0; i < dims_.size(); ++i)
        idx = idx * dims_[i].values.size() + static_cast<std::uint64_t>(p[i]);
    return idx;
}

space_stats search_space::stats(std::size_t samples) const
{
    space_stats s;
    s.total = total_;
    auto count = [&](const point& p)
    {
        const auto f = check(p);
        if (f.result != verdict::restricted)
            s.satisfy_restrictions += 1;
        if (f.ok())
            s.feasible += 1;
        ++s.samples;
    };
    if (total_ <= exact_count_limit)
    {
        point p = first();
        do
            count(p);
        while (next(p));
        return s;
    }
    // Too many points to visit quickly: estimate from uniform draws of a fixed generator, so the same
    // workload always reports the same estimate.
    rng r(0x5eed5eed);
    point p(dims_.size());
    for (std::size_t k = 0; k < samples; ++k)
    {
        for (std::size_t i = 0; i < dims_.size(); ++i)
            p[i] = static_cast<int>(r.below(dims_[i].values.size()));
        count(p);
    }
    s.exact = false;
    s.satisfy_restrictions = std::round(s.satisfy_restrictions / static_cast<double>(samples) * total_);
    s.feasible = std::round(s.feasible / static_cast<double>(samples) * total_);
    return s;
}

std::map<std::string, std::int64_t> search_space::defines(const point& p) const
{
    std::map<std::string, std::int64_t> d;
    for (std::size_t i = 0; i < dims_.size(); ++i)
        d[dims_[i].name] = dims_[i].values[static_cast<std::size_t>(p[i])];
    return d;
}

std::optional<point> search_space::from_defines(const std::map<std::string, std::int64_t>& d) const
{
    if (d.size() != dims_.size())
        return std::nullopt;
    point p(dims_.size());
    for (std::size_t i = 0; i < dims_.size(); ++i)
    {
        auto it = d.find(dims_[i].name);
        if (it == d.end())
            return std::nullopt;
        const auto& vals = dims_[i].values;
        auto v = std::lower_bound(vals.begin(), vals.end(), it->second);
        if (v == vals.end() || *v != it->second)
            return std::nullopt;
        p[i] = static_cast<int>(v - vals.begin());
    }
    return p;
}

json::object search_space::to_json(const point& p) const
{
    json::object o;
    for (std::size_t i = 0; i < dims_.size(); ++i)
        o[dims_[i].name] = dims_[i].values[static_cast<std::size_t>(p[i])];
    return o;
}

std::optional<point> search_space::from_json(const json::value& v) const
{
    const auto* o = v.if_object();
    if (!o)
        return std::nullopt;
    std::map<std::string, std::int64_t> d;
    for (const auto& kv : *o)
    {
        if (kv.value().is_int64())
            d[std::string(kv.key())] = kv.value().get_int64();
        else if (kv.value().is_uint64())
            d[std::string(kv.key())] = static_cast<std::int64_t>(kv.value().get_uint64());
        else
            return std::nullopt;
    }
    return from_defines(d);
}

std::string search_space::describe(const point& p) const
{
    std::string s;
    for (std::size_t i = 0; i < dims_.size(); ++i)
    {
        if (i)
            s += ' ';
        s += dims_[i].name + "=" + std::to_string(dims_[i].values[static_cast<std::size_t>(p[i])]);
    }
    return s;
}

}  // namespace warpsmith::autotune
