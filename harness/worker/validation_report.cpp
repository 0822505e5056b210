// The text and protocol form of a validation run's report (validation_report.hpp).

#include "harness/worker/validation_report.hpp"

#include "harness/worker/device_buffers.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace warpsmith::worker
{

std::string format_double(double v, int digits)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    return text;
}

// The hidden run stays hidden (SPEC §3 "Trust rules"): its reports say where and how much an output
// is wrong (indices, counts, the largest errors), never the values. The expected ones are the
// reference's results on inputs the model must not learn, and the got ones can carry those inputs
// out (a kernel that copies an input to its output).
bool shows_values(run_kind k)
{
    return k != run_kind::hidden;
}

std::string list_elements(const std::vector<element_mismatch>& list, run_kind kind, bool against_previous)
{
    const char* got_word = against_previous ? "second run" : "got";
    const char* expected_word = against_previous ? "first run" : "expected";
    const bool with_values = shows_values(kind);
    std::string text;
    for (const element_mismatch& m : list)
    {
        if (!text.empty())
            text += ", ";
        text.append("[").append(std::to_string(m.index)).append("]");
        if (!with_values)
            continue;
        text.append(" ").append(got_word).append(" ").append(m.got.to_text());
        text.append(" ").append(expected_word).append(" ").append(m.expected.to_text());
    }
    return text;
}

std::string_view to_string(run_kind k)
{
    switch (k)
    {
        case run_kind::stated:
            return "stated";
        case run_kind::hidden:
            return "hidden";
        case run_kind::repeat:
            return "repeat";
        case run_kind::timed:
            return "timed";
    }
    return "stated";
}

// ---- element_value ------------------------------------------------------------------------------

bool element_value::is_poison() const
{
    const std::size_t bytes = size_of(type);
    const std::uint64_t mask = bytes >= 8 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (8 * bytes)) - 1);
    return (bits & mask) == (poison_for(type).element_bits & mask);
}

namespace
{

// The element as a double (floats) or exact integer (integers).
struct decoded
{
    bool floating = false;
    double f = 0;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    bool is_unsigned = false;
};

decoded decode(const element_value& e)
{
    decoded d;
    switch (e.type)
    {
        case dtype::float16:
            d.floating = true;
            d.f = half_bits_to_float(static_cast<unsigned short>(e.bits));
            break;
        case dtype::bfloat16:
            d.floating = true;
            d.f = bfloat16_bits_to_float(static_cast<unsigned short>(e.bits));
            break;
        case dtype::float32:
            d.floating = true;
            d.f = std::bit_cast<float>(static_cast<std::uint32_t>(e.bits));
            break;
        case dtype::float64:
            d.floating = true;
            d.f = std::bit_cast<double>(e.bits);
            break;
        case dtype::int8:
            d.i = static_cast<std::int8_t>(e.bits);
            break;
        case dtype::int16:
            d.i = static_cast<std::int16_t>(e.bits);
            break;
        case dtype::int32:
            d.i = static_cast<std::int32_t>(e.bits);
            break;
        case dtype::int64:
            d.i = static_cast<std::int64_t>(e.bits);
            break;
        case dtype::uint8:
            d.is_unsigned = true;
            d.u = static_cast<std::uint8_t>(e.bits);
            break;
        case dtype::uint32:
            d.is_unsigned = true;
            d.u = static_cast<std::uint32_t>(e.bits);
            break;
        case dtype::uint64:
            d.is_unsigned = true;
            d.u = e.bits;
            break;
    }
    return d;
}

int digits_for(dtype t)
{
    switch (t)
    {
        case dtype::float16:
        case dtype::bfloat16:
            return 5;
        case dtype::float64:
            return 15;
        default:
            return 7;
    }
}

}  // namespace

protocol::element_reading element_value::to_reading() const
{
    // Integers may legitimately equal the poison pattern, so only floats say "unwritten" here.
    if (is_floating(type) && is_poison())
        return std::string("unwritten");
    const decoded d = decode(*this);
    if (d.floating)
    {
        if (std::isnan(d.f))
            return std::string("NaN");
        if (std::isinf(d.f))
            return std::string(d.f > 0 ? "Inf" : "-Inf");
        return d.f;
    }
    if (d.is_unsigned)
        return d.u;
    return d.i;
}

std::string element_value::to_text() const
{
    if (is_floating(type) && is_poison())
        return "unwritten";
    const decoded d = decode(*this);
    if (d.floating)
    {
        if (std::isnan(d.f))
            return "NaN";
        if (std::isinf(d.f))
            return d.f > 0 ? "Inf" : "-Inf";
        return format_double(d.f, digits_for(type));
    }
    std::string text = d.is_unsigned ? std::to_string(d.u) : std::to_string(d.i);
    if (is_poison())
        text += " (poison pattern: unwritten?)";
    return text;
}

protocol::validation_run run_report::to_protocol() const
{
    protocol::validation_run r;
    r.inputs = std::string(to_string(kind));
    r.passed = passed;
    r.elements = elements;
    r.mismatches = mismatches;
    r.unwritten = unwritten;
    r.nonfinite = nonfinite;
    r.max_abs_error = max_abs_error;
    r.max_rel_error = max_rel_error;
    for (const element_mismatch& m : first_mismatches)
    {
        protocol::mismatch_report e{m.buffer, m.index, m.got.to_reading(), m.expected.to_reading()};
        if (!shows_values(kind))
            e.got = e.expected = std::string("hidden");
        r.first_mismatches.push_back(std::move(e));
    }
    return r;
}

}  // namespace warpsmith::worker
