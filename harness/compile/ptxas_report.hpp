#pragma once

// Parsing the ptxas -v report that NVRTC leaves in the program log. The report lists every entry
// function ("Compiling entry function 'X' for 'sm_90'"), then its properties (stack frame, spill
// stores and loads) and its resources ("Used 32 registers, used 1 barriers, 400 bytes cumulative
// stack size, 1024 bytes smem"). Non-inlined device functions get their own "Function
// properties" blocks, which are not entries and are not attributed to any entry.

#include "harness/compile/compile_request.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

struct ptxas_report
{
    std::vector<std::string> entries;                 ///< Entry functions in report order (names as emitted).
    std::map<std::string, resource_usage> resources;  ///< Per entry.
    int module_constant_bytes = 0;                    ///< cmem[N] on the module-wide "bytes gmem" line.
};

/// Never throws: lines it does not recognise are skipped, so a newer ptxas wording degrades to
/// zeros rather than a failure.
ptxas_report parse_ptxas_report(std::string_view log);

}  // namespace warpsmith
