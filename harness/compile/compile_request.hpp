#pragma once

// What the compile layer takes and gives back (SPEC §3 "Compile"). A failed compile is a value
// (compile_output::compiled == false with its log), never an exception.

#include "harness/workload/candidate.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace warpsmith
{

struct compile_request
{
    std::string source;                ///< CUDA C++ device code.
    std::string entry;                 ///< extern "C" entry point that must exist.
    std::vector<std::string> options;  ///< Allow-listed options (compile_options.hpp), "-D" included.
    std::string arch = "sm_90";        ///< "sm_90", "sm_90a", ...: always compiled to a cubin.
    std::string name = "kernel.cu";    ///< File name shown in the log.

    boost::json::value to_json() const;
    static compile_request from_json(const boost::json::value& v);  ///< Throws user_error.
};

/// Per-kernel resources as reported by ptxas (-v) for the entry point.
struct resource_usage
{
    int registers = 0;
    int spill_stores_bytes = 0;
    int spill_loads_bytes = 0;
    int static_shared_bytes = 0;
    int stack_frame_bytes = 0;  ///< Local memory per thread (stack frame).
    int barriers = 0;
    int constant_bytes = 0;

    boost::json::value to_json() const;
    static resource_usage from_json(const boost::json::value& v);
};

struct compile_output
{
    bool compiled = false;             ///< A cubin was produced and the entry exists.
    std::string error;                 ///< One line when !compiled ("entry 'x' not found; ...").
    std::string log;                   ///< NVRTC + ptxas log, verbatim.
    std::string cubin;                 ///< Binary cubin bytes (empty when !compiled).
    std::vector<std::string> entries;  ///< Kernel entry points found in the cubin.
    resource_usage resources;          ///< Of the requested entry.
    std::string arch;
    std::string key;  ///< Cache key (SHA-256 hex).
    bool cache_hit = false;
    double compile_ms = 0;  ///< NVRTC time (0 on a cache hit).
    /// The PTX names the local state space (".local": a local array, a stack frame the code
    /// addresses, inline ld/st.local, cvta.local), so the kernel's own code can load local memory
    /// and the harness wipes the context's local window before each of its launches
    /// (harness/worker/local_window.hpp). Register spills, which ptxas adds after the PTX, do not
    /// set it (the worker wipes for any kernel with a stack frame anyway). True when unknown.
    bool local_memory = true;

    /// cubin travels base64-encoded as "cubin_b64".
    boost::json::value to_json() const;
    static compile_output from_json(const boost::json::value& v);
};

/// The compile request for a candidate: its source and entry, its options followed by its defines
/// as -D options, for one architecture. The file name is always "kernel.cu", so that one candidate
/// has one cache key whoever compiles it (the engine, the autotuner's pruning pass, eval, a tool call).
compile_request compile_request_for(const candidate& c, const std::string& arch);

}  // namespace warpsmith
