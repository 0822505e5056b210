#pragma once

// Shared by the worker's CPU tests (tests/harness/worker) and GPU tests (tests/harness/gpu): where
// the worker binary is, and small inline workloads whose kernels are written in the test itself.

#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>

#include <string>

namespace warpsmith::test
{

inline std::string worker_path()
{
    return (bin_dir() / "warpsmith-worker").string();
}

/// A vector-add workload c = a + b over `n` elements of the given type name ("float32", "int32",
/// "float16"), with two odd-sized correctness cases and one performance case of perf_n elements.
/// The reference is a plain one-element-per-thread kernel launched with 256-thread blocks.
inline boost::json::object vector_add_workload(const std::string& type, std::int64_t perf_n = 1 << 22)
{
    std::string ctype = type == "float32" ? "float" : type == "int32" ? "int" : "unsigned short";
    std::string body;
    if (type == "float16")
    {
        // Half arithmetic through PTX conversions, so the test needs no cuda_fp16.h.
        body =
            "float x, y; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(x) : \"h\"(a[i]));"
            " asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(y) : \"h\"(b[i]));"
            " unsigned short r; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x + y)); c[i] = r;";
    }
    else
    {
        body = "c[i] = a[i] + b[i];";
    }
    const std::string reference = "extern \"C\" __global__ void vadd(int n, const " + ctype + "* a, const " +
                                  ctype + "* b, " + ctype +
                                  "* c)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                  "    if (i < n) { " +
                                  body + " }\n}\n";
    boost::json::object w{
        {"name", "vadd_" + type},
        {"signature",
         {{"entry", "vadd"},
          {"params",
           {{{"name", "n"}, {"kind", "scalar"}, {"type", "int32"}},
            {{"name", "a"}, {"kind", "buffer"}, {"type", type}, {"dir", "in"}, {"count", "n"}},
            {{"name", "b"}, {"kind", "buffer"}, {"type", type}, {"dir", "in"}, {"count", "n"}},
            {{"name", "c"}, {"kind", "buffer"}, {"type", type}, {"dir", "out"}, {"count", "n"}}}}}},
        {"tolerance", {{"rtol", type == "float16" ? 1e-3 : 1e-5}, {"atol", type == "float16" ? 1e-3 : 1e-5}}},
        {"cases",
         {{{"name", "odd-small"}, {"values", {{"n", 1237}}}},
          {{"name", "odd-large"}, {"values", {{"n", 300007}}}},
          {{"name", "perf"}, {"role", "performance"}, {"values", {{"n", perf_n}}}}}},
        {"reference_source", reference},
        {"launch", {{"grid", {"ceil_div(n,256)"}}, {"block", {256}}}}};
    return w;
}

/// The source of the reference kernel of vector_add_workload, as a candidate would send it.
inline std::string vector_add_source(const boost::json::object& workload)
{
    return std::string(workload.at("reference_source").as_string());
}

}  // namespace warpsmith::test
