// workload.json's cases: names and roles, integer and float values, buffer counts, and the input
// generators of each buffer (docs/workload-format.md, docs/input-generation.md).

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/workload/identifier.hpp"
#include "harness/workload/input_generator.hpp"
#include "harness/workload/workload_parse.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>

namespace warpsmith::detail
{

namespace fs = std::filesystem;

namespace
{

std::optional<input_kind> parse_input_kind(std::string_view s)
{
    if (s == "uniform")
        return input_kind::uniform;
    if (s == "normal")
        return input_kind::normal;
    if (s == "randint")
        return input_kind::randint;
    if (s == "iota")
        return input_kind::iota;
    if (s == "const")
        return input_kind::constant;
    if (s == "file")
        return input_kind::file;
    return std::nullopt;
}

input_spec parse_input_spec(const boost::json::value& v,
                            const json_location& loc,
                            dtype t,
                            const file_root& files)
{
    const json_reader spec(v, loc);
    if (!spec.find("gen"))
        loc.fail("'gen' is missing (expected uniform, normal, randint, iota, const or file)");
    const std::string gen = spec.require_string("gen");
    const auto kind = parse_input_kind(gen);
    if (!kind)
        loc.key("gen").fail("unknown generator " + quote(gen) +
                            " (expected uniform, normal, randint, iota, const or file)");

    input_spec s = input_spec::default_for(t);
    s.kind = *kind;
    const auto [type_lo, type_hi] = integer_range(t);
    switch (*kind)
    {
        case input_kind::uniform:
        {
            json_reader r(v, loc, {"gen", "lo", "hi"});
            s.lo = r.optional_number("lo").value_or(-1.0);
            s.hi = r.optional_number("hi").value_or(1.0);
            if (!(s.lo <= s.hi))
                loc.fail("lo " + number_text(s.lo) + " is greater than hi " + number_text(s.hi));
            if (!is_floating(t) && (std::nearbyint(s.lo) < type_lo || std::nearbyint(s.hi) > type_hi))
            {
                loc.fail("range [" + number_text(s.lo) + ", " + number_text(s.hi) + "] does not fit " +
                         std::string(to_string(t)));
            }
            break;
        }
        case input_kind::normal:
        {
            json_reader r(v, loc, {"gen", "mean", "stddev"});
            s.mean = r.optional_number("mean").value_or(0.0);
            s.stddev = r.optional_number("stddev").value_or(1.0);
            if (!(s.stddev >= 0))
                r.at("stddev").fail("must be >= 0, got " + number_text(s.stddev));
            break;
        }
        case input_kind::randint:
        {
            json_reader r(v, loc, {"gen", "lo", "hi"});
            const bool is_unsigned = !is_floating(t) && !is_signed_integer(t);
            s.lo = r.optional_number("lo").value_or(is_unsigned ? 0.0 : -8.0);
            s.hi = r.optional_number("hi").value_or(8.0);
            for (const char* key : {"lo", "hi"})
            {
                const double x = std::string_view(key) == "lo" ? s.lo : s.hi;
                if (x != std::floor(x) || std::fabs(x) > max_exact_integer)
                    r.at(key).fail("must be an integer of magnitude at most 2^53, got " + number_text(x));
            }
            if (s.lo > s.hi)
                loc.fail("lo " + number_text(s.lo) + " is greater than hi " + number_text(s.hi));
            if (s.lo < type_lo || s.hi > type_hi)
            {
                loc.fail("range [" + number_text(s.lo) + ", " + number_text(s.hi) + "] does not fit " +
                         std::string(to_string(t)));
            }
            break;
        }
        case input_kind::iota:
        {
            json_reader r(v, loc, {"gen", "start", "step"});
            s.start = r.optional_number("start").value_or(0.0);
            s.step = r.optional_number("step").value_or(1.0);
            break;
        }
        case input_kind::constant:
        {
            json_reader r(v, loc, {"gen", "value"});
            s.value = as_number(r.require("value"), r.at("value"));
            if (!is_floating(t) && (std::nearbyint(s.value) < type_lo || std::nearbyint(s.value) > type_hi))
                r.at("value").fail(number_text(s.value) + " does not fit " + std::string(to_string(t)));
            break;
        }
        case input_kind::file:
        {
            json_reader r(v, loc, {"gen", "path", "sha256"});
            const std::string path = r.require_string("path");
            if (path.empty())
                r.at("path").fail("must not be empty");
            const auto recorded = r.optional_string("sha256");
            if (files.scope == file_scope::self_contained && !recorded)
                refuse_unrecorded_input_file(loc);
            s.path = resolve_file(path, files, r.at("path"));
            std::error_code ec;
            if (!fs::is_regular_file(s.path, ec))
                r.at("path").fail("file '" + s.path.string() + "' does not exist or is not a regular file");
            // The digest comes before anything that tells about the file (its size): a workload
            // that names a file its author cannot read learns nothing of it but that it exists.
            try
            {
                s.sha256 = sha256_file_hex(s.path);
            }
            catch (const user_error& e)
            {
                r.at("path").fail(e.what());
            }
            if (recorded && *recorded != s.sha256)
                r.at("sha256").fail(
                    "file '" + s.path.string() +
                    "' does not hold the bytes this workload recorded for it (its sha256 differs)");
            break;
        }
    }
    return s;
}

void parse_case_values(const json_reader& r, const workload& w, workload_case& c)
{
    if (const auto* vals = r.find("values"))
    {
        const auto vloc = r.at("values");
        for (const auto& kv : as_object(*vals, vloc))
        {
            const std::string name(kv.key());
            const auto loc = vloc.key(name);
            check_identifier(name, loc, "value name");
            const std::int64_t x = as_int64(kv.value(), loc);
            if (const param* p = w.sig.find(name))
            {
                if (p->kind == param_kind::buffer)
                    vloc.fail(quote(name) + " is a buffer parameter, not a value");
                if (is_floating(p->type))
                {
                    vloc.fail(quote(name) + " is a " + std::string(to_string(p->type)) +
                              " scalar; give it in float_values");
                }
                const auto [lo, hi] = integer_range(p->type);
                if (static_cast<double>(x) < lo || static_cast<double>(x) > hi)
                    loc.fail(std::to_string(x) + " does not fit " + std::string(to_string(p->type)));
            }
            if (w.tunables.count(name))
                vloc.fail(quote(name) + " is also a tunable; a name is either a case value or a tunable");
            c.values.emplace(name, x);
        }
    }
    if (const auto* fvals = r.find("float_values"))
    {
        const auto floc = r.at("float_values");
        for (const auto& kv : as_object(*fvals, floc))
        {
            const std::string name(kv.key());
            const param* p = w.sig.find(name);
            if (!p || p->kind != param_kind::scalar)
                floc.fail(quote(name) + " is not a scalar parameter");
            if (!is_floating(p->type))
                floc.fail(quote(name) + " is a " + std::string(to_string(p->type)) +
                          " scalar; give it in values");
            c.float_values.emplace(name, as_number(kv.value(), floc.key(name)));
        }
    }
    for (const auto& p : w.sig.params)
    {
        if (p.kind != param_kind::scalar)
            continue;
        const bool floating = is_floating(p.type);
        if (floating ? !c.float_values.count(p.name) : !c.values.count(p.name))
        {
            r.at(floating ? "float_values" : "values")
                .fail(quote(p.name) + " is missing (scalar parameter " + p.name + ")");
        }
    }
}

void check_buffer_counts(const json_reader& r, const workload& w, const workload_case& c)
{
    for (const auto& p : w.sig.params)
    {
        if (p.kind != param_kind::buffer)
            continue;
        for (const auto& id : p.count.identifiers())
        {
            if (!c.values.count(id))
                r.at("values").fail(quote(id) + " is missing (needed by " + p.name + ".count)");
        }
        std::int64_t n = 0;
        try
        {
            n = p.count.evaluate(c.values);
        }
        catch (const expression_error& ex)
        {
            r.location().fail(p.name + ".count: " + ex.what());
        }
        if (n <= 0)
        {
            r.location().fail(p.name + ".count '" + p.count.text() + "' evaluates to " + std::to_string(n) +
                              ", must be positive");
        }
        std::int64_t bytes = 0;
        if (__builtin_mul_overflow(n, static_cast<std::int64_t>(size_of(p.type)), &bytes))
            r.location().fail(p.name + ".count " + std::to_string(n) + " is too large to address");
    }
}

void parse_case_inputs(const json_reader& r, const workload& w, const file_root& files, workload_case& c)
{
    const auto* ins = r.find("inputs");
    if (!ins)
        return;
    const auto iloc = r.at("inputs");
    for (const auto& kv : as_object(*ins, iloc))
    {
        const std::string name(kv.key());
        const param* p = w.sig.find(name);
        if (!p || p->kind != param_kind::buffer)
            iloc.fail(quote(name) + " is not a buffer parameter");
        if (!p->is_input())
            iloc.fail(quote(name) + " is an out buffer; only in and inout buffers take inputs");
        input_spec s = parse_input_spec(kv.value(), iloc.key(name), p->type, files);
        if (s.kind == input_kind::file)
        {
            // Checked here as well as at generation, so that a wrong file fails at load time.
            const std::int64_t count = p->count.evaluate(c.values);
            const std::int64_t want = count * static_cast<std::int64_t>(size_of(p->type));
            std::error_code ec;
            const auto have = fs::file_size(s.path, ec);
            if (!ec && static_cast<std::int64_t>(have) != want)
            {
                iloc.key(name).fail("file '" + s.path.string() + "' holds " + std::to_string(have) +
                                    " bytes, expected " + std::to_string(want) + " (" +
                                    std::to_string(count) + " " + std::string(to_string(p->type)) +
                                    " elements)");
            }
        }
        c.inputs.emplace(name, std::move(s));
    }
}

}  // namespace

// Integral doubles are written as JSON integers ("-8", not "-8E0"); both read back the same.
boost::json::value compact_number(double v)
{
    if (v == std::floor(v) && std::fabs(v) <= max_exact_integer && !(v == 0 && std::signbit(v)))
        return static_cast<std::int64_t>(v);
    return v;
}

// The integer range of an integer dtype, as doubles for range checks (both ends are exact).
std::pair<double, double> integer_range(dtype t)
{
    switch (t)
    {
        case dtype::int8:
            return {-128.0, 127.0};
        case dtype::uint8:
            return {0.0, 255.0};
        case dtype::int16:
            return {-32768.0, 32767.0};
        case dtype::int32:
            return {-2147483648.0, 2147483647.0};
        case dtype::uint32:
            return {0.0, 4294967295.0};
        case dtype::int64:
            return {-9223372036854775808.0, 9223372036854775807.0};
        case dtype::uint64:
            return {0.0, 18446744073709551615.0};
        default:
            return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    }
}

bool is_valid_case_name(std::string_view name)
{
    // Case names become file names (requests/<case>.json, profiles/cNNNN-<case>.ncu-rep), so they
    // stay portable, unhidden and well under the 255 bytes a file name may have.
    return !name.empty() && name.size() <= max_case_name_length && name[0] != '.' &&
           std::all_of(name.begin(),
                       name.end(),
                       [](char ch) {
                           return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' ||
                                  ch == '.';
                       });
}

// Parses cases[i] against the signature and tunables already read into w.
workload_case parse_case(const boost::json::value& v,
                         const json_location& loc,
                         const workload& w,
                         const file_root& files)
{
    json_reader r(v, loc, {"name", "role", "values", "float_values", "inputs", "seed"});
    workload_case c;
    c.name = r.require_string("name");
    if (!is_valid_case_name(c.name))
    {
        r.at("name").fail(
            quote(c.name) +
            " is not a valid case name (letters, digits, '_', '-' and '.', not starting with '.', at most " +
            std::to_string(max_case_name_length) + " characters)");
    }
    if (w.find_case(c.name))
        r.at("name").fail("case " + quote(c.name) + " is listed twice");
    if (auto role = r.optional_string("role"))
    {
        if (*role == "correctness")
            c.role = case_role::correctness;
        else if (*role == "performance")
            c.role = case_role::performance;
        else
            r.at("role").fail("unknown role " + quote(*role) + " (expected correctness or performance)");
    }
    parse_case_values(r, w, c);
    check_buffer_counts(r, w, c);
    parse_case_inputs(r, w, files, c);
    c.seed = r.find("seed") ? as_uint64(*r.find("seed"), r.at("seed")) : derived_case_seed(w.seed, c.name);
    return c;
}

}  // namespace warpsmith::detail

namespace warpsmith
{

input_spec input_spec::default_for(dtype t)
{
    input_spec s;
    if (is_floating(t))
    {
        s.kind = input_kind::uniform;
        s.lo = -1;
        s.hi = 1;
    }
    else
    {
        s.kind = input_kind::randint;
        s.lo = is_signed_integer(t) ? -8 : 0;
        s.hi = 8;
    }
    return s;
}

boost::json::value input_spec::to_json() const
{
    boost::json::object o;
    o["gen"] = to_string(kind);
    switch (kind)
    {
        case input_kind::uniform:
        case input_kind::randint:
            o["lo"] = detail::compact_number(lo);
            o["hi"] = detail::compact_number(hi);
            break;
        case input_kind::normal:
            o["mean"] = detail::compact_number(mean);
            o["stddev"] = detail::compact_number(stddev);
            break;
        case input_kind::iota:
            o["start"] = detail::compact_number(start);
            o["step"] = detail::compact_number(step);
            break;
        case input_kind::constant:
            o["value"] = detail::compact_number(value);
            break;
        case input_kind::file:
            o["path"] = path.string();
            o["sha256"] = sha256;
            break;
    }
    return o;
}

const input_spec& workload_case::input_for(const param& p) const
{
    if (auto it = inputs.find(p.name); it != inputs.end())
        return it->second;
    // One immutable default per dtype, built once, so a reference can be handed out.
    static const std::array<input_spec, 11> defaults = []
    {
        std::array<input_spec, 11> d;
        for (std::size_t i = 0; i < d.size(); ++i)
            d[i] = input_spec::default_for(static_cast<dtype>(i));
        return d;
    }();
    return defaults[static_cast<std::size_t>(p.type)];
}

}  // namespace warpsmith
