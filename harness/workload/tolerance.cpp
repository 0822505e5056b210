#include "harness/workload/tolerance.hpp"

#include <cstdio>

namespace warpsmith
{

tolerance default_tolerance(dtype t)
{
    switch (t)
    {
        case dtype::float16:
            return {1e-3, 1e-3};
        case dtype::bfloat16:
            return {1e-2, 1e-2};
        case dtype::float32:
            return {1e-5, 1e-5};
        case dtype::float64:
            return {1e-10, 1e-10};
        case dtype::int8:
        case dtype::uint8:
        case dtype::int16:
        case dtype::int32:
        case dtype::uint32:
        case dtype::int64:
        case dtype::uint64:
            break;
    }
    // Integers have no rounding to forgive: an index, a count or a bit pattern is right or wrong.
    return {};
}

std::string mismatch_text(
    const tolerance& tol, dtype t, std::uint64_t mismatches, std::uint64_t elements, bool against_previous)
{
    const auto number = [](double v)
    {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", v);
        return std::string(text);
    };
    std::string text = std::to_string(mismatches) + " of " + std::to_string(elements) + " elements";
    // An exact comparison has no atol or rtol to speak of: "outside atol=0 + rtol=0*|ref|" would
    // read like a tolerance that was forgotten.
    if (tol.exact())
        return text + " differ from the " + (against_previous ? "first run" : "reference") + " (" +
               std::string(to_string(t)) + ", compared exactly)";
    return text + " outside atol=" + number(tol.atol) + " + rtol=" + number(tol.rtol) + "*|" +
           (against_previous ? "first run" : "ref") + "|";
}

}  // namespace warpsmith
