#pragma once

// Numbers as the text reports print them: one value through a printf format.

#include <string>

namespace warpsmith::report
{

/// `x` through the printf format `f`, which takes one double ("%.2f us", "%.0f%%", "%.2fx").
std::string fmt(const char* f, double x);

}  // namespace warpsmith::report
