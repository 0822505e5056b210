#include "engine/report/number_text.hpp"

#include <cstdio>

namespace warpsmith::report
{

std::string fmt(const char* f, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

}  // namespace warpsmith::report
