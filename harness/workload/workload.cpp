#include "harness/workload/workload.hpp"

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/workload/identifier.hpp"
#include "harness/workload/input_generator.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

namespace warpsmith
{

namespace fs = std::filesystem;

namespace
{

constexpr double max_exact_integer = 9007199254740992.0;  // 2^53

std::string dtype_list()
{
    return "float16, bfloat16, float32, float64, int8, uint8, int16, int32, uint32, int64, uint64";
}

std::string quote(std::string_view s)
{
    return "'" + std::string(s) + "'";
}

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

void check_identifier(const std::string& name, const json_location& loc, std::string_view what)
{
    if (!is_c_identifier(name))
        loc.fail(quote(name) + " is not a valid " + std::string(what) + " (a C identifier)");
    if (is_reserved_word(name))
        loc.fail(quote(name) + " is a C++ keyword and cannot be a " + std::string(what));
}

expression parse_expression(const boost::json::value& v, const json_location& loc)
{
    if (v.is_int64() || v.is_uint64())
        return expression::constant(as_int64(v, loc));
    if (!v.is_string())
        loc.fail("must be an integer or an expression string, got " + json_excerpt(v));
    try
    {
        return expression::parse(v.get_string());
    }
    catch (const expression_error& ex)
    {
        loc.fail(ex.what());
    }
}

// A "tolerance" object as written: a field left out takes its value from a default tolerance.
struct tolerance_fields
{
    std::optional<double> rtol;
    std::optional<double> atol;

    tolerance over(const tolerance& base) const
    {
        return {rtol.value_or(base.rtol), atol.value_or(base.atol)};
    }
};

tolerance_fields parse_tolerance(const boost::json::value& v, const json_location& loc)
{
    json_reader r(v, loc, {"rtol", "atol"});
    tolerance_fields tol;
    for (const char* key : {"rtol", "atol"})
    {
        if (auto x = r.optional_number(key))
        {
            if (!(*x >= 0))
                r.at(key).fail("must be >= 0, got " + number_text(*x));
            if (std::isinf(*x))
                r.at(key).fail("must be finite");
            (std::string_view(key) == "rtol" ? tol.rtol : tol.atol) = *x;
        }
    }
    return tol;
}

boost::json::object tolerance_json(const tolerance& tol)
{
    return boost::json::object{{"rtol", tol.rtol}, {"atol", tol.atol}};
}

param parse_param(const boost::json::value& v, const json_location& loc)
{
    json_reader r(v, loc, {"name", "kind", "type", "dir", "count", "tolerance"});
    param p;
    p.name = r.require_string("name");
    check_identifier(p.name, r.at("name"), "parameter name");

    const std::string kind = r.require_string("kind");
    if (kind == "scalar")
        p.kind = param_kind::scalar;
    else if (kind == "buffer")
        p.kind = param_kind::buffer;
    else
        r.at("kind").fail("unknown kind " + quote(kind) + " (expected scalar or buffer)");

    const std::string type = r.require_string("type");
    const auto t = parse_dtype(type);
    if (!t)
        r.at("type").fail("unknown type " + quote(type) + " (expected one of " + dtype_list() + ")");
    p.type = *t;

    if (p.kind == param_kind::scalar)
    {
        for (const char* key : {"dir", "count", "tolerance"})
        {
            if (r.find(key))
                r.at(key).fail("applies to buffers only; " + quote(p.name) + " is a scalar");
        }
        p.count = expression::constant(1);
        return p;
    }
    const std::string dir = r.require_string("dir");
    if (dir == "in")
        p.dir = buffer_dir::in;
    else if (dir == "out")
        p.dir = buffer_dir::out;
    else if (dir == "inout")
        p.dir = buffer_dir::inout;
    else
        r.at("dir").fail("unknown dir " + quote(dir) + " (expected in, out or inout)");
    p.count = parse_expression(r.require("count"), r.at("count"));
    if (const auto* t = r.find("tolerance"))
    {
        if (!p.is_output())
            r.at("tolerance")
                .fail("applies to out and inout buffers only; " + quote(p.name) + " is an input");
        p.tol = parse_tolerance(*t, r.at("tolerance")).over(default_tolerance(p.type));
    }
    return p;
}

signature parse_signature(const boost::json::value& v, const json_location& loc)
{
    json_reader r(v, loc, {"entry", "params"});
    signature sig;
    sig.entry = r.require_string("entry");
    check_identifier(sig.entry, r.at("entry"), "entry point name");
    const auto& params = as_array(r.require("params"), r.at("params"));
    if (params.empty())
        r.at("params").fail("must list at least one parameter");
    std::set<std::string> names;
    bool has_output = false;
    for (std::size_t i = 0; i < params.size(); ++i)
    {
        const auto ploc = r.at("params").index(i);
        param p = parse_param(params[i], ploc);
        if (!names.insert(p.name).second)
            ploc.key("name").fail("parameter " + quote(p.name) + " is listed twice");
        has_output = has_output || p.is_output();
        sig.params.push_back(std::move(p));
    }
    if (!has_output)
        r.at("params").fail("no out or inout buffer, so there is nothing to validate");
    // A count may refer to scalar parameters and other case values, but never to a buffer.
    for (std::size_t i = 0; i < sig.params.size(); ++i)
    {
        const param& p = sig.params[i];
        if (p.kind != param_kind::buffer)
            continue;
        for (const auto& id : p.count.identifiers())
        {
            const param* other = sig.find(id);
            if (other && (other->kind == param_kind::buffer || is_floating(other->type)))
            {
                r.at("params").index(i).key("count").fail(
                    quote(id) + " is a " +
                    std::string(other->kind == param_kind::buffer ? "buffer" : "float scalar") +
                    " parameter; counts use integer values only");
            }
        }
    }
    return sig;
}

// Float outputs without their own tolerance use the workload's. When the workload gives none, it
// becomes the default of the first float output's dtype, and float outputs of other dtypes get their
// own defaults here, at load time, so that the self-contained form (which writes both) compares the
// same on a worker. A field the workload's tolerance leaves out comes from that same default.
void resolve_tolerances(workload& w, const boost::json::value* given, const json_location& loc)
{
    const auto first_float =
        std::find_if(w.sig.params.begin(),
                     w.sig.params.end(),
                     [](const param& p) { return p.is_output() && is_floating(p.type); });
    const dtype base = first_float != w.sig.params.end() ? first_float->type : dtype::float32;
    if (given)
    {
        w.tol = parse_tolerance(*given, loc).over(default_tolerance(base));
        return;
    }
    w.tol = default_tolerance(base);
    for (param& p : w.sig.params)
    {
        if (p.is_output() && is_floating(p.type) && p.type != base && !p.tol)
            p.tol = default_tolerance(p.type);
    }
}

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
                            const fs::path& dir)
{
    const auto& obj = as_object(v, loc);
    const auto* gen_value = obj.if_contains("gen");
    if (!gen_value)
        loc.fail("'gen' is missing (expected uniform, normal, randint, iota, const or file)");
    const std::string gen = as_string(*gen_value, loc.key("gen"));
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
            json_reader r(v, loc, {"gen", "path"});
            const std::string path = r.require_string("path");
            if (path.empty())
                r.at("path").fail("must not be empty");
            s.path = fs::path(path).is_absolute() ? fs::path(path) : (dir / path);
            s.path = s.path.lexically_normal();
            std::error_code ec;
            if (!fs::is_regular_file(s.path, ec))
                r.at("path").fail("file '" + s.path.string() + "' does not exist or is not a regular file");
            break;
        }
    }
    return s;
}

// Reads the kernel named `key` ("reference", "initial", "tunable") with its file or inline source,
// entry point and launch plan. `kernel` stays empty when the workload does not give it.
struct kernel_parse
{
    std::optional<kernel_source> kernel;
    json_location launch_loc{std::string()};  ///< Where its launch plan was written ("launch" by default).
};

kernel_parse parse_kernel(const json_reader& top,
                          const std::string& key,
                          bool required,
                          const std::string& default_entry,
                          const launch_plan& default_launch,
                          const fs::path& dir)
{
    const std::string source_key = key + "_source";
    const std::string entry_key = key + "_entry";
    const std::string launch_key = key + "_launch";
    const auto* file_value = top.find(key);
    const auto* inline_value = top.find(source_key);

    kernel_parse out;
    out.launch_loc = top.at("launch");
    if (file_value && inline_value)
        top.at(source_key).fail("give either '" + key + "' or '" + source_key + "', not both");
    if (!file_value && !inline_value)
    {
        if (required)
        {
            top.location().fail("'" + key + "' is missing (a file name, or '" + source_key +
                                "' with the code inline)");
        }
        for (const auto& k : {entry_key, launch_key})
        {
            if (top.find(k))
                top.at(k).fail("there is no '" + key + "' kernel to apply it to");
        }
        return out;
    }

    kernel_source ks;
    std::optional<std::string> entry;
    const boost::json::value* launch_value = nullptr;
    std::string file_name;
    json_location file_loc = top.at(key);
    if (inline_value)
    {
        ks.source = as_string(*inline_value, top.at(source_key));
        if (ks.source.empty())
            top.at(source_key).fail("must not be empty");
    }
    else if (key == "tunable" && file_value->is_object())
    {
        // {"source": "file.cu", "launch": {...}, "entry": "..."}
        json_reader r(*file_value, top.at(key), {"source", "launch", "entry"});
        file_name = r.require_string("source");
        file_loc = r.at("source");
        entry = r.optional_string("entry");
        if (entry && top.find(entry_key))
            top.at(entry_key).fail("the entry is already given in '" + key + ".entry'");
        launch_value = r.find("launch");
        if (launch_value)
        {
            out.launch_loc = r.at("launch");
            if (top.find(launch_key))
                top.at(launch_key).fail("the launch plan is already given in '" + key + ".launch'");
        }
    }
    else
    {
        if (!file_value->is_string())
        {
            top.at(key).fail(std::string("must be a file name") +
                             (key == "tunable" ? " or an object {\"source\", \"launch\", \"entry\"}" : "") +
                             ", got " + json_excerpt(*file_value));
        }
        file_name = std::string(file_value->get_string());
    }

    if (!inline_value)
    {
        if (file_name.empty())
            file_loc.fail("must not be empty");
        fs::path p = fs::path(file_name).is_absolute() ? fs::path(file_name) : dir / file_name;
        p = p.lexically_normal();
        std::error_code ec;
        if (!fs::exists(p, ec))
            file_loc.fail("file '" + p.string() + "' does not exist");
        try
        {
            ks.source = read_text_file(p);
        }
        catch (const user_error& ex)
        {
            file_loc.fail(ex.what());
        }
        if (ks.source.empty())
            file_loc.fail("file '" + p.string() + "' is empty");
        ks.path = p;
    }

    if (!entry)
        entry = top.optional_string(entry_key);
    ks.entry = entry.value_or(default_entry);
    check_identifier(ks.entry, top.find(entry_key) ? top.at(entry_key) : top.at(key), "entry point name");

    if (!launch_value && top.find(launch_key))
    {
        launch_value = top.find(launch_key);
        out.launch_loc = top.at(launch_key);
    }
    ks.launch = launch_value ? launch_plan::from_json(*launch_value, out.launch_loc.text()) : default_launch;
    out.kernel = std::move(ks);
    return out;
}

std::map<std::string, std::vector<std::int64_t>> parse_tunables(const boost::json::value& v,
                                                                const json_location& loc,
                                                                const signature& sig)
{
    std::map<std::string, std::vector<std::int64_t>> tunables;
    for (const auto& kv : as_object(v, loc))
    {
        const std::string name(kv.key());
        const auto tloc = loc.key(name);
        check_identifier(name, tloc, "tunable name");
        if (sig.find(name))
            tloc.fail("clashes with the parameter " + quote(name) + " (tunables become -D defines)");
        const auto& arr = as_array(kv.value(), tloc);
        if (arr.empty())
            tloc.fail("must list at least one value");
        std::vector<std::int64_t> values;
        for (std::size_t i = 0; i < arr.size(); ++i)
        {
            const std::int64_t x = as_int64(arr[i], tloc.index(i));
            if (std::find(values.begin(), values.end(), x) != values.end())
                tloc.fail("value " + std::to_string(x) + " is listed twice");
            values.push_back(x);
        }
        tunables.emplace(name, std::move(values));
    }
    return tunables;
}

bool is_valid_case_name(std::string_view name)
{
    // Case names become file names (requests/<case>.json), so they stay portable and unhidden.
    return !name.empty() && name[0] != '.' &&
           std::all_of(name.begin(),
                       name.end(),
                       [](char ch) {
                           return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' ||
                                  ch == '.';
                       });
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

void parse_case_inputs(const json_reader& r, const workload& w, const fs::path& dir, workload_case& c)
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
        input_spec s = parse_input_spec(kv.value(), iloc.key(name), p->type, dir);
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

// Parses cases[i] against the signature and tunables already read into w.
workload_case parse_case(const boost::json::value& v,
                         const json_location& loc,
                         const workload& w,
                         const fs::path& dir)
{
    json_reader r(v, loc, {"name", "role", "values", "float_values", "inputs", "seed"});
    workload_case c;
    c.name = r.require_string("name");
    if (!is_valid_case_name(c.name))
    {
        r.at("name").fail(
            quote(c.name) +
            " is not a valid case name (letters, digits, '_', '-' and '.', not starting with '.')");
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
    parse_case_inputs(r, w, dir, c);
    c.seed = r.find("seed") ? as_uint64(*r.find("seed"), r.at("seed")) : derived_case_seed(w.seed, c.name);
    return c;
}

// Checks one kernel's launch plan against every case. The reference and initial kernels are
// launched with case values only; the default plan and the tunable kernel's may also use
// tunables, and are then evaluated per tunable point by the autotuner instead.
void check_launch_plan(const workload& w,
                       const launch_plan& plan,
                       const json_location& plan_loc,
                       const json_location& cases_loc,
                       const std::string& kernel,
                       bool tunables_allowed)
{
    std::vector<std::pair<std::string, const expression*>> fields;
    for (std::size_t i = 0; i < 3; ++i)
        fields.emplace_back("grid[" + std::to_string(i) + "]", &plan.grid[i]);
    for (std::size_t i = 0; i < 3; ++i)
        fields.emplace_back("block[" + std::to_string(i) + "]", &plan.block[i]);
    fields.emplace_back("shared_bytes", &plan.shared_bytes);
    bool uses_tunables = false;
    for (const auto& [field, e] : fields)
    {
        for (const auto& id : e->identifiers())
        {
            if (w.tunables.count(id))
            {
                if (!tunables_allowed)
                {
                    plan_loc.key(field).fail(quote(id) + " is a tunable, but the " + kernel +
                                             " kernel is launched with case values only (give '" + kernel +
                                             "_launch')");
                }
                uses_tunables = true;
                continue;
            }
            for (std::size_t ci = 0; ci < w.cases.size(); ++ci)
            {
                if (!w.cases[ci].values.count(id))
                {
                    cases_loc.index(ci).key("values").fail(quote(id) + " is missing (needed by " +
                                                           plan_loc.path() + "." + field + ")");
                }
            }
        }
    }
    if (uses_tunables)
        return;
    for (const auto& c : w.cases)
    {
        try
        {
            (void)plan.evaluate(c.values);
        }
        catch (const expression_error& ex)
        {
            plan_loc.fail("case " + quote(c.name) + ": " + ex.what());
        }
    }
}

std::vector<expression> parse_restrictions(const boost::json::value& v,
                                           const json_location& loc,
                                           const workload& w)
{
    std::vector<expression> out;
    const auto& arr = as_array(v, loc);
    for (std::size_t i = 0; i < arr.size(); ++i)
    {
        const auto rloc = loc.index(i);
        if (!arr[i].is_string())
            rloc.fail("must be an expression string, got " + json_excerpt(arr[i]));
        expression e = parse_expression(arr[i], rloc);
        for (const auto& id : e.identifiers())
        {
            const bool in_every_case =
                std::all_of(w.cases.begin(),
                            w.cases.end(),
                            [&](const workload_case& c) { return c.values.count(id) != 0; });
            if (!w.tunables.count(id) && !in_every_case)
                rloc.fail(quote(id) + " is neither a tunable nor a value of every case");
        }
        out.push_back(std::move(e));
    }
    return out;
}

// An integer expression over case values that every case has: m, n and k of a baseline, bytes
// and flops of the roofline. Tunables are not allowed: these describe the problem, not a kernel.
expression parse_case_expression(const boost::json::value& v, const json_location& loc, const workload& w)
{
    expression e = parse_expression(v, loc);
    for (const auto& id : e.identifiers())
    {
        if (w.tunables.count(id))
            loc.fail(quote(id) +
                     " is a tunable; this expression describes the problem, so it may use case values only");
        for (std::size_t ci = 0; ci < w.cases.size(); ++ci)
        {
            if (!w.cases[ci].values.count(id))
                loc.fail(quote(id) + " is not a value of case " + quote(w.cases[ci].name));
        }
    }
    return e;
}

std::int64_t evaluate_for_case(const expression& e, const workload_case& c, const json_location& loc)
{
    try
    {
        return e.evaluate(c.values);
    }
    catch (const expression_error& ex)
    {
        loc.fail("case " + quote(c.name) + ": " + ex.what());
    }
}

// The buffer named by field `key` of a baseline: a float32 buffer parameter of the signature.
const param& baseline_buffer(const json_reader& r, std::string_view key, const workload& w)
{
    const std::string name = r.require_string(key);
    const param* p = w.sig.find(name);
    if (!p || p->kind != param_kind::buffer)
        r.at(key).fail(quote(name) + " is not a buffer parameter");
    if (p->type != dtype::float32)
        r.at(key).fail(quote(name) + " is " + std::string(to_string(p->type)) +
                       "; cublas_sgemm needs float32");
    return *p;
}

std::vector<baseline_spec> parse_baselines(const boost::json::value& v,
                                           const json_location& loc,
                                           const workload& w)
{
    std::vector<baseline_spec> out;
    const auto& arr = as_array(v, loc);
    for (std::size_t i = 0; i < arr.size(); ++i)
    {
        const auto bloc = loc.index(i);
        json_reader r(arr[i], bloc, {"name", "kind", "m", "n", "k", "a", "b", "c"});
        baseline_spec b;
        b.name = r.require_string("name");
        if (!is_valid_case_name(b.name))
            r.at("name").fail(quote(b.name) +
                              " is not a valid baseline name (letters, digits, '_', '-' and '.')");
        for (const auto& other : out)
        {
            if (other.name == b.name)
                r.at("name").fail("baseline " + quote(b.name) + " is listed twice");
        }
        b.kind = r.require_string("kind");
        if (b.kind != baseline_kind_cublas_sgemm)
            r.at("kind").fail("unknown baseline kind " + quote(b.kind) + " (known: cublas_sgemm)");
        b.m = parse_case_expression(r.require("m"), r.at("m"), w);
        b.n = parse_case_expression(r.require("n"), r.at("n"), w);
        b.k = parse_case_expression(r.require("k"), r.at("k"), w);
        const param& a = baseline_buffer(r, "a", w);
        const param& bb = baseline_buffer(r, "b", w);
        const param& c = baseline_buffer(r, "c", w);
        b.a = a.name;
        b.b = bb.name;
        b.c = c.name;
        if (!a.is_input())
            r.at("a").fail(quote(a.name) + " is an out buffer; A must be an input");
        if (!bb.is_input())
            r.at("b").fail(quote(bb.name) + " is an out buffer; B must be an input");
        if (!c.is_output())
            r.at("c").fail(quote(c.name) + " is an in buffer; C must be an output");
        if (a.name == c.name || bb.name == c.name)
            r.at("c").fail(quote(c.name) + " is also named as A or B; C must be a buffer of its own");
        // The baseline writes only C, and every output of a case is validated against the reference.
        for (const auto& p : w.sig.params)
        {
            if (p.is_output() && p.name != c.name)
                r.at("c").fail("the workload has another output, " + quote(p.name) +
                               ", which the baseline would not write");
        }
        for (const auto& wc : w.cases)
        {
            gemm_shape g{evaluate_for_case(b.m, wc, r.at("m")),
                         evaluate_for_case(b.n, wc, r.at("n")),
                         evaluate_for_case(b.k, wc, r.at("k"))};
            const std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
            for (const auto& [key, x] : {std::pair{"m", g.m}, std::pair{"n", g.n}, std::pair{"k", g.k}})
            {
                if (x <= 0 || x > int_max)
                    r.at(key).fail("case " + quote(wc.name) + ": evaluates to " + std::to_string(x) +
                                   ", must be from 1 to 2147483647");
            }
            const auto need = [&](const param& p, std::int64_t rows, std::int64_t cols, const char* key)
            {
                const std::int64_t have = p.count.evaluate(wc.values);
                if (have / rows < cols)
                {
                    r.at(key).fail("case " + quote(wc.name) + ": " + p.name + " holds " +
                                   std::to_string(have) + " elements, fewer than " + std::to_string(rows) +
                                   " x " + std::to_string(cols));
                }
            };
            need(a, g.m, g.k, "a");
            need(bb, g.k, g.n, "b");
            need(c, g.m, g.n, "c");
        }
        out.push_back(std::move(b));
    }
    return out;
}

roofline_work parse_roofline(const boost::json::value& v, const json_location& loc, const workload& w)
{
    json_reader r(v, loc, {"bytes", "flops", "note"});
    if (!r.find("bytes") && !r.find("flops"))
        loc.fail("needs 'bytes' or 'flops' (or both)");
    roofline_work out;
    for (const char* key : {"bytes", "flops"})
    {
        const auto* x = r.find(key);
        if (!x)
            continue;
        expression e = parse_case_expression(*x, r.at(key), w);
        for (const auto& wc : w.cases)
        {
            if (const std::int64_t n = evaluate_for_case(e, wc, r.at(key)); n < 0)
                r.at(key).fail("case " + quote(wc.name) + ": evaluates to " + std::to_string(n) +
                               ", must be >= 0");
        }
        (std::string_view(key) == "bytes" ? out.bytes : out.flops) = std::move(e);
    }
    out.note = r.optional_string("note").value_or("");
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

const param* signature::find(std::string_view name) const
{
    for (const auto& p : params)
    {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

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
            o["lo"] = compact_number(lo);
            o["hi"] = compact_number(hi);
            break;
        case input_kind::normal:
            o["mean"] = compact_number(mean);
            o["stddev"] = compact_number(stddev);
            break;
        case input_kind::iota:
            o["start"] = compact_number(start);
            o["step"] = compact_number(step);
            break;
        case input_kind::constant:
            o["value"] = compact_number(value);
            break;
        case input_kind::file:
            o["path"] = path.string();
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

const workload_case* workload::find_case(std::string_view case_name) const
{
    for (const auto& c : cases)
    {
        if (c.name == case_name)
            return &c;
    }
    return nullptr;
}

const baseline_spec* workload::find_baseline(std::string_view baseline_name) const
{
    for (const auto& b : baselines)
    {
        if (b.name == baseline_name)
            return &b;
    }
    return nullptr;
}

gemm_shape workload::baseline_shape(const baseline_spec& b, const workload_case& c) const
{
    try
    {
        return gemm_shape{b.m.evaluate(c.values), b.n.evaluate(c.values), b.k.evaluate(c.values)};
    }
    catch (const expression_error& ex)
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': baseline " + b.name + ": " +
                         ex.what());
    }
}

std::size_t workload::performance_case_count() const
{
    return static_cast<std::size_t>(std::count_if(
        cases.begin(), cases.end(), [](const workload_case& c) { return c.role == case_role::performance; }));
}

tolerance workload::tolerance_for(const param& p) const
{
    if (p.tol)
        return *p.tol;
    return is_floating(p.type) ? tol : tolerance{};
}

std::int64_t workload::buffer_count(const param& p, const workload_case& c) const
{
    std::int64_t n = 0;
    try
    {
        n = p.count.evaluate(c.values);
    }
    catch (const expression_error& ex)
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': " + p.name +
                         ".count: " + ex.what());
    }
    if (n <= 0)
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': " + p.name + ".count '" +
                         p.count.text() + "' evaluates to " + std::to_string(n) + ", must be positive");
    }
    return n;
}

std::int64_t workload::buffer_bytes(const param& p, const workload_case& c) const
{
    const std::int64_t n = buffer_count(p, c);
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(n, static_cast<std::int64_t>(size_of(p.type)), &bytes))
    {
        throw user_error("workload '" + name + "', case '" + c.name + "': " + p.name + " has " +
                         std::to_string(n) + " elements, too many bytes to address");
    }
    return bytes;
}

workload workload::load(const fs::path& path)
{
    std::error_code ec;
    fs::path file = path;
    fs::path dir;
    if (fs::is_directory(path, ec))
    {
        file = path / "workload.json";
        dir = path;
        if (!fs::exists(file, ec))
            throw user_error(path.string() + ": not a workload directory (it has no workload.json)");
    }
    else
    {
        if (!fs::exists(path, ec))
            throw user_error(
                path.string() +
                ": no such workload (expected a directory holding workload.json or a .json file)");
        dir = path.parent_path();
    }
    const boost::json::value v = read_json_file(file);
    dir = fs::absolute(dir.empty() ? fs::path(".") : dir, ec).lexically_normal();
    if (!dir.empty() && !dir.has_filename())
        dir = dir.parent_path();  // "a/b/" -> "a/b"
    return from_json(v, dir, file.string());
}

// A json_error is the user's to fix, like every other problem of a workload: one line naming the
// file and the field.
workload workload::from_json(const boost::json::value& v, const fs::path& dir, std::string_view origin)
try
{
    const json_location root(std::string(origin), {});
    json_reader top(v,
                    root,
                    {"name",
                     "description",
                     "seed",
                     "signature",
                     "tolerance",
                     "cases",
                     "reference",
                     "reference_source",
                     "reference_entry",
                     "reference_launch",
                     "initial",
                     "initial_source",
                     "initial_entry",
                     "initial_launch",
                     "tunable",
                     "tunable_source",
                     "tunable_entry",
                     "tunable_launch",
                     "launch",
                     "tunables",
                     "restrictions",
                     "baselines",
                     "roofline"});
    workload w;
    w.dir = dir;
    w.name = top.require_string("name");
    if (w.name.empty())
        top.at("name").fail("must not be empty");
    w.description = top.optional_string("description").value_or("");
    if (const auto* s = top.find("seed"))
        w.seed = as_uint64(*s, top.at("seed"));
    w.sig = parse_signature(top.require("signature"), top.at("signature"));
    resolve_tolerances(w, top.find("tolerance"), top.at("tolerance"));
    // Tunables come before the cases so that a case value may be checked against them.
    if (const auto* t = top.find("tunables"))
        w.tunables = parse_tunables(*t, top.at("tunables"), w.sig);

    const auto& cases = as_array(top.require("cases"), top.at("cases"));
    if (cases.empty())
        top.at("cases").fail("must list at least one case");
    for (std::size_t i = 0; i < cases.size(); ++i)
        w.cases.push_back(parse_case(cases[i], top.at("cases").index(i), w, dir));

    // The default launch plan, then the kernels, each of which may override it.
    w.launch = launch_plan::from_json(top.require("launch"), top.at("launch").text());
    auto reference = parse_kernel(top, "reference", true, w.sig.entry, w.launch, dir);
    auto initial = parse_kernel(top, "initial", false, w.sig.entry, w.launch, dir);
    auto tunable = parse_kernel(top, "tunable", false, w.sig.entry, w.launch, dir);
    w.reference = std::move(*reference.kernel);
    w.initial = std::move(initial.kernel);
    w.tunable = std::move(tunable.kernel);

    const auto cases_loc = top.at("cases");
    check_launch_plan(w, w.launch, top.at("launch"), cases_loc, "", true);
    check_launch_plan(w, w.reference.launch, reference.launch_loc, cases_loc, "reference", false);
    if (w.initial)
        check_launch_plan(w, w.initial->launch, initial.launch_loc, cases_loc, "initial", false);
    if (w.tunable)
        check_launch_plan(w, w.tunable->launch, tunable.launch_loc, cases_loc, "tunable", true);

    if (const auto* rs = top.find("restrictions"))
        w.restrictions = parse_restrictions(*rs, top.at("restrictions"), w);
    if (const auto* bs = top.find("baselines"))
        w.baselines = parse_baselines(*bs, top.at("baselines"), w);
    if (const auto* rf = top.find("roofline"))
        w.roofline = parse_roofline(*rf, top.at("roofline"), w);
    return w;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

boost::json::value workload::to_json() const
{
    boost::json::object o;
    o["name"] = name;
    o["description"] = description;
    o["seed"] = seed;

    boost::json::array params;
    for (const auto& p : sig.params)
    {
        boost::json::object po{{"name", p.name},
                               {"kind", p.kind == param_kind::scalar ? "scalar" : "buffer"},
                               {"type", to_string(p.type)}};
        if (p.kind == param_kind::buffer)
        {
            po["dir"] = to_string(p.dir);
            po["count"] = p.count.text();
            // Only when set, so that the self-contained form of a workload without per-output
            // tolerances (and the evaluation cache keyed on it) is what it was before they existed.
            if (p.tol)
                po["tolerance"] = tolerance_json(*p.tol);
        }
        params.push_back(std::move(po));
    }
    o["signature"] = boost::json::object{{"entry", sig.entry}, {"params", std::move(params)}};
    o["tolerance"] = tolerance_json(tol);

    boost::json::array cs;
    for (const auto& c : cases)
    {
        boost::json::object co{{"name", c.name}, {"role", to_string(c.role)}};
        boost::json::object values, fvalues, inputs;
        for (const auto& [k, x] : c.values)
            values[k] = x;
        for (const auto& [k, x] : c.float_values)
            fvalues[k] = compact_number(x);
        for (const auto& [k, s] : c.inputs)
            inputs[k] = s.to_json();
        co["values"] = std::move(values);
        co["float_values"] = std::move(fvalues);
        co["inputs"] = std::move(inputs);
        co["seed"] = c.seed;
        cs.push_back(std::move(co));
    }
    o["cases"] = std::move(cs);

    o["launch"] = launch.to_json();
    auto put_kernel = [&](const std::string& key, const kernel_source& k)
    {
        o[key + "_source"] = k.source;
        o[key + "_entry"] = k.entry;
        o[key + "_launch"] = k.launch.to_json();
    };
    put_kernel("reference", reference);
    if (initial)
        put_kernel("initial", *initial);
    if (tunable)
        put_kernel("tunable", *tunable);

    boost::json::object tun;
    for (const auto& [k, values] : tunables)
    {
        boost::json::array arr;
        for (auto x : values)
            arr.emplace_back(x);
        tun[k] = std::move(arr);
    }
    o["tunables"] = std::move(tun);
    boost::json::array rs;
    for (const auto& r : restrictions)
        rs.emplace_back(r.text());
    o["restrictions"] = std::move(rs);
    // Written only when present, so the self-contained form (and everything keyed on it, such as
    // the evaluation cache) stays the same for workloads that declare neither.
    if (!baselines.empty())
    {
        boost::json::array bs;
        for (const auto& b : baselines)
        {
            bs.push_back(boost::json::object{{"name", b.name},
                                             {"kind", b.kind},
                                             {"m", b.m.text()},
                                             {"n", b.n.text()},
                                             {"k", b.k.text()},
                                             {"a", b.a},
                                             {"b", b.b},
                                             {"c", b.c}});
        }
        o["baselines"] = std::move(bs);
    }
    if (roofline)
    {
        o["roofline"] = boost::json::object{
            {"bytes", roofline->bytes.text()}, {"flops", roofline->flops.text()}, {"note", roofline->note}};
    }
    return o;
}

std::string_view to_string(case_role r)
{
    return r == case_role::performance ? "performance" : "correctness";
}

std::string_view to_string(buffer_dir d)
{
    switch (d)
    {
        case buffer_dir::in:
            return "in";
        case buffer_dir::out:
            return "out";
        case buffer_dir::inout:
            return "inout";
    }
    return "in";
}

std::string_view to_string(input_kind k)
{
    switch (k)
    {
        case input_kind::uniform:
            return "uniform";
        case input_kind::normal:
            return "normal";
        case input_kind::randint:
            return "randint";
        case input_kind::iota:
            return "iota";
        case input_kind::constant:
            return "const";
        case input_kind::file:
            return "file";
    }
    return "uniform";
}

}  // namespace warpsmith
